// The ONNX side of the element type table (dtype_table.h) and the kinds of types, read from the
// table: the one place that maps a DType to an ONNX TensorProto.DataType and back.
// DataType numbers are plain ints: libonnx 1.12's enum stops at BFLOAT16 while the field is an int32.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/dtype.h"

namespace pt2onnx::ir {

bool is_floating(DType t);  // float16/32/64, bfloat16, float8
bool is_integral(DType t);  // signed and unsigned ints, not bool
bool is_complex(DType t);

// ONNX TensorProto.DataType of a DType; throws Error(kUnsupported) for types ONNX lacks (complex32).
int32_t onnx_type(DType t);
// The same, or nullopt where ONNX has none (complex32, kUnknown).
std::optional<int32_t> onnx_type_if(DType t);
// ONNX's name for a data type number ("FLOAT", "FLOAT8E4M3FN", "INT4"), or "data_type N" when unknown.
std::string onnx_type_name(int32_t onnx);
// Bytes per element of an ONNX data type that a torch dtype maps to; 0 for others.
int64_t onnx_type_size(int32_t onnx);

// ONNX's 4-bit integer types (opset 21, IR version 10), which no torch dtype maps to: torch's
// 4-bit quantization keeps its values in int8/uint8, and the quantization rules store them so.
inline constexpr int32_t kOnnxUInt4 = 21;
inline constexpr int32_t kOnnxInt4 = 22;
inline constexpr int64_t kOnnx4BitIrVersion = 10;

}  // namespace pt2onnx::ir
