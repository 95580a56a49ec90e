// Element types (declared in dtype_table.h), numbered as the export schema's ScalarType.
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/dtype_table.h"  // the enum and every fact about each type

namespace pt2onnx::ir {

// Bytes per element; 0 for kUnknown.
int64_t dtype_size(DType t);
// Short torch-style name ("float32"); "unknown" for values outside the table.
std::string_view dtype_name(DType t);
// Maps a schema integer to a DType; returns false for numbers the schema does not define.
bool dtype_from_schema(int64_t value, DType& out);

}  // namespace pt2onnx::ir
