// The code generator's shared helpers: compute types and conversions,
// index arithmetic over symbolic shapes, float literals, and Body's statement building.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "common/error.h"
#include "ir/onnx_dtype.h"
#include "kernels/codegen_internal.h"
#include "kernels/expr.h"

namespace pt2onnx::kernels {

using onnx::TensorProto;

namespace detail {

// ---- helpers ------------------------------------------------------------------------------------

bool is_float_dtype(int d) {
  return d == TensorProto::FLOAT || d == TensorProto::FLOAT16 || d == TensorProto::BFLOAT16 || d == TensorProto::DOUBLE;
}
bool is_int_dtype(int d) { return d == TensorProto::INT64 || d == TensorProto::INT32; }

std::string compute_type(int dtype) {
  if (is_float_dtype(dtype)) return "float";
  if (is_int_dtype(dtype)) return "long long";
  if (dtype == TensorProto::BOOL) return "bool";
  fail(ErrorCode::kUnsupported, "--compile: dtype " + ir::onnx_type_name(dtype) + " is not supported");
}

std::string convert(const std::string& v, int from, int to) {
  const std::string f = compute_type(from), t = compute_type(to);
  if (f == t) return v;
  if (t == "bool") return "(" + v + " != 0)";
  return "((" + t + ")(" + v + "))";
}

SymExpr product(const std::vector<SymExpr>& dims, size_t begin, size_t end) {
  end = std::min(end, dims.size());
  std::vector<SymExpr> factors(dims.begin() + static_cast<std::ptrdiff_t>(std::min(begin, end)),
                               dims.begin() + static_cast<std::ptrdiff_t>(end));
  if (factors.empty()) return ir::sym_int(1);
  return ir::sym_apply(ir::SymOp::kMul, factors);
}

bool same_dim(const SymExpr& a, const SymExpr& b) { return ir::to_string(a) == ir::to_string(b); }
std::optional<int64_t> const_value(const SymExpr& e) {
  if (e->op == ir::SymOp::kInt) return e->value;
  return std::nullopt;
}
bool is_const(const SymExpr& e, int64_t v) { return const_value(e) == v; }

std::string linear_index(const Idx& idx, const std::vector<SymExpr>& shape) {
  std::string out;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (is_const(shape[i], 1)) continue;
    const SymExpr stride = product(shape, i + 1);
    const std::string term = is_const(stride, 1) ? idx[i] : idx[i] + "*" + to_c(stride);
    out += (out.empty() ? "" : " + ") + term;
  }
  return out.empty() ? "0LL" : "(" + out + ")";
}

Idx delinearize(Body& b, const std::string& linear, const std::vector<SymExpr>& shape) {
  Idx idx(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (is_const(shape[i], 1)) {
      idx[i] = "0LL";
      continue;
    }
    const SymExpr stride = product(shape, i + 1);
    std::string e = is_const(stride, 1) ? linear : "(" + linear + " / " + to_c(stride) + ")";
    if (i > 0) e += " % " + to_c(shape[i]);
    idx[i] = b.let("long long", e);
  }
  return idx;
}

Idx broadcast_index(const Idx& out_idx, const std::vector<SymExpr>& out_shape, const std::vector<SymExpr>& in_shape) {
  Idx idx(in_shape.size());
  const size_t offset = out_shape.size() - in_shape.size();
  for (size_t j = 0; j < in_shape.size(); ++j)
    idx[j] = (is_const(in_shape[j], 1) && !is_const(out_shape[j + offset], 1)) ? "0LL" : out_idx[j + offset];
  return idx;
}

std::string float_literal(double v) {
  const float f = static_cast<float>(v);
  if (std::isnan(f)) return "P2_NAN";
  if (std::isinf(f)) return f > 0 ? "P2_INF" : "(-P2_INF)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%af", static_cast<double>(f));
  return std::string("(") + buf + ")";
}

std::string Body::let(const std::string& ctype, const std::string& expr) {
  const std::string name = "p2_t" + std::to_string(scope->next_tmp++);
  line("const " + ctype + " " + name + " = " + expr + ";");
  return name;
}

Body Body::child(const std::string& more_indent) const {
  Body c;
  c.scope = scope;
  c.indent = indent + more_indent;
  c.memo = memo;
  return c;
}

}  // namespace detail

}  // namespace pt2onnx::kernels
