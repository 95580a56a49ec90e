// The element type table shared by the initializer checks and messages, read from ir/dtype_table.h.
#include "emit/onnx_dtype.h"

namespace pt2onnx::emit {

namespace {

// Complex types are left out on purpose: ONNX declares COMPLEX64/128 but runtimes barely
// support them, and complex32 has no ONNX type at all.
const ir::DTypeFacts* mapped(const ir::DTypeFacts* f) {
  return f && f->onnx_type != 0 && f->kind != ir::DTypeKind::kComplex ? f : nullptr;
}

struct OnnxOnlyName {
  int32_t onnx;
  const char* name;
};

// Names of the ONNX types no torch type maps to, for messages about odd declarations.
constexpr OnnxOnlyName kOnnxOnlyNames[] = {
    {0, "UNDEFINED"}, {8, "STRING"}, {14, "COMPLEX64"}, {15, "COMPLEX128"},
    {21, "UINT4"},    {22, "INT4"},  {23, "FLOAT4E2M1"},
};

}  // namespace

std::optional<int32_t> onnx_data_type(ir::DType dtype) {
  if (const ir::DTypeFacts* f = mapped(ir::dtype_facts(dtype))) return f->onnx_type;
  return std::nullopt;
}

std::string onnx_data_type_name(int32_t data_type) {
  if (const ir::DTypeFacts* f = mapped(ir::dtype_facts_for_onnx(data_type))) return std::string(f->onnx_name);
  for (const auto& only : kOnnxOnlyNames)
    if (only.onnx == data_type) return only.name;
  return "data_type " + std::to_string(data_type);
}

}  // namespace pt2onnx::emit
