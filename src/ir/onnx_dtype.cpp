// The ONNX side of the element type table and the kinds of types (see onnx_dtype.h).
#include "ir/onnx_dtype.h"

#include "common/error.h"

namespace pt2onnx::ir {

namespace {

DTypeKind kind_of(DType t, DTypeKind fallback) {
  const DTypeFacts* f = dtype_facts(t);
  return f ? f->kind : fallback;
}

struct OnnxOnlyName {
  int32_t onnx;
  const char* name;
};

// Names of the ONNX types no torch type maps to, for messages about odd declarations.
constexpr OnnxOnlyName kOnnxOnlyNames[] = {
    {0, "UNDEFINED"}, {8, "STRING"}, {kOnnxUInt4, "UINT4"}, {kOnnxInt4, "INT4"}, {23, "FLOAT4E2M1"},
};

}  // namespace

bool is_floating(DType t) { return kind_of(t, DTypeKind::kBool) == DTypeKind::kFloat; }

bool is_integral(DType t) {
  const DTypeKind k = kind_of(t, DTypeKind::kBool);
  return k == DTypeKind::kSigned || k == DTypeKind::kUnsigned;
}

bool is_complex(DType t) { return kind_of(t, DTypeKind::kBool) == DTypeKind::kComplex; }

int32_t onnx_type(DType t) {
  if (const std::optional<int32_t> onnx = onnx_type_if(t)) return *onnx;
  fail(ErrorCode::kUnsupported, "element type " + std::string(dtype_name(t)) + " has no ONNX equivalent");
}

std::optional<int32_t> onnx_type_if(DType t) {
  const DTypeFacts* f = dtype_facts(t);
  if (f && f->onnx_type != 0) return f->onnx_type;
  return std::nullopt;
}

std::string onnx_type_name(int32_t onnx) {
  if (const DTypeFacts* f = dtype_facts_for_onnx(onnx)) return std::string(f->onnx_name);
  for (const auto& only : kOnnxOnlyNames)
    if (only.onnx == onnx) return only.name;
  return "data_type " + std::to_string(onnx);
}

int64_t onnx_type_size(int32_t onnx) {
  const DTypeFacts* f = dtype_facts_for_onnx(onnx);
  return f ? f->size : 0;
}

}  // namespace pt2onnx::ir
