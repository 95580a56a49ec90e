// Margin losses the default IR keeps, as torch's kernels define them: triplet_margin_loss,
// cosine_embedding_loss, multi_margin_loss and multilabel_margin_loss (each reduced by
// `reduction`: 0 none, 1 mean, 2 sum).
#include <algorithm>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// pairwise_distance as triplet_margin_loss calls it: the p-norm of a - b + eps along the last dim.
std::string distance(EmitContext& ctx, const std::string& a, const std::string& b, int64_t rank, double p, double eps, DType type) {
  const std::string diff = ctx.emit("Add", {ctx.emit("Sub", {a, b}), ctx.const_scalar(eps, type)});
  const auto axes = rank == 0 ? std::nullopt : std::optional<std::vector<int64_t>>{{rank - 1}};
  return vector_norm(ctx, diff, p, axes, false, type);
}

// triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, float p=2,
// float eps=1e-06, bool swap=False, int reduction=Mean) -> Tensor:
// max(margin + d(a, p) - d(a, n), 0), d(a, n) replaced by min(d(a, n), d(p, n)) with swap.
RuleResult aten_triplet_margin_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("anchor"));
  const int64_t rank = std::max({args.rank_of("anchor"), args.rank_of("positive"), args.rank_of("negative")});
  const double p = args.float_or("p", 2.0), eps = args.float_or("eps", 1e-6);
  const std::string a = operand_as(ctx, args, "anchor", type), pos = operand_as(ctx, args, "positive", type),
                    neg = operand_as(ctx, args, "negative", type);
  const std::string d_pos = distance(ctx, a, pos, rank, p, eps, type);
  std::string d_neg = distance(ctx, a, neg, rank, p, eps, type);
  if (args.bool_or("swap", false)) d_neg = ctx.emit("Min", {d_neg, distance(ctx, pos, neg, rank, p, eps, type)});
  const std::string raw = ctx.emit("Sub", {ctx.emit("Add", {ctx.const_scalar(args.float_or("margin", 1.0), type), d_pos}), d_neg});
  const std::string loss = ctx.emit("Max", {raw, ctx.const_scalar(0, type)});
  return emitted(ctx, reduce_loss(ctx, loss, args.int_or("reduction", 1)));
}

// cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, int
// reduction=Mean) -> Tensor: cos = sum(x1 x2) / sqrt((sum(x1^2) + 1e-12)(sum(x2^2) + 1e-12)) over
// the last dim; 1 - cos where target is 1, max(cos - margin, 0) where it is -1, else 0.
RuleResult aten_cosine_embedding_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("input1"));
  const int64_t rank = std::max(args.rank_of("input1"), args.rank_of("input2"));
  PT2ONNX_CHECK(rank > 0, ErrorCode::kUnsupported, "cosine_embedding_loss of 0-d inputs");
  const std::string a = operand_as(ctx, args, "input1", type), b = operand_as(ctx, args, "input2", type);
  const std::vector<int64_t> last = {rank - 1};
  const std::string eps = ctx.const_scalar(1e-12, type);
  auto sum = [&](const std::string& v) { return ctx.reduce("ReduceSum", v, last, false); };
  const std::string m1 = ctx.emit("Add", {sum(ctx.emit("Mul", {a, a})), eps}), m2 = ctx.emit("Add", {sum(ctx.emit("Mul", {b, b})), eps});
  const std::string cos = ctx.emit("Div", {sum(ctx.emit("Mul", {a, b})), ctx.emit("Sqrt", {ctx.emit("Mul", {m1, m2})})});
  const std::string target = operand_as(ctx, args, "target", type);
  const std::string zero = ctx.const_scalar(0, type);
  const std::string pos = ctx.emit("Sub", {ctx.const_scalar(1, type), cos});
  const std::string neg = ctx.emit("Max", {ctx.emit("Sub", {cos, ctx.const_scalar(args.float_or("margin", 0.0), type)}), zero});
  const std::string loss = ctx.emit("Add", {ctx.emit("Where", {ctx.emit("Equal", {target, ctx.const_scalar(1, type)}), pos, zero}),
                                            ctx.emit("Where", {ctx.emit("Equal", {target, ctx.const_scalar(-1, type)}), neg, zero})});
  return emitted(ctx, reduce_loss(ctx, loss, args.int_or("reduction", 1)));
}

// The input as [N, C] (a 0-d one as [1, 1], a 1-D one as [1, C]) and C.
std::pair<std::string, int64_t> as_frames(EmitContext& ctx, const ArgReader& args) {
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank <= 2, ErrorCode::kUnsupported, "a margin loss of an input of rank above 2");
  int64_t classes = 1;
  if (rank > 0) {
    const ir::Dim& d = args.meta("self").sizes.back();
    PT2ONNX_CHECK(d.is_static(), ErrorCode::kUnsupported, "a margin loss with a symbolic class count");
    classes = d.as_int();
  }
  return {ctx.reshape(args.tensor("self"), ctx.const_i64s({-1, classes})), classes};
}

// multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, Tensor? weight=None,
// int reduction=Mean) -> Tensor: per frame, sum over classes d != y of
// w[y] * max(margin - x[y] + x[d], 0)^p, divided by the class count.
RuleResult aten_multi_margin_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const double p = args.has("p") ? args.scalar_number("p") : 1.0;
  PT2ONNX_CHECK(p == 1 || p == 2, ErrorCode::kUnsupported, "multi_margin_loss with p other than 1 or 2");
  const auto [x, classes] = as_frames(ctx, args);
  const std::string target = ctx.reshape(cast_if_needed(ctx, args.tensor("target"), args.dtype_of("target"), DType::kInt64), ctx.const_i64s({-1, 1}));
  const std::string x_target = ctx.emit("GatherElements", {x, target}, {Attr("axis", 1)});
  const std::string margin = ctx.const_scalar(args.has("margin") ? args.scalar_number("margin") : 1.0, type);
  const std::string z = ctx.emit("Add", {ctx.emit("Sub", {margin, x_target}), x});
  const std::string zero = ctx.const_scalar(0, type);
  std::string h = ctx.emit("Where", {ctx.emit("Greater", {z, zero}), p == 2 ? ctx.emit("Mul", {z, z}) : z, zero});
  if (const auto weight = args.optional_tensor("weight")) h = ctx.emit("Mul", {h, ctx.emit("Gather", {*weight, target})});
  const std::string classes_range = ctx.unsqueeze(ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(classes), ctx.const_i64(1)}), {0});
  h = ctx.emit("Where", {ctx.emit("Equal", {classes_range, target}), zero, h});
  std::string loss = ctx.emit("Div", {ctx.reduce("ReduceSum", h, std::vector<int64_t>{1}, false), ctx.const_scalar(static_cast<double>(classes), type)});
  const int64_t reduction = args.int_or("reduction", 1);
  if (reduction == 0) loss = ctx.reshape(loss, ctx.shape_of(args.tensor("target")));
  return emitted(ctx, reduce_loss(ctx, loss, reduction));
}

// multilabel_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor: per frame, the
// targets are target's entries before its first negative one; sum over targets j and non-target
// classes d of max(1 - x[j] + x[d], 0), divided by the class count.
// multilabel_margin_loss_forward(Tensor self, Tensor target, int reduction) -> (Tensor output,
// Tensor is_target), its kernel, also gives is_target: 1 where a class is a target, in self's dtype
// and target's shape.
RuleResult aten_multilabel_margin_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const auto [x, classes] = as_frames(ctx, args);
  const std::string target = ctx.reshape(cast_if_needed(ctx, args.tensor("target"), args.dtype_of("target"), DType::kInt64),
                                         ctx.const_i64s({-1, classes}));
  const std::string negative = ctx.cast(ctx.emit("Less", {target, ctx.const_i64(0)}), DType::kInt64);
  const std::string valid = ctx.emit("Equal", {ctx.emit("CumSum", {negative, ctx.const_i64(1)}), ctx.const_i64(0)});  // [N, k]
  const std::string index = ctx.emit("Where", {valid, target, ctx.const_i64(0)});
  const std::string classes_range = ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(classes), ctx.const_i64(1)});
  // is_target[n, d]: some valid k has target[n, k] == d.
  const std::string hits = ctx.emit("And", {ctx.unsqueeze(valid, {2}), ctx.emit("Equal", {ctx.unsqueeze(index, {2}), classes_range})});
  const std::string is_target = ctx.emit("Greater", {ctx.reduce("ReduceMax", ctx.cast(hits, DType::kInt32), std::vector<int64_t>{1}, false),
                                                     ctx.const_scalar(0, DType::kInt32)});  // [N, d]
  const std::string x_target = ctx.emit("GatherElements", {x, index}, {Attr("axis", 1)});           // [N, k]
  const std::string z = ctx.emit("Add", {ctx.emit("Sub", {ctx.const_scalar(1, type), ctx.unsqueeze(x_target, {2})}), ctx.unsqueeze(x, {1})});  // [N, k, d]
  const std::string zero = ctx.const_scalar(0, type);
  const std::string counted = ctx.emit("And", {ctx.unsqueeze(valid, {2}), ctx.unsqueeze(ctx.emit("Not", {is_target}), {1})});
  const std::string terms = ctx.emit("Where", {ctx.emit("And", {counted, ctx.emit("Greater", {z, zero})}), z, zero});
  std::string loss = ctx.emit("Div", {ctx.reduce("ReduceSum", terms, std::vector<int64_t>{1, 2}, false), ctx.const_scalar(static_cast<double>(classes), type)});
  const int64_t reduction = args.int_or("reduction", 1);
  if (reduction == 0 && args.rank_of("self") <= 1) loss = ctx.reshape(loss, ctx.const_i64s({}));
  if (ctx.output_count() > 1 && ctx.output_used(1))
    ctx.set_output(1, ctx.reshape(ctx.cast(is_target, type), ctx.shape_of(args.tensor("target"))));
  return emitted(ctx, reduce_loss(ctx, loss, reduction));
}

}  // namespace

void register_decomp_loss_rules(RuleTable& t) {
  t.add("aten.triplet_margin_loss.default", aten_triplet_margin_loss);
  t.add("aten.cosine_embedding_loss.default", aten_cosine_embedding_loss);
  t.add("aten.multi_margin_loss.default", aten_multi_margin_loss);
  t.add("aten.multilabel_margin_loss.default", aten_multilabel_margin_loss);  // and CumSum
  t.add("aten.multilabel_margin_loss_forward.default", aten_multilabel_margin_loss);
}

}  // namespace pt2onnx::translate
