// Elementwise rules: arithmetic with torch's type promotion, math functions, comparisons,
// logical ops, where/masked_fill, clamp. In-place variants share the out-of-place rule.
#include <cmath>
#include <numbers>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/integer_pow.h"
#include "translate/rules/register_all.h"
#include "translate/typed_emit.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// The node's result type, else what torch would compute from the operands.
DType arithmetic_dtype(const ArgReader& args, const std::vector<std::string>& names) {
  return result_dtype(args, torch_result_type(args, names));
}

// self (op) other * alpha, in the result type. Bool tensors add as logical or.
RuleResult binary_with_alpha(EmitContext& ctx, const ir::Node& node, std::string_view op, bool reversed) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "other"});
  std::string self = operand_as(ctx, args, "self", type);
  std::string other = operand_as(ctx, args, "other", type);
  if (args.has("alpha") && args.scalar_number("alpha") != 1.0) other = ctx.emit("Mul", {other, args.scalar("alpha", type)});
  if (reversed) std::swap(self, other);
  if (type == DType::kBool && op == "Add") return emitted(ctx, ctx.emit("Or", {self, other}));
  return emitted(ctx, ctx.emit(op, {self, other}));
}

RuleResult binary_plain(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "other"});
  const std::string self = operand_as(ctx, args, "self", type);
  const std::string other = operand_as(ctx, args, "other", type);
  if (type == DType::kBool && op == "Mul") return emitted(ctx, ctx.emit("And", {self, other}));
  return emitted(ctx, emit_in(ctx, op, {self, other}, type));
}

// add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
RuleResult aten_add_tensor(EmitContext& ctx, const ir::Node& node) { return binary_with_alpha(ctx, node, "Add", false); }
// _add_relu.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor; _add_relu.Scalar(Tensor
// self, Scalar other, Scalar alpha=1): add's value, then Relu (the kernel torch's add-relu fusion writes)
RuleResult aten_add_relu(EmitContext& ctx, const ir::Node& node) {
  binary_with_alpha(ctx, node, "Add", false);
  ArgReader args(ctx, node);
  return emitted(ctx, emit_in(ctx, "Relu", {ctx.output_value(0)}, arithmetic_dtype(args, {"self", "other"})));
}
// sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
RuleResult aten_sub_tensor(EmitContext& ctx, const ir::Node& node) { return binary_with_alpha(ctx, node, "Sub", false); }
// rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor   (other - alpha * self)
RuleResult aten_rsub_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "other"});
  std::string self = operand_as(ctx, args, "self", type);
  if (args.has("alpha") && args.scalar_number("alpha") != 1.0) self = ctx.emit("Mul", {self, args.scalar("alpha", type)});
  return emitted(ctx, ctx.emit("Sub", {operand_as(ctx, args, "other", type), self}));
}
// mul.Tensor(Tensor self, Tensor other) -> Tensor
RuleResult aten_mul_tensor(EmitContext& ctx, const ir::Node& node) { return binary_plain(ctx, node, "Mul"); }

// div.Tensor(Tensor self, Tensor other) -> Tensor   (true division: ints become float)
RuleResult aten_div_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  DType type = arithmetic_dtype(args, {"self", "other"});
  if (!is_floating(type) && !is_complex(type)) type = DType::kFloat32;
  return emitted(ctx, ctx.emit("Div", {operand_as(ctx, args, "self", type), operand_as(ctx, args, "other", type)}));
}

// Integer or float division with rounding "trunc" or "floor" in `type`.
std::string rounded_div(EmitContext& ctx, const std::string& a, const std::string& b, DType type, const std::string& mode) {
  if (is_floating(type)) {
    const std::string q = ctx.emit("Div", {a, b});
    if (mode == "floor") return ctx.emit("Floor", {q});
    return ctx.emit("Mul", {ctx.emit("Sign", {q}), ctx.emit("Floor", {ctx.emit("Abs", {q})})});
  }
  if (mode == "floor") return int_floor_div(ctx, a, b);
  // trunc: |a| // |b| with the sign of a*b.
  const std::string magnitude = int_floor_div(ctx, ctx.emit("Abs", {a}), ctx.emit("Abs", {b}));
  return ctx.emit("Mul", {ctx.emit("Mul", {ctx.emit("Sign", {a}), ctx.emit("Sign", {b})}), magnitude});
}

// div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor
RuleResult aten_div_tensor_mode(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string mode = args.string_or("rounding_mode", "");
  if (mode.empty()) return aten_div_tensor(ctx, node);
  PT2ONNX_CHECK(mode == "trunc" || mode == "floor", ErrorCode::kUnsupported, "rounding_mode '" + mode + "'");
  const DType type = arithmetic_dtype(args, {"self", "other"});
  return emitted(ctx, rounded_div(ctx, operand_as(ctx, args, "self", type), operand_as(ctx, args, "other", type), type, mode));
}

// floor_divide(Tensor self, Tensor other) -> Tensor
RuleResult aten_floor_divide(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "other"});
  return emitted(ctx, rounded_div(ctx, operand_as(ctx, args, "self", type), operand_as(ctx, args, "other", type), type, "floor"));
}

// remainder.Tensor(Tensor self, Tensor other) -> Tensor   (Python modulo: sign of the divisor)
RuleResult aten_remainder(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "other"});
  const std::string a = operand_as(ctx, args, "self", type), b = operand_as(ctx, args, "other", type);
  if (!is_floating(type)) return emitted(ctx, ctx.emit("Mod", {a, b}, {Attr("fmod", 0)}));
  // a - floor(a / b) * b, as torch computes it for floats.
  return emitted(ctx, ctx.emit("Sub", {a, ctx.emit("Mul", {ctx.emit("Floor", {ctx.emit("Div", {a, b})}), b})}));
}

// fmod.Tensor(Tensor self, Tensor other) -> Tensor   (C fmod: sign of the dividend)
RuleResult aten_fmod(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "other"});
  return emitted(ctx, ctx.emit("Mod", {operand_as(ctx, args, "self", type), operand_as(ctx, args, "other", type)},
                               {Attr("fmod", 1)}));
}

// ---- unary ------------------------------------------------------------------------------------

// A unary op computed in the result dtype (ints become float for float-only functions).
RuleResult unary_in_result_type(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  return emitted(ctx, emit_in(ctx, op, {cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type)}, type));
}

// floor and ceil: the input itself for integers and bools (torch returns it unchanged).
RuleResult rounding_unary(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  if (!is_floating(args.dtype_of("self"))) return emitted(ctx, args.tensor("self"));
  return unary_in_result_type(ctx, node, op);
}

RuleResult aten_neg(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Neg"); }  // neg(Tensor self)
RuleResult aten_abs(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Abs"); }  // abs(Tensor self)
RuleResult aten_exp(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Exp"); }  // exp(Tensor self)
RuleResult aten_log(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Log"); }  // log(Tensor self)
RuleResult aten_sqrt(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Sqrt"); }  // sqrt(Tensor self)
RuleResult aten_sin(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Sin"); }  // sin(Tensor self)
RuleResult aten_cos(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Cos"); }  // cos(Tensor self)
RuleResult aten_tan(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Tan"); }  // tan(Tensor self)
RuleResult aten_erf(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Erf"); }  // erf(Tensor self)
RuleResult aten_floor(EmitContext& ctx, const ir::Node& node) { return rounding_unary(ctx, node, "Floor"); }  // floor(Tensor self)
RuleResult aten_ceil(EmitContext& ctx, const ir::Node& node) { return rounding_unary(ctx, node, "Ceil"); }  // ceil(Tensor self)
RuleResult aten_sign(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Sign"); }  // sign(Tensor self)
RuleResult aten_reciprocal(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Reciprocal"); }  // reciprocal(Tensor self)
RuleResult aten_asin(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Asin"); }  // asin(Tensor self)
RuleResult aten_acos(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Acos"); }  // acos(Tensor self)
RuleResult aten_atan(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Atan"); }  // atan(Tensor self)
RuleResult aten_sinh(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Sinh"); }  // sinh(Tensor self)
RuleResult aten_cosh(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Cosh"); }  // cosh(Tensor self)
RuleResult aten_asinh(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Asinh"); }  // asinh(Tensor self)
RuleResult aten_acosh(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Acosh"); }  // acosh(Tensor self)
RuleResult aten_atanh(EmitContext& ctx, const ir::Node& node) { return unary_in_result_type(ctx, node, "Atanh"); }  // atanh(Tensor self)

// trunc(Tensor self) -> Tensor   (ONNX has no Trunc: sign(x) * floor(|x|), which keeps -0, inf, NaN)
RuleResult aten_trunc(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!is_floating(args.dtype_of("self"))) return emitted(ctx, args.tensor("self"));
  return emitted(ctx, trunc_values(ctx, args.tensor("self")));
}

// atan2(Tensor self, Tensor other) -> Tensor   (self is y, other is x; ints become float). ONNX has
// no Atan2; this follows C's atan2 through every quadrant, both axes, signed zeros and infinities.
RuleResult aten_atan2(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  DType type = arithmetic_dtype(args, {"self", "other"});
  if (!is_floating(type)) type = DType::kFloat32;
  return emitted(ctx, atan2_values(ctx, operand_as(ctx, args, "self", type), operand_as(ctx, args, "other", type), type));
}

}  // namespace

std::string trunc_values(EmitContext& ctx, const std::string& x) {
  return ctx.emit("Mul", {ctx.emit("Sign", {x}), ctx.emit("Floor", {ctx.emit("Abs", {x})})});
}

std::string atan2_values(EmitContext& ctx, std::string y, std::string x, DType type) {
  const std::string zero = ctx.const_scalar(0, type);
  // Both infinite: the angle is that of (sign y, sign x), a multiple of pi/4.
  const std::string both_inf = ctx.emit("And", {emit_in(ctx, "IsInf", {x}, type), emit_in(ctx, "IsInf", {y}, type)});
  const std::string y_in = y, x_in = x;
  y = ctx.emit("Where", {both_inf, ctx.emit("Sign", {y_in}), y_in});
  x = ctx.emit("Where", {both_inf, ctx.emit("Sign", {x_in}), x_in});
  // The sign bit: v < 0, or 1/v < 0 for -0 (1/-0 = -inf).
  auto negative = [&](const std::string& v) {
    return ctx.emit("Or", {ctx.emit("Less", {v, zero}), ctx.emit("Less", {ctx.emit("Reciprocal", {v}), zero})});
  };
  const std::string y_negative = negative(y), x_negative = negative(x);
  const std::string pi = ctx.const_scalar(std::numbers::pi, type), minus_pi = ctx.const_scalar(-std::numbers::pi, type);
  const std::string shift = ctx.emit("Where", {y_negative, minus_pi, pi});
  // atan(y / x) is right for x > 0; x < 0 moves it by ±pi towards y's half plane.
  const std::string base = ctx.emit("Atan", {ctx.emit("Div", {y, x})});
  std::string result = ctx.emit("Where", {x_negative, ctx.emit("Add", {base, shift}), base});
  // x = ±0, y != 0: ±pi/2 by y's sign.
  const std::string on_y_axis = ctx.emit("Mul", {ctx.emit("Sign", {y}), ctx.const_scalar(std::numbers::pi / 2, type)});
  result = ctx.emit("Where", {ctx.emit("Equal", {x, zero}), on_y_axis, result});
  // y = ±0: y itself when x's sign bit is clear, else ±pi.
  result = ctx.emit("Where", {ctx.emit("Equal", {y, zero}), ctx.emit("Where", {x_negative, shift, y}), result});
  // A NaN operand gives NaN (x + y is NaN then).
  const std::string any_nan = ctx.emit("Or", {ctx.emit("IsNaN", {x}), ctx.emit("IsNaN", {y})});
  return ctx.emit("Where", {any_nan, ctx.emit("Add", {x, y}), result});
}

namespace {

// square(Tensor self) -> Tensor
RuleResult aten_square(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  return emitted(ctx, ctx.emit("Mul", {x, x}));
}

// log2(Tensor self) -> Tensor; log10 likewise (ln(x) / ln(base))
RuleResult log_base(EmitContext& ctx, const ir::Node& node, double base) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  return emitted(ctx, ctx.emit("Div", {ctx.emit("Log", {x}), ctx.const_scalar(std::log(base), type)}));
}
RuleResult aten_log2(EmitContext& ctx, const ir::Node& node) { return log_base(ctx, node, 2.0); }
RuleResult aten_log10(EmitContext& ctx, const ir::Node& node) { return log_base(ctx, node, 10.0); }

// round(Tensor self) -> Tensor   (half to even, like ONNX Round)
RuleResult aten_round(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!is_floating(args.dtype_of("self"))) return emitted(ctx, args.tensor("self"));
  return unary_in_result_type(ctx, node, "Round");
}

// rsqrt(Tensor self) -> Tensor
RuleResult aten_rsqrt(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  return emitted(ctx, ctx.emit("Reciprocal", {ctx.emit("Sqrt", {x})}));
}

// log1p(Tensor self) -> Tensor
RuleResult aten_log1p(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  return emitted(ctx, ctx.emit("Log", {ctx.emit("Add", {x, ctx.const_scalar(1, type)})}));
}

// expm1(Tensor self) -> Tensor
RuleResult aten_expm1(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  return emitted(ctx, ctx.emit("Sub", {ctx.emit("Exp", {x}), ctx.const_scalar(1, type)}));
}

// isnan(Tensor self) -> Tensor
RuleResult aten_isnan(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!is_floating(args.dtype_of("self"))) {
    return emitted(ctx, ctx.emit("Expand", {ctx.const_bool(false), ctx.shape_of(args.tensor("self"))}));
  }
  return emitted(ctx, ctx.emit("IsNaN", {args.tensor("self")}));
}

// isinf(Tensor self) -> Tensor
RuleResult aten_isinf(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!is_floating(args.dtype_of("self"))) {
    return emitted(ctx, ctx.emit("Expand", {ctx.const_bool(false), ctx.shape_of(args.tensor("self"))}));
  }
  return emitted(ctx, emit_in(ctx, "IsInf", {args.tensor("self")}, args.dtype_of("self")));
}

// ---- pow --------------------------------------------------------------------------------------

// pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
RuleResult aten_pow_tensor_scalar(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "exponent"});
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  if (args.is_static_int("exponent") || std::holds_alternative<ir::SymFloatArg>(args.arg("exponent"))) {
    // torch evaluates these exponents with the plain operations; doing the same keeps its numbers.
    const double e = args.scalar_number("exponent");
    if (e == 1.0) return emitted(ctx, x);
    if (e == 2.0) return emitted(ctx, ctx.emit("Mul", {x, x}));
    if (e == 3.0) return emitted(ctx, ctx.emit("Mul", {ctx.emit("Mul", {x, x}), x}));
    if (is_floating(type)) {
      if (e == 0.5) return emitted(ctx, ctx.emit("Sqrt", {x}));
      if (e == -0.5) return emitted(ctx, ctx.emit("Reciprocal", {ctx.emit("Sqrt", {x})}));
      if (e == -1.0) return emitted(ctx, ctx.emit("Reciprocal", {x}));
      if (e == -2.0) return emitted(ctx, ctx.emit("Reciprocal", {ctx.emit("Mul", {x, x})}));
    }
  }
  if (ir::is_integral(type)) return emitted(ctx, integer_pow(ctx, x, args.scalar("exponent", type), type));
  return emitted(ctx, ctx.emit("Pow", {x, args.scalar("exponent", type)}));
}

// pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
RuleResult aten_pow_tensor_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "exponent"});
  const std::string base = operand_as(ctx, args, "self", type), exponent = operand_as(ctx, args, "exponent", type);
  if (ir::is_integral(type)) return emitted(ctx, integer_pow(ctx, base, exponent, type));
  return emitted(ctx, ctx.emit("Pow", {base, exponent}));
}

// pow.Scalar(Scalar self, Tensor exponent) -> Tensor
RuleResult aten_pow_scalar(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "exponent"});
  const std::string base = args.scalar("self", type), exponent = operand_as(ctx, args, "exponent", type);
  if (ir::is_integral(type)) return emitted(ctx, integer_pow(ctx, base, exponent, type));
  return emitted(ctx, ctx.emit("Pow", {base, exponent}));
}

// ---- min / max / clamp ------------------------------------------------------------------------

// maximum(Tensor self, Tensor other) -> Tensor
RuleResult aten_maximum(EmitContext& ctx, const ir::Node& node) { return binary_plain(ctx, node, "Max"); }
// minimum(Tensor self, Tensor other) -> Tensor
RuleResult aten_minimum(EmitContext& ctx, const ir::Node& node) { return binary_plain(ctx, node, "Min"); }

// clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor; also clamp.Tensor
RuleResult aten_clamp(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "min", "max"});
  std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  // Max then Min (not Clip): bounds may be tensors, and torch applies min first, then max.
  if (args.has("min")) x = emit_in(ctx, "Max", {x, operand_as(ctx, args, "min", type)}, type);
  if (args.has("max")) x = emit_in(ctx, "Min", {x, operand_as(ctx, args, "max", type)}, type);
  return emitted(ctx, x);
}

// clamp_min(Tensor self, Scalar min) -> Tensor
RuleResult aten_clamp_min(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "min"});
  return emitted(ctx, emit_in(ctx, "Max", {cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type),
                                           operand_as(ctx, args, "min", type)}, type));
}

// clamp_max(Tensor self, Scalar max) -> Tensor
RuleResult aten_clamp_max(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "max"});
  return emitted(ctx, emit_in(ctx, "Min", {cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type),
                                           operand_as(ctx, args, "max", type)}, type));
}

// ---- comparisons ------------------------------------------------------------------------------

RuleResult comparison(EmitContext& ctx, const ir::Node& node, std::string_view op, bool negate = false) {
  ArgReader args(ctx, node);
  DType type = torch_result_type(args, {"self", "other"});
  // ONNX orders no bools; compare them as int32.
  if (type == DType::kBool && op != "Equal") type = DType::kInt32;
  const std::string result = ctx.emit(op, {operand_as(ctx, args, "self", type), operand_as(ctx, args, "other", type)});
  return emitted(ctx, negate ? ctx.emit("Not", {result}) : result);
}

RuleResult aten_eq(EmitContext& ctx, const ir::Node& node) { return comparison(ctx, node, "Equal"); }  // eq.Tensor / eq.Scalar
RuleResult aten_ne(EmitContext& ctx, const ir::Node& node) { return comparison(ctx, node, "Equal", true); }  // ne.Tensor / ne.Scalar
RuleResult aten_lt(EmitContext& ctx, const ir::Node& node) { return comparison(ctx, node, "Less"); }  // lt.Tensor / lt.Scalar
RuleResult aten_le(EmitContext& ctx, const ir::Node& node) { return comparison(ctx, node, "LessOrEqual"); }  // le.Tensor / le.Scalar
RuleResult aten_gt(EmitContext& ctx, const ir::Node& node) { return comparison(ctx, node, "Greater"); }  // gt.Tensor / gt.Scalar
RuleResult aten_ge(EmitContext& ctx, const ir::Node& node) { return comparison(ctx, node, "GreaterOrEqual"); }  // ge.Tensor / ge.Scalar

// ---- logical ----------------------------------------------------------------------------------

std::string as_bool(EmitContext& ctx, const ArgReader& args, const std::string& name) {
  return cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kBool);
}

RuleResult logical_binary(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  const std::string result = ctx.emit(op, {as_bool(ctx, args, "self"), as_bool(ctx, args, "other")});
  return emitted(ctx, cast_if_needed(ctx, result, DType::kBool, result_dtype(args, DType::kBool)));
}

RuleResult aten_logical_and(EmitContext& ctx, const ir::Node& node) { return logical_binary(ctx, node, "And"); }  // logical_and(Tensor self, Tensor other)
RuleResult aten_logical_or(EmitContext& ctx, const ir::Node& node) { return logical_binary(ctx, node, "Or"); }  // logical_or(Tensor self, Tensor other)
RuleResult aten_logical_xor(EmitContext& ctx, const ir::Node& node) { return logical_binary(ctx, node, "Xor"); }  // logical_xor(Tensor self, Tensor other)

// logical_not(Tensor self) -> Tensor
RuleResult aten_logical_not(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string result = ctx.emit("Not", {as_bool(ctx, args, "self")});
  return emitted(ctx, cast_if_needed(ctx, result, DType::kBool, result_dtype(args, DType::kBool)));
}

// bitwise_not(Tensor self) -> Tensor   (bool only below opset 18)
RuleResult aten_bitwise_not(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (args.dtype_of("self") == DType::kBool) return emitted(ctx, ctx.emit("Not", {args.tensor("self")}));
  if (ctx.opset() < 18) return RuleResult::kDeclined;
  return emitted(ctx, ctx.emit("BitwiseNot", {args.tensor("self")}));
}

RuleResult bitwise_binary(EmitContext& ctx, const ir::Node& node, std::string_view bool_op, std::string_view int_op) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "other"});
  if (type != DType::kBool && ctx.opset() < 18) return RuleResult::kDeclined;
  const std::string a = operand_as(ctx, args, "self", type), b = operand_as(ctx, args, "other", type);
  return emitted(ctx, ctx.emit(type == DType::kBool ? bool_op : int_op, {a, b}));
}

RuleResult aten_bitwise_and(EmitContext& ctx, const ir::Node& node) { return bitwise_binary(ctx, node, "And", "BitwiseAnd"); }  // bitwise_and.Tensor
RuleResult aten_bitwise_or(EmitContext& ctx, const ir::Node& node) { return bitwise_binary(ctx, node, "Or", "BitwiseOr"); }  // bitwise_or.Tensor
RuleResult aten_bitwise_xor(EmitContext& ctx, const ir::Node& node) { return bitwise_binary(ctx, node, "Xor", "BitwiseXor"); }  // bitwise_xor.Tensor

// ---- selection --------------------------------------------------------------------------------

// where.self(Tensor condition, Tensor self, Tensor other) -> Tensor; also the Scalar overloads
RuleResult aten_where_self(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "other"});
  const std::string condition = as_bool(ctx, args, "condition");
  const std::string a = operand_as(ctx, args, "self", type), b = operand_as(ctx, args, "other", type);
  if (type == DType::kBool) {
    // onnxruntime has no bool Where: (c and a) or (not c and b).
    const std::string when_true = ctx.emit("And", {condition, a});
    return emitted(ctx, ctx.emit("Or", {when_true, ctx.emit("And", {ctx.emit("Not", {condition}), b})}));
  }
  return emitted(ctx, ctx.emit("Where", {condition, a, b}));
}

// fill.Scalar(Tensor self, Scalar value) -> Tensor; fill.Tensor, fill_ and zero_ alike
RuleResult aten_fill(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string value = args.has("value") ? operand_as(ctx, args, "value", type) : ctx.const_scalar(0, type);
  return emitted(ctx, ctx.emit("Expand", {value, ctx.shape_of(args.tensor("self"))}));
}

// masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor; also masked_fill.Tensor
RuleResult aten_masked_fill(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string mask = as_bool(ctx, args, "mask");
  return emitted(ctx, emit_where(ctx, mask, operand_as(ctx, args, "value", type), args.tensor("self"), type));
}


// ---- composite math functions: torch's formulas spelled in ONNX ops ---------------------------

// The float type a float function computes in: the node's result dtype, float32 for int operands.
DType float_type(const ArgReader& args, const std::vector<std::string>& names) {
  const DType type = arithmetic_dtype(args, names);
  return is_floating(type) ? type : DType::kFloat32;
}

using Composite = std::string (*)(EmitContext&, DType, const std::vector<std::string>&);

// Reads the tensor/Scalar arguments `names` in the float type and binds f(operands).
RuleResult composite(EmitContext& ctx, const ir::Node& node, const std::vector<std::string>& names, Composite f) {
  ArgReader args(ctx, node);
  const DType type = float_type(args, names);
  std::vector<std::string> xs;
  for (const std::string& n : names) xs.push_back(operand_as(ctx, args, n, type));
  return emitted(ctx, f(ctx, type, xs));
}

// x - trunc(x)
std::string frac_of(EmitContext& ctx, DType, const std::vector<std::string>& x) {
  return ctx.emit("Sub", {x[0], trunc_values(ctx, x[0])});
}
// sin(pi x) / (pi x), 1 at 0
std::string sinc_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) {
  const std::string pix = ctx.emit("Mul", {x[0], ctx.const_scalar(std::numbers::pi, type)});
  const std::string ratio = ctx.emit("Div", {ctx.emit("Sin", {pix}), pix});
  return ctx.emit("Where", {ctx.emit("Equal", {x[0], ctx.const_scalar(0, type)}), ctx.const_scalar(1, type), ratio});
}
// log(e^a + e^b) = max + log1p(exp(-|a - b|)); a itself when both are the same infinity.
std::string logaddexp_in(EmitContext& ctx, DType type, const std::vector<std::string>& x, double base) {
  const std::string& a = x[0];
  const std::string& b = x[1];
  const double ln_base = std::log(base);
  const std::string gap = ctx.emit("Mul", {ctx.emit("Abs", {ctx.emit("Sub", {a, b})}), ctx.const_scalar(-ln_base, type)});
  const std::string tail = ctx.emit("Log", {ctx.emit("Add", {ctx.emit("Exp", {gap}), ctx.const_scalar(1, type)})});
  std::string sum = ctx.emit("Add", {ctx.emit("Max", {a, b}), base == std::numbers::e ? tail : ctx.emit("Div", {tail, ctx.const_scalar(ln_base, type)})});
  const std::string same_inf = ctx.emit("And", {emit_in(ctx, "IsInf", {a}, type), ctx.emit("Equal", {a, b})});
  return ctx.emit("Where", {same_inf, a, sum});
}
std::string logaddexp_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) { return logaddexp_in(ctx, type, x, std::numbers::e); }
std::string logaddexp2_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) { return logaddexp_in(ctx, type, x, 2.0); }
// x * log(y) (log1p(y) for xlog1py), 0 where x == 0, NaN where y is NaN
std::string xlog_in(EmitContext& ctx, DType type, const std::vector<std::string>& x, bool plus_one) {
  const std::string y = plus_one ? ctx.emit("Add", {x[1], ctx.const_scalar(1, type)}) : x[1];
  const std::string product = ctx.emit("Mul", {x[0], ctx.emit("Log", {y})});
  const std::string zeroed = ctx.emit("Where", {ctx.emit("Equal", {x[0], ctx.const_scalar(0, type)}), ctx.const_scalar(0, type), product});
  return ctx.emit("Where", {ctx.emit("IsNaN", {x[1]}), ctx.const_scalar(NAN, type), zeroed});
}
std::string xlogy_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) { return xlog_in(ctx, type, x, false); }
std::string xlog1py_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) { return xlog_in(ctx, type, x, true); }
// -x log x for x > 0, 0 at 0, -inf below, NaN for NaN
std::string entr_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) {
  const std::string zero = ctx.const_scalar(0, type);
  const std::string positive = ctx.emit("Neg", {ctx.emit("Mul", {x[0], ctx.emit("Log", {x[0]})})});
  const std::string at_zero = ctx.emit("Where", {ctx.emit("Equal", {x[0], zero}), zero, positive});
  return ctx.emit("Where", {ctx.emit("Less", {x[0], zero}), ctx.const_scalar(-INFINITY, type), at_zero});
}
// 0.5 * (1 + erf(x / sqrt 2)): the standard normal CDF
std::string ndtr_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) {
  const std::string e = ctx.emit("Erf", {ctx.emit("Mul", {x[0], ctx.const_scalar(std::numbers::sqrt2 / 2, type)})});
  return ctx.emit("Mul", {ctx.emit("Add", {e, ctx.const_scalar(1, type)}), ctx.const_scalar(0.5, type)});
}
// 1 - erf(x)
std::string erfc_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) {
  return ctx.emit("Sub", {ctx.const_scalar(1, type), ctx.emit("Erf", {x[0]})});
}
// 2^x
std::string exp2_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) {
  return ctx.emit("Exp", {ctx.emit("Mul", {x[0], ctx.const_scalar(std::numbers::ln2, type)})});
}
// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))
std::string log_sigmoid_of(EmitContext& ctx, DType type, const std::vector<std::string>& x) {
  const std::string tail = ctx.emit("Log", {ctx.emit("Add", {ctx.emit("Exp", {ctx.emit("Neg", {ctx.emit("Abs", {x[0]})})}), ctx.const_scalar(1, type)})});
  return ctx.emit("Sub", {ctx.emit("Min", {x[0], ctx.const_scalar(0, type)}), tail});
}

RuleResult aten_frac(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self"}, frac_of); }  // frac(Tensor self)
RuleResult aten_sinc(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self"}, sinc_of); }  // sinc(Tensor self)
RuleResult aten_special_entr(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self"}, entr_of); }  // special_entr(Tensor self)
RuleResult aten_special_ndtr(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self"}, ndtr_of); }  // special_ndtr(Tensor self)
RuleResult aten_erfc(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self"}, erfc_of); }  // erfc(Tensor self)
RuleResult aten_exp2(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self"}, exp2_of); }  // exp2(Tensor self)
RuleResult aten_log_sigmoid(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self"}, log_sigmoid_of); }  // log_sigmoid(Tensor self)
// logaddexp(Tensor self, Tensor other) -> Tensor; logaddexp2 likewise in base 2
RuleResult aten_logaddexp(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self", "other"}, logaddexp_of); }
RuleResult aten_logaddexp2(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self", "other"}, logaddexp2_of); }
// xlogy.Tensor(Tensor self, Tensor other) -> Tensor; also Scalar_Self, Scalar_Other, special_xlogy
RuleResult aten_xlogy(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self", "other"}, xlogy_of); }
// special_xlog1py(Tensor self, Tensor other) -> Tensor
RuleResult aten_special_xlog1py(EmitContext& ctx, const ir::Node& node) { return composite(ctx, node, {"self", "other"}, xlog1py_of); }

// log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)   (the buffer is for backward)
RuleResult aten_log_sigmoid_forward(EmitContext& ctx, const ir::Node& node) {
  PT2ONNX_CHECK(!ctx.output_used(1), ErrorCode::kUnsupported, "the buffer output of log_sigmoid_forward is used");
  return composite(ctx, node, {"self"}, log_sigmoid_of);
}

// logit(Tensor self, float? eps=None) -> Tensor   (log(x / (1 - x)), x clamped to [eps, 1 - eps])
RuleResult aten_logit(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = float_type(args, {"self"});
  std::string x = operand_as(ctx, args, "self", type);
  if (auto eps = args.optional_float("eps")) {
    // torch's clamp tests the low bound first: with eps > 0.5 (low above high) values under eps
    // become eps and the rest 1 - eps, where Clip would give 1 - eps everywhere.
    const std::string low = ctx.const_scalar(*eps, type), high = ctx.const_scalar(1.0 - *eps, type);
    x = *eps > 0.5 ? ctx.emit("Where", {ctx.emit("Less", {x, low}), low, ctx.emit("Where", {ctx.emit("Greater", {x, high}), high, x})})
                   : ctx.emit("Clip", {x, low, high});
  }
  return emitted(ctx, ctx.emit("Log", {ctx.emit("Div", {x, ctx.emit("Sub", {ctx.const_scalar(1, type), x})})}));
}

// celu(Tensor self, Scalar alpha=1.0) -> Tensor   (max(0, x) + min(0, alpha * (exp(x / alpha) - 1)))
RuleResult aten_celu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = float_type(args, {"self"});
  const std::string x = operand_as(ctx, args, "self", type);
  const std::string alpha = args.has("alpha") ? args.scalar("alpha", type) : ctx.const_scalar(1, type);
  const std::string zero = ctx.const_scalar(0, type);
  const std::string curve = ctx.emit("Mul", {alpha, ctx.emit("Sub", {ctx.emit("Exp", {ctx.emit("Div", {x, alpha})}), ctx.const_scalar(1, type)})});
  return emitted(ctx, ctx.emit("Add", {ctx.emit("Max", {x, zero}), ctx.emit("Min", {curve, zero})}));
}

// heaviside(Tensor self, Tensor values) -> Tensor   (values where self == 0, else self > 0; NaN gives 0)
RuleResult aten_heaviside(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = arithmetic_dtype(args, {"self", "values"});
  const std::string x = operand_as(ctx, args, "self", type);
  const std::string step = ctx.cast(emit_in(ctx, "Greater", {x, ctx.const_scalar(0, type)}, type), type);
  const std::string zero = ctx.emit("Equal", {x, ctx.const_scalar(0, type)});
  return emitted(ctx, emit_where(ctx, zero, operand_as(ctx, args, "values", type), step, type));
}

// A bool result shaped like `self`, all `value` (what the float tests give for integer tensors).
std::string constant_mask(EmitContext& ctx, const ArgReader& args, bool value) {
  return ctx.emit("Expand", {ctx.const_bool(value), ctx.shape_of(args.tensor("self"))});
}

// isfinite(Tensor self) -> Tensor   (neither inf nor NaN; always true for integers)
RuleResult aten_isfinite(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!is_floating(args.dtype_of("self"))) return emitted(ctx, constant_mask(ctx, args, true));
  const std::string x = args.tensor("self");
  const DType type = args.dtype_of("self");
  return emitted(ctx, ctx.emit("Not", {ctx.emit("Or", {emit_in(ctx, "IsInf", {x}, type), emit_in(ctx, "IsNaN", {x}, type)})}));
}

// isposinf(Tensor self) -> Tensor; isneginf likewise
RuleResult signed_isinf(EmitContext& ctx, const ir::Node& node, bool positive) {
  ArgReader args(ctx, node);
  if (!is_floating(args.dtype_of("self"))) return emitted(ctx, constant_mask(ctx, args, false));
  return emitted(ctx, emit_in(ctx, "IsInf", {args.tensor("self")}, args.dtype_of("self"),
                               {Attr("detect_positive", positive ? 1 : 0), Attr("detect_negative", positive ? 0 : 1)}));
}
RuleResult aten_isposinf(EmitContext& ctx, const ir::Node& node) { return signed_isinf(ctx, node, true); }
RuleResult aten_isneginf(EmitContext& ctx, const ir::Node& node) { return signed_isinf(ctx, node, false); }

// signbit(Tensor self) -> Tensor   (x < 0, or -0.0: 1/x = -inf; a NaN's sign bit is not visible in ONNX
// arithmetic and reads as clear)
RuleResult aten_signbit(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string x = args.tensor("self");
  if (type == DType::kBool) return emitted(ctx, constant_mask(ctx, args, false));
  const std::string zero = ctx.const_scalar(0, type);
  const std::string negative = ctx.emit("Less", {x, zero});
  if (!is_floating(type)) return emitted(ctx, negative);
  return emitted(ctx, ctx.emit("Or", {negative, ctx.emit("Less", {ctx.emit("Reciprocal", {x}), zero})}));
}

// lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor; lerp.Tensor alike. torch's two-sided
// form: self + w * (end - self) for |w| < 0.5, else end - (end - self) * (1 - w).
RuleResult aten_lerp(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = float_type(args, {"self", "end", "weight"});
  const std::string a = operand_as(ctx, args, "self", type), b = operand_as(ctx, args, "end", type);
  const std::string w = operand_as(ctx, args, "weight", type);
  const std::string diff = ctx.emit("Sub", {b, a});
  const std::string low = ctx.emit("Add", {a, ctx.emit("Mul", {w, diff})});
  const std::string high = ctx.emit("Sub", {b, ctx.emit("Mul", {diff, ctx.emit("Sub", {ctx.const_scalar(1, type), w})})});
  return emitted(ctx, ctx.emit("Where", {ctx.emit("Less", {ctx.emit("Abs", {w}), ctx.const_scalar(0.5, type)}), low, high}));
}

// addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor; addcdiv with Div
RuleResult add_scaled_combination(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  DType type = arithmetic_dtype(args, {"self", "tensor1", "tensor2"});
  if (op == "Div" && !is_floating(type)) type = DType::kFloat32;
  std::string term = ctx.emit(op, {operand_as(ctx, args, "tensor1", type), operand_as(ctx, args, "tensor2", type)});
  if (args.has("value") && args.scalar_number("value") != 1.0) term = ctx.emit("Mul", {args.scalar("value", type), term});
  return emitted(ctx, ctx.emit("Add", {operand_as(ctx, args, "self", type), term}));
}
RuleResult aten_addcmul(EmitContext& ctx, const ir::Node& node) { return add_scaled_combination(ctx, node, "Mul"); }
RuleResult aten_addcdiv(EmitContext& ctx, const ir::Node& node) { return add_scaled_combination(ctx, node, "Div"); }

// add, sub, rsub, mul, div and the integer divisions, with their in-place and Scalar overloads.
void add_arithmetic_rules(RuleTable& t) {
  t.add("aten.add.Tensor", aten_add_tensor);
  t.add("aten.add.Scalar", aten_add_tensor);
  t.add("aten.add_.Tensor", aten_add_tensor);
  t.add("aten.add_.Scalar", aten_add_tensor);
  t.add("aten._add_relu.Tensor", aten_add_relu);
  t.add("aten._add_relu.Scalar", aten_add_relu);
  t.add("aten.sub.Tensor", aten_sub_tensor);
  t.add("aten.sub.Scalar", aten_sub_tensor);
  t.add("aten.sub_.Tensor", aten_sub_tensor);
  t.add("aten.sub_.Scalar", aten_sub_tensor);
  t.add("aten.rsub.Tensor", aten_rsub_tensor);
  t.add("aten.rsub.Scalar", aten_rsub_tensor);
  t.add("aten.mul.Tensor", aten_mul_tensor);
  t.add("aten.mul.Scalar", aten_mul_tensor);
  t.add("aten.mul_.Tensor", aten_mul_tensor);
  t.add("aten.mul_.Scalar", aten_mul_tensor);
  t.add("aten.div.Tensor", aten_div_tensor);
  t.add("aten.div.Scalar", aten_div_tensor);
  t.add("aten.div_.Tensor", aten_div_tensor);
  t.add("aten.div_.Scalar", aten_div_tensor);
  t.add("aten.div.Tensor_mode", aten_div_tensor_mode);
  t.add("aten.div.Scalar_mode", aten_div_tensor_mode);
  t.add("aten.floor_divide.default", aten_floor_divide);
  t.add("aten.floor_divide.Scalar", aten_floor_divide);
  t.add("aten.remainder.Tensor", aten_remainder);
  t.add("aten.remainder.Scalar", aten_remainder);
  t.add("aten.fmod.Tensor", aten_fmod);
  t.add("aten.fmod.Scalar", aten_fmod);
}

// One-operand math.
void add_unary_rules(RuleTable& t) {
  t.add("aten.neg.default", aten_neg);
  t.add("aten.abs.default", aten_abs);
  t.add("aten.exp.default", aten_exp);
  t.add("aten.log.default", aten_log);
  t.add("aten.sqrt.default", aten_sqrt);
  t.add("aten.rsqrt.default", aten_rsqrt);
  t.add("aten.reciprocal.default", aten_reciprocal);
  t.add("aten.sin.default", aten_sin);
  t.add("aten.cos.default", aten_cos);
  t.add("aten.tan.default", aten_tan);
  t.add("aten.asin.default", aten_asin);
  t.add("aten.acos.default", aten_acos);
  t.add("aten.atan.default", aten_atan);
  t.add("aten.sinh.default", aten_sinh);
  t.add("aten.cosh.default", aten_cosh);
  t.add("aten.asinh.default", aten_asinh);
  t.add("aten.acosh.default", aten_acosh);
  t.add("aten.atanh.default", aten_atanh);
  t.add("aten.trunc.default", aten_trunc);
  t.add("aten.fix.default", aten_trunc);
  t.add("aten.atan2.default", aten_atan2);
  t.add("aten.arctan2.default", aten_atan2);
  t.add("aten.erf.default", aten_erf);
  t.add("aten.floor.default", aten_floor);
  t.add("aten.ceil.default", aten_ceil);
  t.add("aten.round.default", aten_round);
  t.add("aten.sign.default", aten_sign);
  t.add("aten.log1p.default", aten_log1p);
  t.add("aten.expm1.default", aten_expm1);
  t.add("aten.isnan.default", aten_isnan);
  t.add("aten.isinf.default", aten_isinf);
}

// Powers, maxima, minima and clamps.
void add_power_and_bound_rules(RuleTable& t) {
  t.add("aten.pow.Tensor_Scalar", aten_pow_tensor_scalar);
  t.add("aten.pow.Tensor_Tensor", aten_pow_tensor_tensor);
  t.add("aten.pow.Scalar", aten_pow_scalar);

  t.add("aten.square.default", aten_square);
  t.add("aten.log2.default", aten_log2);
  t.add("aten.log10.default", aten_log10);
  t.add("aten.maximum.default", aten_maximum);
  t.add("aten.max.other", aten_maximum);
  t.add("aten.minimum.default", aten_minimum);
  t.add("aten.min.other", aten_minimum);
  t.add("aten.clamp.default", aten_clamp);
  t.add("aten.clamp.Tensor", aten_clamp);
  t.add("aten.clamp_.default", aten_clamp);
  t.add("aten.clip.default", aten_clamp);
  t.add("aten.clamp_min.default", aten_clamp_min);
  t.add("aten.clamp_max.default", aten_clamp_max);
  t.add("aten.clamp_min.Tensor", aten_clamp_min);  // clamp_min.Tensor(Tensor self, Tensor min)
  t.add("aten.clamp_max.Tensor", aten_clamp_max);
}

// Comparisons, logical and bitwise ops.
void add_comparison_and_logic_rules(RuleTable& t) {
  t.add("aten.eq.Tensor", aten_eq);
  t.add("aten.eq.Scalar", aten_eq);
  t.add("aten.ne.Tensor", aten_ne);
  t.add("aten.ne.Scalar", aten_ne);
  t.add("aten.lt.Tensor", aten_lt);
  t.add("aten.lt.Scalar", aten_lt);
  t.add("aten.le.Tensor", aten_le);
  t.add("aten.le.Scalar", aten_le);
  t.add("aten.gt.Tensor", aten_gt);
  t.add("aten.gt.Scalar", aten_gt);
  t.add("aten.ge.Tensor", aten_ge);
  t.add("aten.ge.Scalar", aten_ge);

  t.add("aten.logical_and.default", aten_logical_and);
  t.add("aten.logical_or.default", aten_logical_or);
  t.add("aten.logical_xor.default", aten_logical_xor);
  t.add("aten.logical_not.default", aten_logical_not);
  t.add("aten.bitwise_not.default", aten_bitwise_not, "integer bitwise_not needs opset 18");
  // bitwise_and/or/xor and the __and__/__or__/__xor__ spellings the default IR writes; in the Scalar
  // overloads `other` is a Python int or bool, promoted like a tensor operand.
  const std::pair<const char*, RuleFn> bitwise[] = {{"aten.bitwise_and", aten_bitwise_and}, {"aten.__and__", aten_bitwise_and},
                                                    {"aten.bitwise_or", aten_bitwise_or},   {"aten.__or__", aten_bitwise_or},
                                                    {"aten.bitwise_xor", aten_bitwise_xor}, {"aten.__xor__", aten_bitwise_xor}};
  for (const auto& [op, fn] : bitwise)
    for (const char* overload : {".Tensor", ".Scalar"})
      t.add(std::string(op) + overload, fn, "integer bitwise ops need opset 18");
}

// fill, where and masked_fill.
void add_fill_and_select_rules(RuleTable& t) {
  t.add("aten.fill.Scalar", aten_fill);
  t.add("aten.fill.Tensor", aten_fill);
  t.add("aten.fill_.Scalar", aten_fill);
  t.add("aten.fill_.Tensor", aten_fill);
  t.add("aten.zero_.default", aten_fill);
  t.add("aten.zero.default", aten_fill);
  t.add("aten.where.self", aten_where_self);
  t.add("aten.where.ScalarSelf", aten_where_self);
  t.add("aten.where.ScalarOther", aten_where_self);
  t.add("aten.where.Scalar", aten_where_self);
  t.add("aten.masked_fill.Scalar", aten_masked_fill);
  t.add("aten.masked_fill.Tensor", aten_masked_fill);
  t.add("aten.masked_fill_.Scalar", aten_masked_fill);
  t.add("aten.masked_fill_.Tensor", aten_masked_fill);
}

// Composite math functions.
void add_composite_rules(RuleTable& t) {
  t.add("aten.frac.default", aten_frac);
  t.add("aten.sinc.default", aten_sinc);
  t.add("aten.special_sinc.default", aten_sinc);
  t.add("aten.special_entr.default", aten_special_entr);
  t.add("aten.special_ndtr.default", aten_special_ndtr);
  t.add("aten.erfc.default", aten_erfc);
  t.add("aten.special_erfc.default", aten_erfc);
  t.add("aten.special_erf.default", aten_erf);
  t.add("aten.exp2.default", aten_exp2);
  t.add("aten.special_exp2.default", aten_exp2);
  t.add("aten.special_log1p.default", aten_log1p);
  t.add("aten.special_expm1.default", aten_expm1);
  t.add("aten.log_sigmoid.default", aten_log_sigmoid);
  t.add("aten.log_sigmoid_forward.default", aten_log_sigmoid_forward);
  t.add("aten.logaddexp.default", aten_logaddexp);
  t.add("aten.logaddexp2.default", aten_logaddexp2);
  t.add("aten.xlogy.Tensor", aten_xlogy);
  t.add("aten.xlogy.Scalar_Self", aten_xlogy);
  t.add("aten.xlogy.Scalar_Other", aten_xlogy);
  t.add("aten.special_xlogy.default", aten_xlogy);
  t.add("aten.special_xlog1py.default", aten_special_xlog1py);
  t.add("aten.logit.default", aten_logit);
  t.add("aten.special_logit.default", aten_logit);
  t.add("aten.celu.default", aten_celu);
  t.add("aten.heaviside.default", aten_heaviside);
  t.add("aten.isfinite.default", aten_isfinite);
  t.add("aten.isposinf.default", aten_isposinf);
  t.add("aten.isneginf.default", aten_isneginf);
  t.add("aten.signbit.default", aten_signbit);
  t.add("aten.lerp.Scalar", aten_lerp);
  t.add("aten.lerp.Tensor", aten_lerp);
  t.add("aten.addcmul.default", aten_addcmul);
  t.add("aten.addcdiv.default", aten_addcdiv);
}

}  // namespace

void register_elementwise_rules(RuleTable& t) {
  add_arithmetic_rules(t);
  add_unary_rules(t);
  add_power_and_bound_rules(t);
  add_comparison_and_logic_rules(t);
  add_fill_and_select_rules(t);
  add_composite_rules(t);
}

}  // namespace pt2onnx::translate
