// Loss functions that the default IR keeps whole (core IR writes their elementwise forms):
// l1, smooth_l1, huber, binary_cross_entropy (with logits), kl_div, soft_margin, margin_ranking,
// hinge_embedding and poisson_nll, each its elementwise formula and then its `reduction`
// (0 none, 1 mean, 2 sum). mse_loss and the nll/cross-entropy family are with the reductions.
#include <cmath>
#include <numbers>

#include "common/error.h"
#include "ir/onnx_dtype.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// The reader's `self` and `target` as the loss's dtype, and that dtype.
struct LossOperands {
  DType type;
  std::string x, target;
};
LossOperands operands(EmitContext& ctx, const ArgReader& args, const char* x = "self", const char* target = "target") {
  // Integer operands of a loss torch gives as float (a float argument promotes them) are computed
  // in that float type.
  const DType out = args.out_dtype();
  const DType type = is_floating(out) ? out : torch_result_type(args, {x, target});
  return {type, operand_as(ctx, args, x, type), operand_as(ctx, args, target, type)};
}

RuleResult reduced(EmitContext& ctx, const ArgReader& args, const std::string& loss) {
  return emitted(ctx, reduce_loss(ctx, loss, args.int_or("reduction", 1)));
}

// l1_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
RuleResult aten_l1_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const LossOperands in = operands(ctx, args);
  return reduced(ctx, args, ctx.emit("Abs", {ctx.emit("Sub", {in.x, in.target})}));
}

// |d| < limit ? 0.5 d^2 * quadratic_scale : linear_scale * (|d| - 0.5 limit)
std::string piecewise_quadratic(EmitContext& ctx, const LossOperands& in, double limit, double quadratic_scale, double linear_scale) {
  const std::string d = ctx.emit("Sub", {in.x, in.target});
  const std::string abs = ctx.emit("Abs", {d});
  const std::string quadratic = ctx.emit("Mul", {ctx.emit("Mul", {d, d}), ctx.const_scalar(0.5 * quadratic_scale, in.type)});
  const std::string linear = ctx.emit("Mul", {ctx.emit("Sub", {abs, ctx.const_scalar(0.5 * limit, in.type)}), ctx.const_scalar(linear_scale, in.type)});
  return ctx.emit("Where", {ctx.emit("Less", {abs, ctx.const_scalar(limit, in.type)}), quadratic, linear});
}

// smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) -> Tensor (l1 for beta 0)
RuleResult aten_smooth_l1_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const LossOperands in = operands(ctx, args);
  const double beta = args.float_or("beta", 1.0);
  if (beta == 0) return reduced(ctx, args, ctx.emit("Abs", {ctx.emit("Sub", {in.x, in.target})}));
  return reduced(ctx, args, piecewise_quadratic(ctx, in, beta, 1.0 / beta, 1.0));
}

// huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor
RuleResult aten_huber_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const LossOperands in = operands(ctx, args);
  const double delta = args.float_or("delta", 1.0);
  return reduced(ctx, args, piecewise_quadratic(ctx, in, delta, 1.0, delta));
}

std::string weighted(EmitContext& ctx, const ArgReader& args, const std::string& loss, DType type) {
  return args.has("weight") ? ctx.emit("Mul", {loss, operand_as(ctx, args, "weight", type)}) : loss;
}

// binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean) -> Tensor:
// -(t log x + (1 - t) log(1 - x)), each log at least -100 as torch clamps it.
RuleResult aten_binary_cross_entropy(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const LossOperands in = operands(ctx, args);
  const std::string one = ctx.const_scalar(1, in.type), floor = ctx.const_scalar(-100, in.type);
  const std::string log_x = ctx.emit("Max", {ctx.emit("Log", {in.x}), floor});
  const std::string log_rest = ctx.emit("Max", {ctx.emit("Log", {ctx.emit("Sub", {one, in.x})}), floor});
  const std::string mixed = ctx.emit("Add", {ctx.emit("Mul", {in.target, log_x}),
                                            ctx.emit("Mul", {ctx.emit("Sub", {one, in.target}), log_rest})});
  return reduced(ctx, args, weighted(ctx, args, ctx.emit("Neg", {mixed}), in.type));
}

// binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor?
// pos_weight=None, int reduction=Mean) -> Tensor: (1 - t) x + (1 + (pw - 1) t) softplus(-x), with
// softplus(-x) = max(-x, 0) + log1p(exp(-|x|)) so that no exp overflows.
RuleResult aten_binary_cross_entropy_with_logits(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const LossOperands in = operands(ctx, args);
  const std::string one = ctx.const_scalar(1, in.type);
  const std::string neg_x = ctx.emit("Neg", {in.x});
  const std::string tail = ctx.emit("Log", {ctx.emit("Add", {one, ctx.emit("Exp", {ctx.emit("Neg", {ctx.emit("Abs", {in.x})})})})});
  std::string softplus = ctx.emit("Add", {ctx.emit("Max", {neg_x, ctx.const_scalar(0, in.type)}), tail});
  if (args.has("pos_weight")) {
    const std::string pw = operand_as(ctx, args, "pos_weight", in.type);
    softplus = ctx.emit("Mul", {softplus, ctx.emit("Add", {one, ctx.emit("Mul", {ctx.emit("Sub", {pw, one}), in.target})})});
  }
  const std::string loss = ctx.emit("Add", {ctx.emit("Mul", {ctx.emit("Sub", {one, in.target}), in.x}), softplus});
  return reduced(ctx, args, weighted(ctx, args, loss, in.type));
}

// kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False) -> Tensor:
// t (log t - x), 0 where t is 0; exp(t) (t - x) for log targets.
RuleResult aten_kl_div(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const LossOperands in = operands(ctx, args);
  if (args.bool_or("log_target", false))
    return reduced(ctx, args, ctx.emit("Mul", {ctx.emit("Exp", {in.target}), ctx.emit("Sub", {in.target, in.x})}));
  const std::string zero = ctx.const_scalar(0, in.type);
  const std::string xlogy = ctx.emit("Where", {ctx.emit("Equal", {in.target, zero}), zero,
                                               ctx.emit("Mul", {in.target, ctx.emit("Log", {in.target})})});
  return reduced(ctx, args, ctx.emit("Sub", {xlogy, ctx.emit("Mul", {in.target, in.x})}));
}

// soft_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor: log(1 + exp(-t x))
RuleResult aten_soft_margin_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const LossOperands in = operands(ctx, args);
  const std::string z = ctx.emit("Neg", {ctx.emit("Mul", {in.target, in.x})});
  return reduced(ctx, args, ctx.emit("Log", {ctx.emit("Add", {ctx.const_scalar(1, in.type), ctx.emit("Exp", {z})})}));
}

// margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, int reduction=Mean):
// max(0, -t (x1 - x2) + margin)
RuleResult aten_margin_ranking_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType out = args.out_dtype();
  const DType type = is_floating(out) ? out : torch_result_type(args, {"input1", "input2", "target"});
  const std::string d = ctx.emit("Sub", {operand_as(ctx, args, "input1", type), operand_as(ctx, args, "input2", type)});
  const std::string raw = ctx.emit("Add", {ctx.emit("Neg", {ctx.emit("Mul", {operand_as(ctx, args, "target", type), d})}),
                                           ctx.const_scalar(args.float_or("margin", 0.0), type)});
  return reduced(ctx, args, ctx.emit("Max", {raw, ctx.const_scalar(0, type)}));
}

// hinge_embedding_loss(Tensor self, Tensor target, float margin=1.0, int reduction=Mean) -> Tensor:
// x where t != -1, plus max(0, margin - x) where t != 1 (torch's two masked terms).
RuleResult aten_hinge_embedding_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const LossOperands in = operands(ctx, args);
  const std::string zero = ctx.const_scalar(0, in.type);
  const std::string margin = ctx.emit("Max", {ctx.emit("Sub", {ctx.const_scalar(args.float_or("margin", 1.0), in.type), in.x}), zero});
  const std::string at_minus = ctx.emit("Equal", {in.target, ctx.const_scalar(-1, in.type)});
  const std::string at_plus = ctx.emit("Equal", {in.target, ctx.const_scalar(1, in.type)});
  const std::string loss = ctx.emit("Add", {ctx.emit("Where", {at_plus, zero, margin}), ctx.emit("Where", {at_minus, zero, in.x})});
  return reduced(ctx, args, loss);
}

// poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction):
// exp(x) - t x for log inputs, x - t log(x + eps) otherwise; `full` adds Stirling's term
// t log t - t + log(2 pi t) / 2 where t > 1.
RuleResult aten_poisson_nll_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const LossOperands in = operands(ctx, args, "input", "target");
  std::string loss;
  if (args.get_bool("log_input")) {
    loss = ctx.emit("Sub", {ctx.emit("Exp", {in.x}), ctx.emit("Mul", {in.target, in.x})});
  } else {
    const std::string log_x = ctx.emit("Log", {ctx.emit("Add", {in.x, ctx.const_scalar(args.get_float("eps"), in.type)})});
    loss = ctx.emit("Sub", {in.x, ctx.emit("Mul", {in.target, log_x})});
  }
  if (args.get_bool("full")) {
    const std::string t = in.target, log_t = ctx.emit("Log", {in.target});
    const std::string half_log = ctx.emit("Mul", {ctx.emit("Log", {ctx.emit("Mul", {t, ctx.const_scalar(2 * std::numbers::pi, in.type)})}),
                                                  ctx.const_scalar(0.5, in.type)});
    const std::string stirling = ctx.emit("Add", {ctx.emit("Sub", {ctx.emit("Mul", {t, log_t}), t}), half_log});
    loss = ctx.emit("Add", {loss, ctx.emit("Where", {ctx.emit("Greater", {t, ctx.const_scalar(1, in.type)}), stirling,
                                                     ctx.const_scalar(0, in.type)})});
  }
  return reduced(ctx, args, loss);
}

}  // namespace

void register_loss_rules(RuleTable& t) {
  t.add("aten.l1_loss.default", aten_l1_loss);
  t.add("aten.smooth_l1_loss.default", aten_smooth_l1_loss);
  t.add("aten.huber_loss.default", aten_huber_loss);
  t.add("aten.binary_cross_entropy.default", aten_binary_cross_entropy);
  t.add("aten.binary_cross_entropy_with_logits.default", aten_binary_cross_entropy_with_logits);
  t.add("aten.kl_div.default", aten_kl_div);
  t.add("aten.soft_margin_loss.default", aten_soft_margin_loss);
  t.add("aten.margin_ranking_loss.default", aten_margin_ranking_loss);
  t.add("aten.hinge_embedding_loss.default", aten_hinge_embedding_loss);
  t.add("aten.poisson_nll_loss.default", aten_poisson_nll_loss);
}

}  // namespace pt2onnx::translate
