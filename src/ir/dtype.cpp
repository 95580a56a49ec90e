// Tables for DType: sizes and names.
#include "ir/dtype.h"

namespace pt2onnx::ir {

namespace {
struct DTypeInfo {
  DType type;
  int64_t size;
  std::string_view name;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::kUInt8, 1, "uint8"},          {DType::kInt8, 1, "int8"},
    {DType::kInt16, 2, "int16"},          {DType::kInt32, 4, "int32"},
    {DType::kInt64, 8, "int64"},          {DType::kFloat16, 2, "float16"},
    {DType::kFloat32, 4, "float32"},      {DType::kFloat64, 8, "float64"},
    {DType::kComplex32, 4, "complex32"},  {DType::kComplex64, 8, "complex64"},
    {DType::kComplex128, 16, "complex128"}, {DType::kBool, 1, "bool"},
    {DType::kBFloat16, 2, "bfloat16"},    {DType::kUInt16, 2, "uint16"},
    {DType::kFloat8E4M3FN, 1, "float8_e4m3fn"}, {DType::kFloat8E5M2, 1, "float8_e5m2"},
    {DType::kFloat8E4M3FNUZ, 1, "float8_e4m3fnuz"}, {DType::kFloat8E5M2FNUZ, 1, "float8_e5m2fnuz"},
    {DType::kFloat8E8M0FNU, 1, "float8_e8m0fnu"}, {DType::kUInt32, 4, "uint32"},
    {DType::kUInt64, 8, "uint64"},
};
const DTypeInfo* find(DType t) {
  for (const auto& info : kDTypes)
    if (info.type == t) return &info;
  return nullptr;
}
}  // namespace

int64_t dtype_size(DType t) {
  const DTypeInfo* info = find(t);
  return info ? info->size : 0;
}

std::string_view dtype_name(DType t) {
  const DTypeInfo* info = find(t);
  return info ? info->name : std::string_view("unknown");
}

bool dtype_from_schema(int64_t value, DType& out) {
  for (const auto& info : kDTypes) {
    if (static_cast<int64_t>(info.type) == value) {
      out = info.type;
      return true;
    }
  }
  return false;
}

}  // namespace pt2onnx::ir
