// Small TensorProtos with data, for Constant nodes: scalars of any element type and int64 lists.
#pragma once

#include <cstdint>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/dtype.h"

namespace pt2onnx::translate {

// A tensor of `dims` with every element `v` converted to `dtype` (bool: v != 0; ints: truncated;
// float16/bfloat16: rounded to nearest even). Empty dims = a 0-D scalar.
onnx::TensorProto filled_tensor(double v, ir::DType dtype, const std::vector<int64_t>& dims = {});
// A 1-D int64 tensor (0-D when `scalar` is true and v has one element).
onnx::TensorProto int64_tensor(const std::vector<int64_t>& v, bool scalar = false);

// IEEE half and bfloat16 bit patterns of a float, rounded to nearest even.
uint16_t float_to_half_bits(float f);
uint16_t float_to_bfloat16_bits(float f);

}  // namespace pt2onnx::translate
