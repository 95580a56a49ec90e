// Small constant tensors the folder computes with: integers (int64/int32/bool) as int64_t,
// floats (float/double) as double. Anything else (or anything large) is not folded.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <onnx/onnx_pb.h>

namespace pt2onnx::clean {

// Larger tensors are left as they are: shape arithmetic is small, and a folded Range or Expand
// of a big static size would only make the file larger.
inline constexpr int64_t kMaxFoldElements = 4096;

struct ConstTensor {
  int32_t elem_type = 0;  // onnx::TensorProto_DataType
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;     // integer and bool types
  std::vector<double> floats;    // float and double

  bool is_integer() const;
  int64_t numel() const;
};

bool is_integer_type(int32_t elem_type);
bool is_float_type(int32_t elem_type);

// nullopt for element types we do not fold, external or missing data, or too many elements.
std::optional<ConstTensor> read_const(const onnx::TensorProto& tensor);
// The value of a Constant node (value, value_int(s), value_float(s)), or nullopt.
std::optional<ConstTensor> constant_node_value(const onnx::NodeProto& node);
onnx::TensorProto to_tensor_proto(const ConstTensor& value);

// The dims a Reshape to `shape` gives an input of static `dims` (0 copies the input's dim unless
// `allow_zero`, one -1 is inferred), or nullopt.
std::optional<std::vector<int64_t>> reshape_target(const std::vector<int64_t>& dims, const ConstTensor& shape,
                                                   bool allow_zero);

}  // namespace pt2onnx::clean
