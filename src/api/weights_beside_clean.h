// The weights' index for convert(), read on a second thread beside the clean-up stage. At ~470
// bytes a tensor (names, sizes, a storage and its CRC check each: 23 MB at 50,000 tensors; 740
// when this was written), read beside import and translate as before, it stood in the peak of a
// large conversion, at the end of translate where the IR and the ONNX graph are alive together.
// Started once the IR is cut to its value types, it runs while clean-up does; clean-up waits for
// it only where it reads a weight (BatchNorm and Transpose folding), and convert() takes it right
// after clean-up, before anything else can fail, so that its errors come in the same order as
// before.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "api/pipeline_helpers.h"
#include "emit/folded_weights.h"
#include "clean/weight_access.h"

namespace pt2onnx::api {

class WeightsBesideClean final : public clean::WeightAccess {
 public:
  // Starts reading the index; `model` and `archive` must outlive this.
  WeightsBesideClean(model::OnnxModel& model, const archive::Archive& archive, std::string model_name)
      : model_(model), tensors_(archive, std::move(model_name)) {}

  // The archive's weights and those clean-up derived: waits for the index, or rethrows its error.
  emit::FoldedWeights& folded() {
    if (!folded_) {
      ArchiveTensors tensors = tensors_.get();
      folded_.emplace(model_, std::move(tensors.weights), std::move(tensors.constants));
    }
    return *folded_;
  }

  std::optional<std::vector<float>> read_floats(const std::string& initializer) override {
    return folded().read_floats(initializer);
  }
  bool add_scaled(const std::string& source, const std::string& name, std::vector<double> factors,
                  int64_t inner) override {
    return folded().add_scaled(source, name, std::move(factors), inner);
  }
  bool add_permuted(const std::string& source, const std::string& name, const std::vector<int64_t>& perm) override {
    return folded().add_permuted(source, name, perm);
  }
  bool add_packed_4bit(const std::string& source, const std::string& name, const Packing& how) override {
    return folded().add_packed_4bit(source, name, how);
  }

 private:
  model::OnnxModel& model_;
  ArchiveTensorsBeside tensors_;
  std::optional<emit::FoldedWeights> folded_;
};

}  // namespace pt2onnx::api
