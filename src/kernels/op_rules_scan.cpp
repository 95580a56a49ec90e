// Codegen rules for loops along an axis, run where each output element is read: CumSum sums the
// element's prefix (quadratic in the axis' length, which suits the short axes of positions and
// masks that functions scan); ArgMax/ArgMin search the whole axis.
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

// The first (or with select_last_index the last) position of the largest or smallest value, as
// torch.argmax/argmin give the first.
void arg_extreme(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  const size_t axis = ctx.norm_axis(ctx.attr_int("axis", 0), x.shape.size());
  const bool keepdims = ctx.attr_int("keepdims", 1) != 0;
  const std::string better = (ctx.op() == "ArgMax" ? " >" : " <") + std::string(ctx.attr_int("select_last_index", 0) ? "= " : " ");
  Value v;
  v.dtype = onnx::TensorProto::INT64;
  v.shape = x.shape;
  if (keepdims) v.shape[axis] = ir::sym_int(1);
  else v.shape.erase(v.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  v.load = [g = &ctx.gen, src = ctx.input(0), axis, keepdims, better, n = to_c(x.shape[axis]),
            ctype = compute_type(x.dtype)](Body& b, const Idx& idx) {
    Idx at = idx;
    if (keepdims) at[axis] = "(0LL)";
    else at.insert(at.begin() + static_cast<std::ptrdiff_t>(axis), "(0LL)");
    const std::string best = "p2_t" + std::to_string(b.scope->next_tmp++);
    const std::string where = "p2_t" + std::to_string(b.scope->next_tmp++);
    const std::string t = "p2_t" + std::to_string(b.scope->next_tmp++);
    b.line(ctype + " " + best + " = " + g->load(b, src, at) + ";");
    b.line("long long " + where + " = 0;");
    b.line("for (long long " + t + " = 1; " + t + " < " + n + "; ++" + t + ") {");
    Body inner = b.child();
    at[axis] = t;
    const std::string value = inner.let(ctype, g->load(inner, src, at));
    inner.line("if (" + value + better + best + ") { " + best + " = " + value + "; " + where + " = " + t + "; }");
    b.code += inner.code;
    b.line("}");
    return where;
  };
  ctx.gen.define(ctx.out, std::move(v));
}

}  // namespace

void register_scan_op_rules(OpRuleTable& t) {
  t.add("CumSum", cumsum);
  t.add("ArgMax", arg_extreme);
  t.add("ArgMin", arg_extreme);
}

}  // namespace pt2onnx::kernels::detail
