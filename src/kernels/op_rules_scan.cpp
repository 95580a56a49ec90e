// Codegen rules for loops along an axis, run where each output element is read: CumSum sums the
// element's prefix (quadratic in the axis' length, which suits the short axes of positions and
// masks that functions scan); ArgMax/ArgMin search the whole axis; TopK ranks every element.
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
    const std::string sum = fresh_temp(b);
    b.line(compute_type(dtype) + " " + sum + " = 0;");
    emit_loop(b, "0", "(" + idx[axis] + " + 1)", [&](Body& step, const std::string& t) {
      Idx at = idx;
      at[axis] = t;
      step.line(sum + " += " + g->load(step, src, at) + ";");
    });
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
    const std::string best = fresh_temp(b), where = fresh_temp(b);
    b.line(ctype + " " + best + " = " + g->load(b, src, at) + ";");
    b.line("long long " + where + " = 0;");
    emit_loop(b, "1", n, [&](Body& step, const std::string& t) {
      at[axis] = t;
      const std::string value = step.let(ctype, g->load(step, src, at));
      step.line("if (" + value + better + best + ") { " + best + " = " + value + "; " + where + " = " + t + "; }");
    });
    return where;
  };
  ctx.gen.define(ctx.out, std::move(v));
}

// Output j along the axis is the element of rank j: the count of elements ahead of it (larger, or
// smaller when largest=0, NaN the largest; on equal values the lower index first, as ONNX orders
// ties). Both outputs
// find it by comparing every pair along the axis, quadratic per element read, which suits the
// short axes of routers and small sorts.
void top_k(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  const size_t axis = ctx.norm_axis(ctx.attr_int("axis", -1), x.shape.size());
  const std::vector<SymExpr> k = ctx.known_ints(1, "K");
  if (k.size() != 1) ctx.unsupported("K that is not one integer");
  const bool largest = ctx.attr_int("largest", 1) != 0;
  std::vector<SymExpr> shape = x.shape;
  shape[axis] = k[0];
  for (int o = 0; o < ctx.node.output_size(); ++o) {
    if (ctx.node.output(o).empty()) continue;
    const bool values = o == 0;
    Value v;
    v.dtype = values ? x.dtype : static_cast<int>(onnx::TensorProto::INT64);
    v.shape = shape;
    v.load = [g = &ctx.gen, src = ctx.input(0), axis, largest, values, n = to_c(x.shape[axis]),
              ctype = compute_type(x.dtype)](Body& b, const Idx& idx) {
      const std::string found = fresh_temp(b);
      b.line((values ? ctype : std::string("long long")) + " " + found + " = 0;");
      emit_loop(b, "0", n, [&](Body& candidate, const std::string& i) {
        Idx at = idx;
        at[axis] = i;
        const std::string xi = candidate.let(ctype, g->load(candidate, src, at));
        const std::string rank = fresh_temp(candidate);
        candidate.line("long long " + rank + " = 0;");
        emit_loop(candidate, "0", n, [&](Body& other, const std::string& m) {
          at[axis] = m;
          const std::string xm = other.let(ctype, g->load(other, src, at));
          // NaN ranks as the largest value, as torch sorts it (x != x only for NaN).
          const std::string ahead = largest ? "(" + xm + " > " + xi + " || (" + xm + " != " + xm + " && " + xi + " == " + xi + "))"
                                            : "(" + xm + " < " + xi + " || (" + xm + " == " + xm + " && " + xi + " != " + xi + "))";
          const std::string same = "(" + xm + " == " + xi + " || (" + xm + " != " + xm + " && " + xi + " != " + xi + "))";
          other.line(rank + " += (" + ahead + " || (" + same + " && " + m + " < " + i + ")) ? 1 : 0;");
        });
        emit_if(candidate, rank + " == " + idx[axis], [&](Body& hit) { hit.line(found + " = " + (values ? xi : i) + ";"); });
      });
      return found;
    };
    ctx.gen.define(ctx.node.output(o), std::move(v));
  }
}

}  // namespace

void register_scan_op_rules(OpRuleTable& t) {
  t.add("TopK", top_k, false, /*multi_output=*/true);
  t.add("CumSum", cumsum);
  t.add("ArgMax", arg_extreme);
  t.add("ArgMin", arg_extreme);
}

}  // namespace pt2onnx::kernels::detail
