// ir::DType -> ONNX TensorProto.data_type. The numbers are ONNX's, written as integers because
// libonnx 1.12's generated enum stops at BFLOAT16 while the field itself is a plain int32.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/dtype.h"

namespace pt2onnx::emit {

// The ONNX data type of a torch element type; nullopt where ONNX has none we can write
// (complex types, kUnknown).
std::optional<int32_t> onnx_data_type(ir::DType dtype);

// ONNX's name for a data type number ("FLOAT", "FLOAT8E4M3FN"), or "data_type N" when unknown.
std::string onnx_data_type_name(int32_t data_type);

}  // namespace pt2onnx::emit
