// The archive tensors that the weights clean-up derives (model/derived_weight.h) are written
// from: a weight scaled per channel (clean/fold_batch_norm.cpp, clean/fold_weight_norms.cpp) is a Storage
// that computes its bytes from the archive's (emit/scaled_storage.h); a weight with its dims permuted
// (clean/fold_weight_transposes.cpp) is a strided view of the archive's storage, written block by
// block at copy speed (emit/permuted_copy.h), or not derived when it cannot be (the Transpose
// then stays a node); a 4-bit weight is packed two per byte (emit/packed_4bit.h). Emit streams
// them like any other weight, and none is ever held whole in memory. Making one reads no bytes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "model/derived_weight.h"

namespace pt2onnx::emit {

// The float32 elements of a small archive tensor (row-major; BatchNorm statistics and biases),
// or nullopt when it is not float32 or too large to read whole.
std::optional<std::vector<float>> read_small_floats(const archive::TensorData& tensor);
// The same for int64 tensors (index buffers).
std::optional<std::vector<int64_t>> read_small_int64s(const archive::TensorData& tensor);
// The sums of squares of a float32 tensor's elements by channel, element i counting to channel
// (i / inner) % channels, in double precision (the norms of a weight-normalised convolution,
// clean/fold_weight_norms.cpp). Read tile by tile through the storage (which checks its CRC), so
// memory stays bounded whatever the tensor's size; nullopt when it is not float32 and contiguous.
std::optional<std::vector<double>> channel_sums_of_squares(const archive::TensorData& tensor, int64_t channels,
                                                           int64_t inner);

class DerivedTensors {
 public:
  // The archive's maps of the model; both must outlive this.
  DerivedTensors(const std::map<std::string, archive::TensorData>& weights,
                 const std::map<std::string, archive::TensorData>& constants)
      : weights_(weights), constants_(constants) {}

  // The tensor `weight` is written from, made from its source (an archive tensor, or a weight
  // added here before), or nullopt when it cannot be made so. Adds nothing.
  std::optional<archive::TensorData> make(const model::DerivedWeight& weight) const;
  // Adds `weight`'s tensor, bound under a key no FQN can take; false (nothing added) when make()
  // cannot make it.
  bool add(const model::DerivedWeight& weight);

  // Those added, in order: bindings of their initializers to keys of tensors().
  const std::vector<model::WeightBinding>& bindings() const { return bindings_; }
  const std::map<std::string, archive::TensorData>& tensors() const { return tensors_; }
  size_t size() const { return bindings_.size(); }

 private:
  const archive::TensorData* source_of(const model::WeightBinding& source) const;

  const std::map<std::string, archive::TensorData>& weights_;
  const std::map<std::string, archive::TensorData>& constants_;
  std::vector<model::WeightBinding> bindings_;
  std::map<std::string, archive::TensorData> tensors_;
  std::map<std::string, std::string> key_of_;  // initializer -> its key in tensors_
};

}  // namespace pt2onnx::emit
