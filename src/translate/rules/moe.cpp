// Mixture-of-experts rules: transformers' grouped_mm_fallback, the custom op transformers
// (integrations/moe.py) registers for its default ("grouped_mm") experts path on CPU.
#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

// transformers::grouped_mm_fallback(Tensor input, Tensor weight, Tensor offs) -> Tensor
//   input [S, K] sorted by expert, weight [E, K, N], offs [E] the cumulative token counts (transformers
//   makes them with cumsum(histc(expert ids)), so they never decrease): row s uses weight[g], g the
//   number of offs <= s; rows at or past offs[E-1] are zeros, as in torch (output starts as zeros).
// Every row is multiplied by every expert (MatMul [1, S, K] x [E, K, N]) and the row's own product
// picked with GatherElements: E*S*N work and memory, no [S, K, N] copy of the weights.
RuleResult transformers_grouped_mm_fallback(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.rank_of("input") == 2 && args.rank_of("weight") == 3 && args.rank_of("offs") == 1,
                ErrorCode::kUnsupported, "grouped_mm_fallback: input must be 2-D, weight 3-D and offs 1-D");
  const ir::DType type = args.dtype_of("input");
  const std::string input = args.tensor("input"), weight = args.tensor("weight");
  const std::string offs = ctx.cast(args.tensor("offs"), ir::DType::kInt64);
  const std::string rows = ctx.emit("Range", {ctx.const_i64(0), ctx.dim_of(input, 0), ctx.const_i64(1)});
  // [S, E]: offs[e] <= s; summed over e it is the row's expert.
  const std::string passed = ctx.emit("LessOrEqual", {ctx.unsqueeze(offs, {0}), ctx.unsqueeze(rows, {1})});
  const std::string group = ctx.reduce("ReduceSum", ctx.cast(passed, ir::DType::kInt64), std::vector<int64_t>{1}, false);
  const std::string experts = ctx.dim_of(weight, 0);
  const std::string valid = ctx.emit("Less", {group, experts});
  const std::string clamped = ctx.emit("Min", {group, ctx.emit("Sub", {experts, ctx.const_i64(1)})});
  // [E, S, N] -> [S, E, N], then each row's expert: GatherElements on axis 1 with [S, 1, N] indices.
  const std::string all = ctx.transpose(ctx.emit("MatMul", {ctx.unsqueeze(input, {0}), weight}), {1, 0, 2});
  const std::string index_shape = ctx.concat({ctx.const_i64s({1, 1}), ctx.unsqueeze(ctx.dim_of(weight, 2), {0})}, 0);
  const std::string index = ctx.emit("Expand", {ctx.unsqueeze(clamped, {1, 2}), index_shape});
  const std::string picked = ctx.squeeze(ctx.emit("GatherElements", {all, index}, {Attr("axis", 1)}), {1});
  return emitted(ctx, ctx.emit("Where", {ctx.unsqueeze(valid, {1}), picked, ctx.const_scalar(0, type)}));
}

}  // namespace

void register_moe_rules(RuleTable& t) {
  t.add("transformers.grouped_mm_fallback.default", transformers_grouped_mm_fallback);
}

}  // namespace pt2onnx::translate
