// Element types as the rules see them: the ONNX type facts of ir/dtype.h under the names the rules
// use, the opset and IR version an element type needs, and torch's type promotion.
#pragma once

#include <cstdint>

#include "ir/onnx_dtype.h"

namespace pt2onnx::translate {

// ONNX TensorProto.DataType number of a DType (ir::onnx_type); throws Error(kUnsupported) for
// types ONNX lacks (complex32).
inline int32_t onnx_dtype(ir::DType dtype) { return ir::onnx_type(dtype); }
// The lowest IR version that can hold the element type (float8 needs 9).
int64_t min_ir_version_for(ir::DType dtype);
// Refuses (kUnsupported) an element type that `opset`'s operators do not take (float8 before 19,
// float8_e8m0fnu before 24): ONNX would be written that its checker refuses.
void require_opset_for(ir::DType dtype, int opset);

using ir::is_complex;
using ir::is_floating;
using ir::is_integral;
using ir::kOnnx4BitIrVersion;
using ir::kOnnxInt4;
using ir::kOnnxUInt4;

// torch.promote_types for two tensor dtypes: the higher category (bool < int < float < complex)
// wins; inside a category the wider type, with torch's special cases (uint8 + int8 -> int16,
// float16 + bfloat16 -> float32).
ir::DType promote_types(ir::DType a, ir::DType b);

}  // namespace pt2onnx::translate
