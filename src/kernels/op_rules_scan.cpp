// Codegen rules for scans: CumSum, each output element summed by a loop over its prefix along the
// axis (quadratic in the axis' length, which suits the short axes of positions and masks that
// functions scan).
#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

namespace {

void cumsum(OpContext& ctx) {
  // torch's cumsum is inclusive and forward; the other forms have no torch reference to check a
  // template against.
  if (ctx.attr_int("exclusive", 0) != 0) ctx.unsupported("an exclusive sum");
  if (ctx.attr_int("reverse", 0) != 0) ctx.unsupported("a reversed sum");
  const Value& x = ctx.value(ctx.input(0));
  const std::vector<int64_t> axis_given = ctx.const_ints(1, "axis");
  if (axis_given.size() != 1) ctx.unsupported("an axis that is not one integer");
  const size_t axis = ctx.norm_axis(axis_given[0], x.shape.size());
  const int dtype = x.dtype;
  Value v;
  v.dtype = dtype;
  v.shape = x.shape;
  v.load = [g = &ctx.gen, src = ctx.input(0), axis, dtype](Body& b, const Idx& idx) {
    const std::string sum = "p2_t" + std::to_string(b.scope->next_tmp++);
    const std::string t = "p2_t" + std::to_string(b.scope->next_tmp++);
    b.line(compute_type(dtype) + " " + sum + " = 0;");
    b.line("for (long long " + t + " = 0; " + t + " <= " + idx[axis] + "; ++" + t + ") {");
    Body inner = b.child();
    Idx at = idx;
    at[axis] = t;
    inner.line(sum + " += " + g->load(inner, src, at) + ";");
    b.code += inner.code;
    b.line("}");
    return sum;
  };
  ctx.gen.define(ctx.out, std::move(v));
}

}  // namespace

void register_scan_op_rules(OpRuleTable& t) { t.add("CumSum", cumsum); }

}  // namespace pt2onnx::kernels::detail
