// Element types on the ONNX side: the DType -> TensorProto.DataType map and the few torch type
// promotion facts the rules need.
#pragma once

#include <cstdint>

#include "ir/dtype.h"

namespace pt2onnx::translate {

// ONNX TensorProto.DataType number of a DType. Throws Error(kUnsupported) for types ONNX lacks
// (complex32). Float8 numbers are newer than the ONNX 1.12 headers, so they are plain ints.
int32_t onnx_dtype(ir::DType dtype);
// The lowest IR version that can hold the element type (float8 needs 9).
int64_t min_ir_version_for(ir::DType dtype);
// Refuses (kUnsupported) an element type that `opset`'s operators do not take (float8 before 19,
// float8_e8m0fnu before 24): ONNX would be written that its checker refuses.
void require_opset_for(ir::DType dtype, int opset);

// ONNX's 4-bit integer types (opset 21, IR version 10), which no torch dtype maps to: torch's
// 4-bit quantization keeps its values in int8/uint8, and the quantization rules store them so.
// Numbers, as the ONNX 1.12 headers predate them.
inline constexpr int32_t kOnnxUInt4 = 21;
inline constexpr int32_t kOnnxInt4 = 22;
inline constexpr int64_t kOnnx4BitIrVersion = 10;

bool is_floating(ir::DType dtype);  // float16/32/64, bfloat16, float8
bool is_integral(ir::DType dtype);  // signed and unsigned ints, not bool
bool is_complex(ir::DType dtype);

// torch.promote_types for two tensor dtypes: the higher category (bool < int < float < complex)
// wins; inside a category the wider type, with torch's special cases (uint8 + int8 -> int16,
// float16 + bfloat16 -> float32).
ir::DType promote_types(ir::DType a, ir::DType b);

}  // namespace pt2onnx::translate
