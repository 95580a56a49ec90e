// The weights' index for convert(), read on a second thread beside the clean-up stage. It holds a
// few hundred bytes a tensor (names, sizes, a storage and its CRC check each); read beside import
// and translate, it would stand in the peak of a large conversion, at the end of translate where
// the IR and the ONNX graph are alive together.
// Started once the IR is cut to its value types, it runs while clean-up does; clean-up waits for
// it only where it reads a weight (BatchNorm and Transpose folding, 4-bit packing), and convert()
// takes it right after clean-up, before anything else can fail, so that its errors come in the
// same order as before.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/pipeline_helpers.h"
#include "clean/weight_access.h"
#include "emit/derived_tensors.h"

namespace pt2onnx::api {

class WeightsBesideClean final : public clean::WeightReader {
 public:
  // Starts reading the index; `archive` must outlive this.
  WeightsBesideClean(const archive::Archive& archive, std::string model_name) : beside_(archive, std::move(model_name)) {}

  // The archive's weights and constants: waits for the index, or rethrows its error.
  const ArchiveTensors& tensors() {
    if (!tensors_) tensors_.emplace(beside_.get());
    return *tensors_;
  }

  std::optional<std::vector<float>> read_floats(const model::WeightBinding& weight) override {
    const auto& first = weight.is_constant ? tensors().constants : tensors().weights;
    const auto& second = weight.is_constant ? tensors().weights : tensors().constants;
    if (auto found = first.find(weight.fqn); found != first.end()) return emit::read_small_floats(found->second);
    if (auto found = second.find(weight.fqn); found != second.end()) return emit::read_small_floats(found->second);
    return std::nullopt;
  }

  std::optional<std::vector<int64_t>> read_int64s(const model::WeightBinding& weight) override {
    const auto& first = weight.is_constant ? tensors().constants : tensors().weights;
    const auto& second = weight.is_constant ? tensors().weights : tensors().constants;
    if (auto found = first.find(weight.fqn); found != first.end()) return emit::read_small_int64s(found->second);
    if (auto found = second.find(weight.fqn); found != second.end()) return emit::read_small_int64s(found->second);
    return std::nullopt;
  }

  std::optional<std::vector<double>> channel_sums_of_squares(const model::WeightBinding& weight, int64_t channels,
                                                             int64_t inner) override {
    const auto& first = weight.is_constant ? tensors().constants : tensors().weights;
    const auto& second = weight.is_constant ? tensors().weights : tensors().constants;
    if (auto found = first.find(weight.fqn); found != first.end())
      return emit::channel_sums_of_squares(found->second, channels, inner);
    if (auto found = second.find(weight.fqn); found != second.end())
      return emit::channel_sums_of_squares(found->second, channels, inner);
    return std::nullopt;
  }

  bool derivable(const model::DerivedWeight& weight, const std::vector<model::DerivedWeight>& earlier) override {
    if (!derived_) derived_.emplace(tensors().weights, tensors().constants);
    // Those derived since the last ask, where a source may be found; each was derivable then.
    while (derived_->size() < earlier.size())
      PT2ONNX_CHECK(derived_->add(earlier[derived_->size()]), ErrorCode::kInternal,
                    "derived weight '" + earlier[derived_->size()].name + "' is no longer derivable");
    return derived_->make(weight).has_value();
  }

 private:
  ArchiveTensorsBeside beside_;
  std::optional<ArchiveTensors> tensors_;
  std::optional<emit::DerivedTensors> derived_;  // the tensors of `earlier`, to find sources among them
};

}  // namespace pt2onnx::api
