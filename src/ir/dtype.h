// Element types, numbered as the export schema's ScalarType (not c10::ScalarType).
#pragma once

#include <cstdint>
#include <string_view>

namespace pt2onnx::ir {

enum class DType : int {
  kUnknown = 0,
  kUInt8 = 1,
  kInt8 = 2,
  kInt16 = 3,
  kInt32 = 4,
  kInt64 = 5,
  kFloat16 = 6,
  kFloat32 = 7,
  kFloat64 = 8,
  kComplex32 = 9,
  kComplex64 = 10,
  kComplex128 = 11,
  kBool = 12,
  kBFloat16 = 13,
  kUInt16 = 28,
  kFloat8E4M3FN = 29,
  kFloat8E5M2 = 30,
  kFloat8E4M3FNUZ = 31,
  kFloat8E5M2FNUZ = 32,
  kFloat8E8M0FNU = 33,
  kUInt32 = 34,
  kUInt64 = 35,
};

// Bytes per element; 0 for kUnknown.
int64_t dtype_size(DType t);
// Short torch-style name ("float32"); "unknown" for values outside the table.
std::string_view dtype_name(DType t);
// Maps a schema integer to a DType; returns false for numbers the schema does not define.
bool dtype_from_schema(int64_t value, DType& out);

}  // namespace pt2onnx::ir
