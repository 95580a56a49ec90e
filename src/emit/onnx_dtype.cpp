// The element type table shared by the initializer checks and messages.
#include "emit/onnx_dtype.h"

namespace pt2onnx::emit {

namespace {

struct DTypePair {
  ir::DType torch;
  int32_t onnx;
  const char* onnx_name;
};

// Complex types are left out on purpose: ONNX declares COMPLEX64/128 but runtimes barely
// support them, and complex32 has no ONNX type at all.
constexpr DTypePair kDTypePairs[] = {
    {ir::DType::kFloat32, 1, "FLOAT"},
    {ir::DType::kUInt8, 2, "UINT8"},
    {ir::DType::kInt8, 3, "INT8"},
    {ir::DType::kUInt16, 4, "UINT16"},
    {ir::DType::kInt16, 5, "INT16"},
    {ir::DType::kInt32, 6, "INT32"},
    {ir::DType::kInt64, 7, "INT64"},
    {ir::DType::kBool, 9, "BOOL"},
    {ir::DType::kFloat16, 10, "FLOAT16"},
    {ir::DType::kFloat64, 11, "DOUBLE"},
    {ir::DType::kUInt32, 12, "UINT32"},
    {ir::DType::kUInt64, 13, "UINT64"},
    {ir::DType::kBFloat16, 16, "BFLOAT16"},
    {ir::DType::kFloat8E4M3FN, 17, "FLOAT8E4M3FN"},      // ONNX IR 9
    {ir::DType::kFloat8E4M3FNUZ, 18, "FLOAT8E4M3FNUZ"},  // ONNX IR 9
    {ir::DType::kFloat8E5M2, 19, "FLOAT8E5M2"},          // ONNX IR 9
    {ir::DType::kFloat8E5M2FNUZ, 20, "FLOAT8E5M2FNUZ"},  // ONNX IR 9
    {ir::DType::kFloat8E8M0FNU, 24, "FLOAT8E8M0"},       // ONNX IR 11
};

// Names of the ONNX types no torch type maps to, for messages about odd declarations.
constexpr DTypePair kOnnxOnlyNames[] = {
    {ir::DType::kUnknown, 0, "UNDEFINED"},   {ir::DType::kUnknown, 8, "STRING"},
    {ir::DType::kUnknown, 14, "COMPLEX64"},  {ir::DType::kUnknown, 15, "COMPLEX128"},
    {ir::DType::kUnknown, 21, "UINT4"},      {ir::DType::kUnknown, 22, "INT4"},
    {ir::DType::kUnknown, 23, "FLOAT4E2M1"},
};

}  // namespace

std::optional<int32_t> onnx_data_type(ir::DType dtype) {
  for (const auto& pair : kDTypePairs)
    if (pair.torch == dtype) return pair.onnx;
  return std::nullopt;
}

std::string onnx_data_type_name(int32_t data_type) {
  for (const auto& pair : kDTypePairs)
    if (pair.onnx == data_type) return pair.onnx_name;
  for (const auto& pair : kOnnxOnlyNames)
    if (pair.onnx == data_type) return pair.onnx_name;
  return "data_type " + std::to_string(data_type);
}

}  // namespace pt2onnx::emit
