// DType <-> ONNX element types (from ir/dtype_table.h) and torch's promotion lattice.
#include "translate/onnx_types.h"

#include <string>

#include "common/error.h"

namespace pt2onnx::translate {

namespace {
int category(ir::DType t) {
  if (t == ir::DType::kBool) return 0;
  if (is_integral(t)) return 1;
  if (is_floating(t)) return 2;
  return 3;
}

ir::DTypeKind kind_of(ir::DType t, ir::DTypeKind fallback) {
  const ir::DTypeFacts* f = ir::dtype_facts(t);
  return f ? f->kind : fallback;
}
}  // namespace

int32_t onnx_dtype(ir::DType dtype) {
  const ir::DTypeFacts* f = ir::dtype_facts(dtype);
  if (f && f->onnx_type != 0) return f->onnx_type;
  fail(ErrorCode::kUnsupported, "element type " + std::string(ir::dtype_name(dtype)) + " has no ONNX equivalent");
}

int64_t min_ir_version_for(ir::DType dtype) {
  const ir::DTypeFacts* f = ir::dtype_facts(dtype);
  return f ? f->min_ir_version : 3;
}

void require_opset_for(ir::DType dtype, int opset) {
  const ir::DTypeFacts* f = ir::dtype_facts(dtype);
  if (f && opset < f->min_opset)
    fail(ErrorCode::kUnsupported, "element type " + std::string(f->torch_name) + " needs --opset " +
                                      std::to_string(f->min_opset) + " or higher (opset " + std::to_string(opset) +
                                      "'s operators do not take it)");
}

bool is_floating(ir::DType dtype) { return kind_of(dtype, ir::DTypeKind::kBool) == ir::DTypeKind::kFloat; }

bool is_integral(ir::DType dtype) {
  const ir::DTypeKind k = kind_of(dtype, ir::DTypeKind::kBool);
  return k == ir::DTypeKind::kSigned || k == ir::DTypeKind::kUnsigned;
}

bool is_complex(ir::DType dtype) { return kind_of(dtype, ir::DTypeKind::kBool) == ir::DTypeKind::kComplex; }

ir::DType promote_types(ir::DType a, ir::DType b) {
  using ir::DType;
  if (a == b || b == DType::kUnknown) return a;
  if (a == DType::kUnknown) return b;
  const int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1) {
    const bool mixed_sign_bytes = (a == DType::kUInt8 && b == DType::kInt8) || (a == DType::kInt8 && b == DType::kUInt8);
    if (mixed_sign_bytes) return DType::kInt16;
  }
  if (ca == 2) {
    const bool half_pair = (a == DType::kFloat16 && b == DType::kBFloat16) || (a == DType::kBFloat16 && b == DType::kFloat16);
    if (half_pair) return DType::kFloat32;
  }
  return ir::dtype_size(a) >= ir::dtype_size(b) ? a : b;
}

}  // namespace pt2onnx::translate
