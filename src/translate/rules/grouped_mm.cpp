// _grouped_mm, the grouped matmul of mixture-of-experts layers: groups of rows (2-D x 3-D), of
// columns (3-D x 2-D) or of the shared dim (2-D x 2-D) are given by `offs`, the cumulative ends of
// the groups; 3-D x 3-D is a batched matmul. ONNX has no grouped matmul, so every group's product
// is computed for every row (or column) and each row picks its group's: G times the work of the
// grouped kernel, exact. Rows or columns past the last offset are zero (torch leaves them undefined).
#include <cstdint>
#include <string>

#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// The group of each of `n` positions (a 0-D int64 count): how many group ends lie at or before it,
// as int64 [n]; and whether it lies before the last end, as bool [n].
std::pair<std::string, std::string> group_of(EmitContext& ctx, const std::string& offs, const std::string& n) {
  const std::string ends = ctx.cast(offs, DType::kInt64);
  const std::string pos = ctx.emit("Range", {ctx.const_i64(0), n, ctx.const_i64(1)});
  const std::string passed = ctx.emit("LessOrEqual", {ctx.unsqueeze(ends, {0}), ctx.unsqueeze(pos, {1})});  // [n, G]
  const std::string group = ctx.reduce("ReduceSum", ctx.cast(passed, DType::kInt64), std::vector<int64_t>{1}, false);
  const std::string last = ctx.emit("Gather", {ends, ctx.const_i64(-1)});
  return {group, ctx.emit("Less", {pos, last})};
}

// _grouped_mm(Tensor self, Tensor mat2, Tensor? offs=None, Tensor? bias=None, ScalarType? out_dtype=None) -> Tensor
RuleResult aten_grouped_mm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!args.has("bias"), ErrorCode::kUnsupported, "_grouped_mm with bias");
  const int64_t ra = args.rank_of("self"), rb = args.rank_of("mat2");
  const std::string a = args.tensor("self"), b = args.tensor("mat2");
  const DType type = args.dtype_of("self");
  const DType out_type = args.dtype("out_dtype").value_or(type);
  std::string out;
  if (ra == 3 && rb == 3) {
    out = ctx.emit("MatMul", {a, b});
  } else {
    PT2ONNX_CHECK(args.has("offs"), ErrorCode::kUnsupported,
                  "_grouped_mm of ranks " + std::to_string(ra) + " and " + std::to_string(rb) + " without offs");
    const std::string offs = args.tensor("offs");
    const std::string zero = ctx.const_scalar(0, type);
    if (ra == 2 && rb == 3) {  // rows of self in groups; out [T, N]
      const auto [group, inside] = group_of(ctx, offs, ctx.dim_of(a, 0));
      const std::string all = ctx.transpose(ctx.emit("MatMul", {a, b}), {1, 0, 2});  // [T, G, N]
      const std::string last = ctx.emit("Sub", {ctx.dim_of(b, 0), ctx.const_i64(1)});
      const std::string index = ctx.unsqueeze(ctx.emit("Min", {group, last}), {1, 2});
      const std::string shape = ctx.concat({ctx.shape_slice(a, 0, 1), ctx.const_i64s({1}), ctx.shape_slice(b, 2, 3)}, 0);
      const std::string picked = ctx.squeeze(ctx.emit("GatherElements", {all, ctx.emit("Expand", {index, shape})},
                                                      {Attr("axis", int64_t{1})}), {1});
      out = ctx.emit("Where", {ctx.unsqueeze(inside, {1}), picked, zero});
    } else if (ra == 3 && rb == 2) {  // columns of mat2 in groups; out [M, N]
      const auto [group, inside] = group_of(ctx, offs, ctx.dim_of(b, 1));
      const std::string all = ctx.emit("MatMul", {a, b});  // [G, M, N]
      const std::string last = ctx.emit("Sub", {ctx.dim_of(a, 0), ctx.const_i64(1)});
      const std::string index = ctx.unsqueeze(ctx.emit("Min", {group, last}), {0, 1});
      const std::string shape = ctx.concat({ctx.const_i64s({1}), ctx.shape_slice(a, 1, 2), ctx.shape_slice(b, 1, 2)}, 0);
      const std::string picked = ctx.squeeze(ctx.emit("GatherElements", {all, ctx.emit("Expand", {index, shape})},
                                                      {Attr("axis", int64_t{0})}), {0});
      out = ctx.emit("Where", {ctx.unsqueeze(inside, {0}), picked, zero});
    } else {
      PT2ONNX_CHECK(ra == 2 && rb == 2, ErrorCode::kUnsupported,
                    "_grouped_mm of ranks " + std::to_string(ra) + " and " + std::to_string(rb));
      // the shared dim K in groups; out [G, M, N]: self masked to each group's columns, times mat2
      const std::string ends = ctx.cast(offs, DType::kInt64);
      const std::string starts = ctx.concat({ctx.const_i64s({0}), ctx.emit("Slice", {ends, ctx.const_i64s({0}),
                                             ctx.const_i64s({-1}), ctx.const_i64s({0})})}, 0);
      const std::string k = ctx.unsqueeze(ctx.emit("Range", {ctx.const_i64(0), ctx.dim_of(a, 1), ctx.const_i64(1)}), {0});
      const std::string in_group = ctx.emit("And", {ctx.emit("GreaterOrEqual", {k, ctx.unsqueeze(starts, {1})}),
                                                    ctx.emit("Less", {k, ctx.unsqueeze(ends, {1})})});  // [G, K]
      const std::string masked = ctx.emit("Mul", {ctx.unsqueeze(a, {0}), ctx.unsqueeze(ctx.cast(in_group, type), {1})});
      out = ctx.emit("MatMul", {masked, b});
    }
  }
  return emitted(ctx, cast_if_needed(ctx, out, type, out_type));
}

}  // namespace

void register_grouped_mm_rules(RuleTable& t) { t.add("aten._grouped_mm.default", aten_grouped_mm); }

}  // namespace pt2onnx::translate
