// Activation rules: relu family, sigmoid/tanh, silu, gelu (an ONNX op from opset 20, a
// decomposition before), softplus, softmax and log_softmax.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// The `self` argument in the result dtype (an int input of a float function becomes float).
std::string self_in_result_type(EmitContext& ctx, const ArgReader& args) {
  return cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), result_dtype(args, args.dtype_of("self")));
}

RuleResult unary(EmitContext& ctx, const ir::Node& node, std::string_view op, const std::vector<Attr>& attrs = {}) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit(op, {self_in_result_type(ctx, args)}, attrs));
}

// relu(Tensor self) -> Tensor
RuleResult aten_relu(EmitContext& ctx, const ir::Node& node) { return unary(ctx, node, "Relu"); }
// sigmoid(Tensor self) -> Tensor
RuleResult aten_sigmoid(EmitContext& ctx, const ir::Node& node) { return unary(ctx, node, "Sigmoid"); }
// tanh(Tensor self) -> Tensor
RuleResult aten_tanh(EmitContext& ctx, const ir::Node& node) { return unary(ctx, node, "Tanh"); }
// hardswish(Tensor self) -> Tensor
RuleResult aten_hardswish(EmitContext& ctx, const ir::Node& node) { return unary(ctx, node, "HardSwish"); }
// hardsigmoid(Tensor self) -> Tensor   (relu6(x + 3) / 6)
RuleResult aten_hardsigmoid(EmitContext& ctx, const ir::Node& node) {
  return unary(ctx, node, "HardSigmoid", {Attr("alpha", 1.0 / 6.0), Attr("beta", 0.5)});
}

// silu(Tensor self) -> Tensor   (x * sigmoid(x))
RuleResult aten_silu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string x = self_in_result_type(ctx, args);
  return emitted(ctx, ctx.emit("Mul", {x, ctx.emit("Sigmoid", {x})}));
}

// mish(Tensor self) -> Tensor   (x * tanh(softplus(x)))
RuleResult aten_mish(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string x = self_in_result_type(ctx, args);
  return emitted(ctx, ctx.emit("Mul", {x, ctx.emit("Tanh", {ctx.emit("Softplus", {x})})}));
}

// hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor
RuleResult aten_hardtanh(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  return emitted(ctx, ctx.emit("Clip", {args.tensor("self"), ctx.const_scalar(args.float_or("min_val", -1), type),
                                        ctx.const_scalar(args.float_or("max_val", 1), type)}));
}

// selu(Tensor self) -> Tensor   (ONNX Selu's default alpha and gamma are torch's constants)
RuleResult aten_selu(EmitContext& ctx, const ir::Node& node) { return unary(ctx, node, "Selu"); }

// relu6(Tensor self) -> Tensor
RuleResult aten_relu6(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  return emitted(ctx, ctx.emit("Clip", {args.tensor("self"), ctx.const_scalar(0, type), ctx.const_scalar(6, type)}));
}

// leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor
RuleResult aten_leaky_relu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("LeakyRelu", {args.tensor("self")}, {Attr("alpha", args.float_or("negative_slope", 0.01))}));
}

// elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor
RuleResult aten_elu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const double alpha = args.float_or("alpha", 1), scale = args.float_or("scale", 1), input_scale = args.float_or("input_scale", 1);
  const DType type = args.dtype_of("self");
  std::string x = args.tensor("self");
  if (input_scale == 1 && scale == 1) return emitted(ctx, ctx.emit("Elu", {x}, {Attr("alpha", alpha)}));
  // scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))
  const std::string negative = ctx.emit("Mul", {ctx.const_scalar(alpha, type),
      ctx.emit("Sub", {ctx.emit("Exp", {ctx.emit("Mul", {x, ctx.const_scalar(input_scale, type)})}), ctx.const_scalar(1, type)})});
  const std::string positive = ctx.emit("Greater", {x, ctx.const_scalar(0, type)});
  return emitted(ctx, ctx.emit("Mul", {ctx.emit("Where", {positive, x, negative}), ctx.const_scalar(scale, type)}));
}

// softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor
RuleResult aten_softplus(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string x = self_in_result_type(ctx, args);
  const double beta = args.float_or("beta", 1), threshold = args.float_or("threshold", 20);
  const std::string scaled = beta == 1 ? x : ctx.emit("Mul", {x, ctx.const_scalar(beta, type)});
  std::string soft = ctx.emit("Softplus", {scaled});
  if (beta != 1) soft = ctx.emit("Div", {soft, ctx.const_scalar(beta, type)});
  // torch returns x itself where beta * x > threshold.
  const std::string linear = ctx.emit("Greater", {scaled, ctx.const_scalar(threshold, type)});
  return emitted(ctx, ctx.emit("Where", {linear, x, soft}));
}

// prelu(Tensor self, Tensor weight) -> Tensor   (weight applies along dim 1)
RuleResult aten_prelu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::string slope = args.tensor("weight");
  const int64_t rank = args.rank_of("self");
  if (rank >= 3 && args.rank_of("weight") == 1) {
    std::vector<int64_t> axes;
    for (int64_t i = 1; i < rank - 1; ++i) axes.push_back(i);
    slope = ctx.unsqueeze(slope, axes);
  }
  return emitted(ctx, ctx.emit("PRelu", {args.tensor("self"), slope}));
}

// glu(Tensor self, int dim=-1) -> Tensor   (a * sigmoid(b) of the two halves)
RuleResult aten_glu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", -1), args.rank_of("self"));
  const std::string x = args.tensor("self");
  const std::string half = ctx.emit("Div", {ctx.size_of(args.tensor_fx("self"), dim), ctx.const_i64(2)});
  const std::string half_1d = ctx.unsqueeze(half, {0});
  const std::string axes = ctx.const_i64s({dim});
  const std::string a = ctx.emit("Slice", {x, ctx.const_i64s({0}), half_1d, axes});
  const std::string b = ctx.emit("Slice", {x, half_1d, ctx.const_i64s({INT64_MAX}), axes});
  return emitted(ctx, ctx.emit("Mul", {a, ctx.emit("Sigmoid", {b})}));
}

// ---- gelu -------------------------------------------------------------------------------------

// gelu(Tensor self, *, str approximate='none') -> Tensor, as the ONNX Gelu op (opset 20).
RuleResult aten_gelu_opset20(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string approximate = args.string_or("approximate", "none");
  return emitted(ctx, ctx.emit("Gelu", {self_in_result_type(ctx, args)}, {Attr("approximate", approximate)}));
}

// gelu(Tensor self, *, str approximate='none') -> Tensor, decomposed for opsets before 20.
RuleResult aten_gelu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string x = self_in_result_type(ctx, args);
  const std::string approximate = args.string_or("approximate", "none");
  PT2ONNX_CHECK(approximate == "none" || approximate == "tanh", ErrorCode::kUnsupported,
                "gelu approximate='" + approximate + "'");
  std::string inner;
  if (approximate == "none") {
    // 0.5 * x * (1 + erf(x / sqrt(2)))
    inner = ctx.emit("Erf", {ctx.emit("Mul", {x, ctx.const_scalar(1.0 / std::numbers::sqrt2, type)})});
  } else {
    // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
    const std::string cube = ctx.emit("Mul", {ctx.emit("Mul", {x, x}), x});
    const std::string sum = ctx.emit("Add", {x, ctx.emit("Mul", {cube, ctx.const_scalar(0.044715, type)})});
    inner = ctx.emit("Tanh", {ctx.emit("Mul", {sum, ctx.const_scalar(std::sqrt(2.0 / std::numbers::pi), type)})});
  }
  const std::string one_plus = ctx.emit("Add", {inner, ctx.const_scalar(1, type)});
  return emitted(ctx, ctx.emit("Mul", {ctx.emit("Mul", {x, ctx.const_scalar(0.5, type)}), one_plus}));
}

// ---- softmax ----------------------------------------------------------------------------------

RuleResult softmax_like(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  DType type = args.dtype_of("self");
  if (args.bool_or("half_to_float", false)) type = DType::kFloat32;
  if (auto dtype = args.dtype("dtype")) type = *dtype;
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  // ONNX's Softmax needs rank 1 or more: a 0-d tensor is taken as one element along dim 0.
  if (args.rank_of("self") == 0) return emitted(ctx, ctx.squeeze(ctx.emit(op, {ctx.unsqueeze(x, {0})}, {Attr("axis", 0)}), {0}));
  const int64_t axis = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  return emitted(ctx, ctx.emit(op, {x}, {Attr("axis", axis)}));
}

// softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor; _softmax(self, dim, half_to_float)
RuleResult aten_softmax(EmitContext& ctx, const ir::Node& node) { return softmax_like(ctx, node, "Softmax"); }
// log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor; _log_softmax(self, dim, half_to_float)
RuleResult aten_log_softmax(EmitContext& ctx, const ir::Node& node) { return softmax_like(ctx, node, "LogSoftmax"); }

// _safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor   (rows of all -inf give 0)
RuleResult aten_safe_softmax(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  DType type = args.dtype_of("self");
  if (auto dtype = args.dtype("dtype")) type = *dtype;
  const bool scalar = args.rank_of("self") == 0;  // taken as one element along dim 0, as in softmax_like
  const std::string x = scalar ? ctx.unsqueeze(cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type), {0})
                               : cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  const int64_t axis = scalar ? 0 : normalize_dim(args.get_int("dim"), args.rank_of("self"));
  const std::string softmax = ctx.emit("Softmax", {x}, {Attr("axis", axis)});
  const std::string masked = ctx.cast(ctx.emit("Equal", {x, ctx.const_scalar(-INFINITY, type)}), DType::kInt32);
  const std::string all_masked = ctx.cast(ctx.reduce("ReduceMin", masked, std::vector<int64_t>{axis}, true), DType::kBool);
  const std::string out = ctx.emit("Where", {all_masked, ctx.const_scalar(0, type), softmax});
  return emitted(ctx, scalar ? ctx.squeeze(out, {0}) : out);
}

// rrelu_with_noise_functional(Tensor self, Tensor noise, Scalar lower=0.125, Scalar upper=1/3, bool
// training=False, Generator? generator=None) -> (Tensor, Tensor noise_out). Evaluation: leaky ReLU
// of slope (lower + upper) / 2, the noise returned as given. Training: as torch's kernel, a slope
// drawn from U[lower, upper) for each element <= 0 (1 elsewhere), returned as the noise; unseeded,
// like pt2onnx's other random rules (equal to torch in distribution, not value).
RuleResult aten_rrelu_with_noise(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const double lower = args.float_or("lower", 0.125), upper = args.float_or("upper", 1.0 / 3);
  const std::string x = args.tensor("self");
  if (!args.bool_or("training", false)) {
    if (ctx.output_used(1)) ctx.set_output(1, args.tensor("noise"));
    return emitted(ctx, ctx.emit("LeakyRelu", {x}, {Attr("alpha", (lower + upper) / 2)}));
  }
  const DType type = args.dtype_of("self");
  const std::string slope = ctx.emit("RandomUniformLike", {x}, {Attr("low", lower), Attr("high", upper), Attr("dtype", int64_t{onnx_dtype(type)})});
  const std::string noise = ctx.emit("Where", {ctx.emit("LessOrEqual", {x, ctx.const_scalar(0, type)}), slope, ctx.const_scalar(1, type)});
  if (ctx.output_used(1)) ctx.set_output(1, noise);
  return emitted(ctx, ctx.emit("Mul", {x, noise}));
}

}  // namespace

void register_activation_rules(RuleTable& t) {
  t.add("aten.relu.default", aten_relu);
  t.add("aten.relu_.default", aten_relu);
  t.add("aten.sigmoid.default", aten_sigmoid);
  t.add("aten.sigmoid_.default", aten_sigmoid);
  t.add("aten.tanh.default", aten_tanh);
  t.add("aten.tanh_.default", aten_tanh);
  t.add("aten.silu.default", aten_silu);
  t.add("aten.silu_.default", aten_silu);
  t.add("aten.mish.default", aten_mish);
  t.add("aten.hardswish.default", aten_hardswish);
  t.add("aten.hardswish_.default", aten_hardswish);
  t.add("aten.hardsigmoid.default", aten_hardsigmoid);
  t.add("aten.hardsigmoid_.default", aten_hardsigmoid);
  t.add("aten.hardtanh.default", aten_hardtanh);
  t.add("aten.hardtanh_.default", aten_hardtanh);
  t.add("aten.relu6.default", aten_relu6);
  t.add("aten.selu.default", aten_selu);
  t.add("aten.selu_.default", aten_selu);
  t.add("aten.leaky_relu.default", aten_leaky_relu);
  t.add("aten.leaky_relu_.default", aten_leaky_relu);
  t.add("aten.rrelu_with_noise_functional.default", aten_rrelu_with_noise);
  t.add("aten.elu.default", aten_elu);
  t.add("aten.elu_.default", aten_elu);
  t.add("aten.softplus.default", aten_softplus);
  t.add("aten.prelu.default", aten_prelu);
  t.add("aten._prelu_kernel.default", aten_prelu);
  t.add("aten.glu.default", aten_glu);
  t.add_since(20, "aten.gelu.default", aten_gelu_opset20);
  t.add("aten.gelu.default", aten_gelu);
  t.add_since(20, "aten.gelu_.default", aten_gelu_opset20);
  t.add("aten.gelu_.default", aten_gelu);
  t.add("aten.softmax.int", aten_softmax);
  t.add("aten._softmax.default", aten_softmax);
  t.add("aten.log_softmax.int", aten_log_softmax);
  t.add("aten._log_softmax.default", aten_log_softmax);
  t.add("aten._safe_softmax.default", aten_safe_softmax);
  // torch.special's names of the same functions.
  t.add("aten.special_expit.default", aten_sigmoid);
  t.add("aten.special_softmax.default", aten_softmax);
  t.add("aten.special_log_softmax.default", aten_log_softmax);
}

}  // namespace pt2onnx::translate
