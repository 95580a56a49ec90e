// The opset and IR version of element types (from ir/dtype_table.h) and torch's promotion lattice.
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
}  // namespace

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
