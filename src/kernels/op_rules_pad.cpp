// Codegen rule for Pad: each output element reads the input at its index less the leading pad,
// mapped back into range by the mode (reflect mirrors about the edges without repeating them,
// edge repeats them); constant padding gives the value outside the input and crops where a pad
// is negative.
#include <string>
#include <vector>

#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

namespace {

// The constant mode's value as a C literal of the compute type (0 when the input is absent).
std::string pad_value(OpContext& ctx, int dtype) {
  const std::string name = ctx.input(2);
  if (is_float_dtype(dtype)) {
    if (name.empty()) return float_literal(0.0);
    const std::optional<double> v = ctx.known_float(name);
    if (!v) ctx.unsupported("a pad value that is not a known constant");
    return float_literal(*v);
  }
  if (!is_int_dtype(dtype)) ctx.unsupported("padding of this element type");
  if (name.empty()) return "0LL";
  const std::vector<int64_t> v = ctx.const_ints(2, "the pad value");
  if (v.size() != 1) ctx.unsupported("a pad value that is not a scalar");
  return "(" + std::to_string(v[0]) + "LL)";
}

void pad(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  const size_t r = x.shape.size();
  const std::string mode = ctx.attr_string("mode", "constant");
  // wrap exists from opset 19; the kernel tests convert at 18, so no reference checks it.
  if (mode != "constant" && mode != "reflect" && mode != "edge") ctx.unsupported("mode " + mode);
  const std::vector<int64_t> pads = ctx.const_ints(1, "pads");
  std::vector<int64_t> axes;
  if (!ctx.input(3).empty()) axes = ctx.const_ints(3, "axes");
  else for (size_t i = 0; i < r; ++i) axes.push_back(static_cast<int64_t>(i));
  if (pads.size() != 2 * axes.size()) ctx.unsupported("pads of the wrong length");
  std::vector<int64_t> begin(r, 0), end(r, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const size_t a = ctx.norm_axis(axes[k], r);
    begin[a] = pads[k];
    end[a] = pads[k + axes.size()];
    if (mode != "constant" && (begin[a] < 0 || end[a] < 0)) ctx.unsupported("negative pads in mode " + mode);
  }
  Value v;
  v.dtype = x.dtype;
  v.shape = x.shape;
  std::vector<std::string> dims_c;
  for (size_t a = 0; a < r; ++a) {
    if (begin[a] != 0 || end[a] != 0) v.shape[a] = ir::sym_apply(ir::SymOp::kAdd, {x.shape[a], ir::sym_int(begin[a] + end[a])});
    dims_c.push_back(to_c(x.shape[a]));
  }
  const std::string value = mode == "constant" ? pad_value(ctx, x.dtype) : std::string();
  v.load = [g = &ctx.gen, src = ctx.input(0), begin, end, dims_c, mode, value, dtype = x.dtype](Body& b, const Idx& idx) {
    Idx at = idx;
    std::string inside;  // constant mode: where the index falls in the input
    for (size_t a = 0; a < idx.size(); ++a) {
      if (begin[a] == 0 && end[a] == 0) continue;
      const std::string i = begin[a] == 0 ? idx[a] : b.let("long long", "(" + idx[a] + " - " + std::to_string(begin[a]) + "LL)");
      const std::string& n = dims_c[a];
      if (mode == "constant") {
        inside += (inside.empty() ? "" : " && ") + ("(" + i + " >= 0 && " + i + " < " + n + ")");
        at[a] = i;
      } else if (mode == "reflect") {
        at[a] = b.let("long long", "(" + i + " < 0 ? -" + i + " : (" + i + " >= " + n + " ? 2 * (" + n + " - 1) - " + i + " : " + i + "))");
      } else {
        at[a] = b.let("long long", "(" + i + " < 0 ? 0LL : (" + i + " >= " + n + " ? " + n + " - 1 : " + i + "))");
      }
    }
    return inside.empty() ? g->load(b, src, at) : guarded_load(*g, b, src, at, inside, value, dtype);
  };
  ctx.gen.define(ctx.out, std::move(v));
}

}  // namespace

void register_pad_op_rules(OpRuleTable& t) { t.add("Pad", pad); }

}  // namespace pt2onnx::kernels::detail
