// The negative log-likelihood and cross entropy losses: nll_loss (and its _nd/_forward/2d
// forms), cross_entropy_loss, and torch 2.15's chunked linear_cross_entropy ops, which compute
// cross entropy of a Linear layer's logits (torch_nn namespace, registered by torch.nn).
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// torch's reduction enum: 0 none, 1 mean, 2 sum.
const char* reduction_name(int64_t reduction) {
  PT2ONNX_CHECK(reduction >= 0 && reduction <= 2, ErrorCode::kUnsupported, "loss reduction " + std::to_string(reduction));
  return reduction == 0 ? "none" : reduction == 1 ? "mean" : "sum";
}

// The reduction enum of a reduction named by a string (the torch_nn ops take names).
int64_t reduction_enum(const std::string& name) {
  if (name == "none") return 0;
  if (name == "mean") return 1;
  PT2ONNX_CHECK(name == "sum", ErrorCode::kUnsupported, "loss reduction '" + name + "'");
  return 2;
}

// What a cross entropy (or NLL) loss reads: scores [N, C, ...] (or [C]: `rank` 1) of `type`,
// class-index targets [N, ...] (or probabilities shaped as the scores), optional class weights
// [C], and the loss's parameters.
struct LossOperands {
  std::string scores;
  DType type = DType::kFloat32;
  int64_t rank = 2;
  std::string classes;  // C as a 0-d value of `type`
  std::string target;
  DType target_type = DType::kInt64;
  std::optional<std::string> weight;
  int64_t reduction = 1;
  int64_t ignore_index = -100;
  double smoothing = 0.0;
};

// Log-probabilities [N, C, ...] (a [C] input as [1, C]) and targets [N, ...], as
// NegativeLogLikelihoodLoss takes them; `unbatched` when the input had no batch axis.
struct NllOperands {
  std::string log_probs, target;
  bool unbatched = false;
};

NllOperands nll_operands(EmitContext& ctx, const LossOperands& in, const std::string& log_probs) {
  NllOperands out{log_probs, cast_if_needed(ctx, in.target, in.target_type, DType::kInt64), false};
  if (in.rank == 1) out = {ctx.unsqueeze(log_probs, {0}), ctx.unsqueeze(out.target, {0}), true};
  return out;
}

std::string nll(EmitContext& ctx, const LossOperands& loss, const NllOperands& in) {
  std::vector<std::string> inputs = {in.log_probs, in.target};
  if (loss.weight) inputs.push_back(*loss.weight);
  std::string out = ctx.emit("NegativeLogLikelihoodLoss", inputs,
                             {Attr("reduction", reduction_name(loss.reduction)), Attr("ignore_index", loss.ignore_index)});
  return in.unbatched && loss.reduction == 0 ? ctx.squeeze(out, {0}) : out;
}

// Class-index targets: NLL of LogSoftmax over axis 1, plus with label smoothing e:
// (1 - e) * nll + e / C * smooth, smooth_i = -sum_c w_c logp_ic (0 where ignored), mean divided by the
// targets' total weight as nll is. Probability targets: -sum_c w_c t_ic logp_ic, t smoothed to
// t (1 - e) + e / C, mean over the batch elements.
std::string cross_entropy(EmitContext& ctx, const LossOperands& in) {
  const DType type = in.type;
  const int64_t class_axis = in.rank == 1 ? 0 : 1;
  const std::string log_probs = ctx.emit("LogSoftmax", {in.scores}, {Attr("axis", class_axis)});
  // The class weights shaped to broadcast along the class axis.
  std::vector<int64_t> after;
  for (int64_t i = class_axis + 1; i < in.rank; ++i) after.push_back(i - class_axis);
  const std::optional<std::string> weight_b = in.weight && !after.empty() ? std::optional(ctx.unsqueeze(*in.weight, after)) : in.weight;

  if (is_floating(in.target_type)) {
    std::string target = in.target;
    if (in.smoothing != 0.0)
      target = ctx.emit("Add", {ctx.emit("Mul", {target, ctx.const_scalar(1.0 - in.smoothing, type)}),
                                ctx.emit("Div", {ctx.const_scalar(in.smoothing, type), in.classes})});
    std::string term = ctx.emit("Mul", {log_probs, target});
    if (weight_b) term = ctx.emit("Mul", {term, *weight_b});
    const std::string loss = ctx.emit("Neg", {ctx.reduce("ReduceSum", term, std::vector<int64_t>{class_axis}, false)});
    if (in.reduction == 1 && in.rank == 1) return loss;
    return reduce_loss(ctx, loss, in.reduction);
  }
  const NllOperands nl = nll_operands(ctx, in, log_probs);
  const std::string nll_loss = nll(ctx, in, nl);
  if (in.smoothing == 0.0) return nll_loss;
  // smooth_i over the [N, C, ...] form.
  std::string term = nl.log_probs;
  if (weight_b) term = ctx.emit("Mul", {term, in.rank == 1 ? *in.weight : *weight_b});
  std::string smooth = ctx.emit("Neg", {ctx.reduce("ReduceSum", term, std::vector<int64_t>{1}, false)});
  const std::string kept = ctx.emit("Not", {ctx.emit("Equal", {nl.target, ctx.const_i64(in.ignore_index)})});
  smooth = ctx.emit("Where", {kept, smooth, ctx.const_scalar(0, type)});
  if (in.reduction == 0) {
    if (nl.unbatched) smooth = ctx.squeeze(smooth, {0});
  } else {
    smooth = ctx.reduce("ReduceSum", smooth, std::nullopt, false);
    if (in.reduction == 1) {
      // nll's mean divides by the kept targets' total weight (their count without weights).
      std::string per_target = ctx.cast(kept, type);
      if (in.weight) {
        const std::string safe = ctx.emit("Where", {kept, nl.target, ctx.const_i64(0)});
        per_target = ctx.emit("Mul", {per_target, ctx.emit("Gather", {*in.weight, safe}, {Attr("axis", 0)})});
      }
      smooth = ctx.emit("Div", {smooth, ctx.reduce("ReduceSum", per_target, std::nullopt, false)});
    }
  }
  return ctx.emit("Add", {ctx.emit("Mul", {nll_loss, ctx.const_scalar(1.0 - in.smoothing, type)}),
                          ctx.emit("Mul", {smooth, ctx.emit("Div", {ctx.const_scalar(in.smoothing, type), in.classes})})});
}

// What every loss node names alike: `target`, the class weights `weight`, `ignore_index`.
void read_targets(LossOperands& in, const ArgReader& args, int64_t reduction) {
  in.target = args.tensor("target");
  in.target_type = args.dtype_of("target");
  in.weight = args.optional_tensor("weight");
  in.reduction = reduction;
  in.ignore_index = args.int_or("ignore_index", -100);
}

// The operands of an aten loss node: scores `self`, `target`, `weight`, `ignore_index`.
LossOperands aten_loss_operands(EmitContext& ctx, const ArgReader& args, int64_t reduction) {
  LossOperands in;
  in.scores = args.tensor("self");
  in.type = args.dtype_of("self");
  in.rank = args.rank_of("self");
  const ir::Dim& classes = args.meta("self").sizes[static_cast<size_t>(in.rank == 1 ? 0 : 1)];
  in.classes = classes.is_static() ? ctx.const_scalar(static_cast<double>(classes.as_int()), in.type)
                                   : ctx.cast(ctx.dim_of(in.scores, in.rank == 1 ? 0 : 1), in.type);
  read_targets(in, args, reduction);
  return in;
}

// nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, SymInt ignore_index=-100)
//   -> Tensor; also nll_loss and nll_loss_forward / nll_loss2d_forward (whose total_weight must be unused)
RuleResult aten_nll_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!ctx.output_used(1), ErrorCode::kUnsupported, "the total_weight output of nll_loss_forward is used");
  const LossOperands in = aten_loss_operands(ctx, args, args.int_or("reduction", 1));
  return emitted(ctx, nll(ctx, in, nll_operands(ctx, in, in.scores)));
}

// cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,
//     SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor
RuleResult aten_cross_entropy_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  LossOperands in = aten_loss_operands(ctx, args, args.int_or("reduction", 1));
  in.smoothing = args.float_or("label_smoothing", 0.0);
  return emitted(ctx, cross_entropy(ctx, in));
}

// The Linear layer's logits input [N, d] . linear_weight [C, d]^T (+ linear_bias [C]) of the
// torch_nn linear cross entropy ops, as loss operands with their class weights and ignore_index.
LossOperands linear_logits(EmitContext& ctx, const ArgReader& args, int64_t reduction) {
  LossOperands in;
  in.type = args.dtype_of("input");
  PT2ONNX_CHECK(args.rank_of("input") == 2 && args.rank_of("linear_weight") == 2, ErrorCode::kUnsupported,
                "linear_cross_entropy of an input or weight that is not 2-D");
  std::string logits = ctx.emit("MatMul", {args.tensor("input"), ctx.transpose(operand_as(ctx, args, "linear_weight", in.type), {1, 0})});
  if (auto bias = args.optional_tensor("linear_bias")) logits = ctx.emit("Add", {logits, cast_if_needed(ctx, *bias, args.dtype_of("linear_bias"), in.type)});
  in.scores = logits;
  in.rank = 2;
  in.classes = ctx.cast(ctx.size_of(args.tensor_fx("linear_weight"), 0), in.type);
  read_targets(in, args, reduction);
  return in;
}

// torch_nn::_linear_cross_entropy_batch_chunked(Tensor input, Tensor linear_weight, Tensor target,
//   Tensor? linear_bias, Tensor? weight, str reduction, int ignore_index, float label_smoothing,
//   int batch_chunk_size, str acc_policy, ScalarType acc_dtype, bool allow_retain_graph,
//   bool compute_input_grad, bool compute_linear_weight_grad, bool compute_linear_bias_grad)
//   -> (Tensor loss, Tensor grad_input, Tensor grad_linear_weight, Tensor grad_linear_bias)
// The loss is cross entropy of the logits (the chunking and the accumulation type only bound
// torch's memory; the loss is computed in the input's type). The gradients are precomputed for
// backward: with their compute_* flag off they are empty ([0, 0], [0, 0], [0]) and given so; a
// precomputed gradient that the program reads is refused.
RuleResult torch_nn_linear_cross_entropy(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  static constexpr const char* kFlags[] = {"compute_input_grad", "compute_linear_weight_grad", "compute_linear_bias_grad"};
  for (size_t i = 0; i < 3; ++i)
    PT2ONNX_CHECK(!ctx.output_used(i + 1) || !args.bool_or(kFlags[i], false), ErrorCode::kUnsupported,
                  "linear_cross_entropy's precomputed gradient (" + std::string(kFlags[i]) + ") is read by the program");
  LossOperands in = linear_logits(ctx, args, reduction_enum(args.string_or("reduction", "mean")));
  in.smoothing = args.float_or("label_smoothing", 0.0);
  ctx.set_output(0, cross_entropy(ctx, in));
  const std::vector<std::vector<int64_t>> empty = {{0, 0}, {0, 0}, {0}};
  for (size_t i = 1; i < 4; ++i)
    if (ctx.output_used(i)) ctx.set_output(i, ctx.emit("Expand", {ctx.const_scalar(0, in.type), ctx.const_i64s(empty[i - 1])}));
  return RuleResult::kEmitted;
}

// torch_nn::_linear_cross_entropy_batch_chunked_no_reduction(Tensor input, Tensor linear_weight,
//   Tensor target, Tensor? linear_bias, Tensor? weight, int ignore_index, int batch_chunk_size,
//   str acc_policy, ScalarType acc_dtype) -> Tensor: the per-sample loss [N] (no label smoothing).
RuleResult torch_nn_linear_cross_entropy_none(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, cross_entropy(ctx, linear_logits(ctx, args, 0)));
}

}  // namespace

void register_cross_entropy_rules(RuleTable& t) {
  t.add("aten.nll_loss_nd.default", aten_nll_loss);
  t.add("aten.nll_loss.default", aten_nll_loss);
  t.add("aten.nll_loss_forward.default", aten_nll_loss);
  t.add("aten.nll_loss2d_forward.default", aten_nll_loss);
  t.add("aten.cross_entropy_loss.default", aten_cross_entropy_loss);
  t.add("torch_nn._linear_cross_entropy_batch_chunked.default", torch_nn_linear_cross_entropy);
  t.add("torch_nn._linear_cross_entropy_batch_chunked_no_reduction.default", torch_nn_linear_cross_entropy_none);
}

}  // namespace pt2onnx::translate
