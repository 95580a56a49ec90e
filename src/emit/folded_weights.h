// Weights that the clean-up passes derive from archive tensors: a Conv/Gemm weight scaled per
// output channel (clean/fold_batch_norm.cpp), and a weight with its dims permuted
// (clean/fold_weight_transposes.cpp). The scaled tensor is a Storage that computes its bytes
// from the archive's on each read; the permuted one is a strided view of the archive's storage,
// written block by block at copy speed (emit/permuted_copy.h), or not derived when it cannot be
// (the Transpose then stays a node); a 4-bit weight is packed two per byte (emit/packed_4bit.h). Emit streams both like any other weight,
// and neither is ever held whole in memory.
#pragma once

#include <map>
#include <string>

#include "archive/archive.h"
#include "model/onnx_model.h"
#include "clean/weight_access.h"

namespace pt2onnx::emit {

class FoldedWeights final : public clean::WeightAccess {
 public:
  // `model` must outlive this; add_scaled() appends its weight bindings.
  FoldedWeights(model::OnnxModel& model, std::map<std::string, archive::TensorData> weights,
                std::map<std::string, archive::TensorData> constants);

  std::optional<std::vector<float>> read_floats(const std::string& initializer) override;
  bool add_scaled(const std::string& source, const std::string& name, std::vector<double> factors,
                  int64_t inner) override;
  bool add_permuted(const std::string& source, const std::string& name, const std::vector<int64_t>& perm) override;
  bool add_packed_4bit(const std::string& source, const std::string& name, const Packing& how) override;

  // The archive's weights and the derived ones, and its constants, for write_model.
  const std::map<std::string, archive::TensorData>& weights() const { return weights_; }
  const std::map<std::string, archive::TensorData>& constants() const { return constants_; }

 private:
  const archive::TensorData* bound_tensor(const std::string& initializer) const;

  model::OnnxModel& model_;
  std::map<std::string, archive::TensorData> weights_;
  std::map<std::string, archive::TensorData> constants_;
};

}  // namespace pt2onnx::emit
