// Elementwise functions added for torchlib parity: bit shifts (as multiplication and floor division
// by powers of two, ONNX BitShift being unsigned-only), deg2rad/rad2deg, angle of real numbers,
// isclose, determinants (ONNX Det), eye (EyeLike), bilinear (Einsum), the scaled complementary
// error function special_erfcx (and special_log_ndtr through it), gcd/lcm (Euclid in a Loop) and
// nextafter (by exponent arithmetic).
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/typed_emit.h"
#include "translate/rule_helpers.h"
#include "translate/subgraph_body.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

bool is_float(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 || t == DType::kBFloat16;
}

// x << n or x >> n (arithmetic) for shifts in [0, bits): uint8 as BitShift, signed ints in int64
// as x * 2^n and floor(x / 2^n), then cast back (a left shift wraps as torch's does).
RuleResult shift(EmitContext& ctx, const ir::Node& node, bool left) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, torch_result_type(args, {"self", "other"}));
  PT2ONNX_CHECK(!is_float(type) && type != DType::kBool, ErrorCode::kUnsupported,
                std::string("bit shift of ") + std::string(ir::dtype_name(type)));
  if (type == DType::kUInt8)
    return emitted(ctx, ctx.emit("BitShift", {operand_as(ctx, args, "self", type), operand_as(ctx, args, "other", type)},
                                 {Attr("direction", left ? "LEFT" : "RIGHT")}));
  const std::string x = operand_as(ctx, args, "self", DType::kInt64);
  const std::string n = ctx.cast(operand_as(ctx, args, "other", DType::kInt64), DType::kUInt64);
  const std::string one = ctx.const_scalar(1, DType::kUInt64);
  const std::string power = ctx.cast(ctx.emit("BitShift", {one, n}, {Attr("direction", "LEFT")}), DType::kInt64);
  const std::string out = left ? ctx.emit("Mul", {x, power}) : int_floor_div(ctx, x, power);
  return emitted(ctx, cast_if_needed(ctx, out, DType::kInt64, type));
}

// __lshift__.Scalar(Tensor self, Scalar other); .Tensor; bitwise_left_shift.Tensor/.Tensor_Scalar/.Scalar_Tensor
RuleResult aten_left_shift(EmitContext& ctx, const ir::Node& node) { return shift(ctx, node, true); }
// __rshift__.Scalar(Tensor self, Scalar other); .Tensor; bitwise_right_shift.Tensor/.Tensor_Scalar/.Scalar_Tensor
RuleResult aten_right_shift(EmitContext& ctx, const ir::Node& node) { return shift(ctx, node, false); }

// `self` times a constant in the result dtype (ints become the default float).
RuleResult scaled(EmitContext& ctx, const ir::Node& node, double factor) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, DType::kFloat32);
  return emitted(ctx, ctx.emit("Mul", {operand_as(ctx, args, "self", type), ctx.const_scalar(factor, type)}));
}
// deg2rad(Tensor self) -> Tensor
RuleResult aten_deg2rad(EmitContext& ctx, const ir::Node& node) { return scaled(ctx, node, std::numbers::pi / 180); }
// rad2deg(Tensor self) -> Tensor
RuleResult aten_rad2deg(EmitContext& ctx, const ir::Node& node) { return scaled(ctx, node, 180 / std::numbers::pi); }

// angle(Tensor self) -> Tensor   (real input: pi where negative, else 0; NaN stays NaN)
RuleResult aten_angle(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, DType::kFloat32);
  const std::string x = operand_as(ctx, args, "self", type);
  const std::string sign = ctx.emit("Where", {ctx.emit("Less", {x, ctx.const_scalar(0, type)}),
                                              ctx.const_scalar(std::numbers::pi, type), ctx.const_scalar(0, type)});
  return emitted(ctx, ctx.emit("Where", {ctx.emit("IsNaN", {x}), x, sign}));
}

// isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor
// equal, or |a - b| finite and <= atol + rtol * |b|; with equal_nan also both NaN
RuleResult aten_isclose(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  DType type = torch_result_type(args, {"self", "other"});
  if (!is_float(type)) type = DType::kFloat64;  // ints compare exactly in float64 (|values| < 2^53)
  const std::string a = operand_as(ctx, args, "self", type), b = operand_as(ctx, args, "other", type);
  const std::string error = ctx.emit("Abs", {ctx.emit("Sub", {a, b})});
  const std::string allowed = ctx.emit("Add", {ctx.const_scalar(args.float_or("atol", 1e-8), type),
      ctx.emit("Mul", {ctx.const_scalar(args.float_or("rtol", 1e-5), type), ctx.emit("Abs", {b})})});
  const std::string near = ctx.emit("And", {ctx.emit("Not", {emit_in(ctx, "IsInf", {error}, type)}),
                                            ctx.emit("LessOrEqual", {error, allowed})});
  std::string close = ctx.emit("Or", {ctx.emit("Equal", {a, b}), near});
  if (args.bool_or("equal_nan", false))
    close = ctx.emit("Or", {close, ctx.emit("And", {ctx.emit("IsNaN", {a}), ctx.emit("IsNaN", {b})})});
  return emitted(ctx, close);
}

// linalg_det(Tensor A) -> Tensor; det(Tensor self) -> Tensor
RuleResult aten_det(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Det", {args.tensor(args.has("A") ? "A" : "self")}));
}
// _linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)   (only the determinant)
RuleResult aten_linalg_det_parts(EmitContext& ctx, const ir::Node& node) {
  PT2ONNX_CHECK(!ctx.output_used(1) && !ctx.output_used(2), ErrorCode::kUnsupported,
                "_linalg_det's LU factors and pivots (only the determinant has an ONNX form)");
  return aten_det(ctx, node);
}
// _linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet, Tensor LU, Tensor pivots)   (core IR's logdet)
RuleResult aten_linalg_slogdet(EmitContext& ctx, const ir::Node& node) {
  PT2ONNX_CHECK(!ctx.output_used(2) && !ctx.output_used(3), ErrorCode::kUnsupported,
                "_linalg_slogdet's LU factors and pivots (only sign and log|det| have an ONNX form)");
  ArgReader args(ctx, node);
  const std::string det = ctx.emit("Det", {args.tensor("A")});
  ctx.set_output(0, ctx.emit("Sign", {det}));
  ctx.set_output(1, ctx.emit("Log", {ctx.emit("Abs", {det})}));
  return RuleResult::kEmitted;
}

// bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias) -> Tensor
// y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]
RuleResult aten_bilinear(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::string y = ctx.emit("Einsum", {args.tensor("input1"), args.tensor("weight"), args.tensor("input2")},
                           {Attr("equation", "...i,oij,...j->...o")});
  if (auto bias = args.optional_tensor("bias")) y = ctx.emit("Add", {y, *bias});
  return emitted(ctx, y);
}

// eye(SymInt n, *, ScalarType? dtype=None, ...); eye.m(SymInt n, SymInt m, *, ...)   (EyeLike of an n x m tensor)
RuleResult aten_eye(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype("dtype").value_or(DType::kFloat32));
  const std::string n = ctx.unsqueeze(args.int_value("n"), {0});
  const std::string m = args.has("m") ? ctx.unsqueeze(args.int_value("m"), {0}) : n;
  const std::string zeros = ctx.emit("ConstantOfShape", {ctx.concat({n, m}, 0)});
  return emitted(ctx, cast_if_needed(ctx, ctx.emit("EyeLike", {zeros}), DType::kFloat32, type));
}

// logdet(Tensor self) -> Tensor   (NaN for a negative determinant, -inf for zero, as torch)
RuleResult aten_logdet(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Log", {ctx.emit("Det", {args.tensor("self")})}));
}

// erfcx(|x|) = t exp(P(t)), t = 2 / (2 + |x|), P of degree 9: fitted here by least squares on
// Chebyshev nodes of t in (0, 1] against torch's float64 erfcx (the form of Numerical Recipes'
// erfcc; the fit lands on nearly its coefficients). Lowest order first.
constexpr std::array<double, 10> kErfcxPoly = {-1.2655122251416058, 1.000023680157798,   0.3740919597190645,
                                               0.0967841894848883,  -0.18628806163946865, 0.27886808438667304,
                                               -1.135204000237084,  1.488515889105413,    -0.8221522343483865,
                                               0.17087277766161582};

// erfcx(a) for float32 a >= 0 (or +inf: 0).
std::string erfcx_of_nonnegative(EmitContext& ctx, const std::string& a) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat32); };
  const std::string t = ctx.emit("Div", {c(2), ctx.emit("Add", {c(2), a})});
  std::string poly = c(kErfcxPoly.back());
  for (size_t i = kErfcxPoly.size() - 1; i-- > 0;) poly = ctx.emit("Add", {ctx.emit("Mul", {poly, t}), c(kErfcxPoly[i])});
  return ctx.emit("Mul", {t, ctx.emit("Exp", {poly})});
}

// special_erfcx(Tensor self) -> Tensor: exp(x^2) erfc(x) in float32 (4e-7 relative at most against
// float64 over the real line; torch's own float32 is within 4e-6). x >= 0: t exp(P(t)), which
// falls as 1/(x sqrt(pi)) without overflow. x < 0: 2 exp(x^2) - erfcx(-x), with x^2 split as
// h^2 + l(2h + l), h = x rounded to 1/64 towards 0 (h^2 exact), so exp(x^2) keeps float32
// accuracy up to where it overflows (x < -9.3825, inf as in torch). 16-bit floats are computed in
// float32; float64 is refused, as the approximation is not double-accurate.
RuleResult aten_special_erfcx(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType in = args.dtype_of("self");
  PT2ONNX_CHECK(in != DType::kFloat64, ErrorCode::kUnsupported,
                "special_erfcx of a float64 tensor: the translation is float32-accurate only (4e-7 relative)");
  const DType out = result_dtype(args, is_float(in) ? in : DType::kFloat32);
  const DType f = DType::kFloat32;
  const std::string x = cast_if_needed(ctx, args.tensor("self"), in, f);
  auto c = [&](double v) { return ctx.const_scalar(v, f); };
  const std::string positive = erfcx_of_nonnegative(ctx, ctx.emit("Abs", {x}));
  // -10 is past the overflow point; the clamp keeps -inf from making inf - inf in the split.
  const std::string xn = ctx.emit("Max", {ctx.emit("Min", {x, c(0)}), c(-10)});
  const std::string h = ctx.emit("Div", {ctx.emit("Ceil", {ctx.emit("Mul", {xn, c(64)})}), c(64)});
  const std::string l = ctx.emit("Sub", {xn, h});
  const std::string rest = ctx.emit("Mul", {l, ctx.emit("Add", {ctx.emit("Add", {h, h}), l})});
  const std::string twice_exp_sq =
      ctx.emit("Mul", {ctx.emit("Exp", {ctx.emit("Mul", {h, h})}), ctx.emit("Mul", {c(2), ctx.emit("Exp", {rest})})});
  const std::string negative = ctx.emit("Sub", {twice_exp_sq, positive});
  const std::string y = ctx.emit("Where", {ctx.emit("Less", {x, c(0)}), negative, positive});
  return emitted(ctx, cast_if_needed(ctx, y, f, out));
}

// special_log_ndtr(Tensor self) -> Tensor: log of the standard normal CDF, through erfcx so that
// neither tail underflows: x < 0: log(erfcx(-x / sqrt 2) / 2) - x^2 / 2; x >= 0: log1p(-q) with
// q = erfcx(x / sqrt 2) exp(-x^2 / 2) / 2 <= 1/2, as a series below 0.1 (Log(1 - q) would lose
// q's digits). float32 as special_erfcx; float64 refused.
RuleResult aten_special_log_ndtr(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType in = args.dtype_of("self");
  PT2ONNX_CHECK(in != DType::kFloat64, ErrorCode::kUnsupported,
                "special_log_ndtr of a float64 tensor: the translation is float32-accurate only");
  const DType out = result_dtype(args, is_float(in) ? in : DType::kFloat32);
  const DType f = DType::kFloat32;
  auto c = [&](double v) { return ctx.const_scalar(v, f); };
  const std::string x = cast_if_needed(ctx, args.tensor("self"), in, f);
  const std::string z = ctx.emit("Mul", {ctx.emit("Abs", {x}), c(std::numbers::sqrt2 / 2)});
  const std::string half_e = ctx.emit("Mul", {c(0.5), erfcx_of_nonnegative(ctx, z)});
  const std::string half_sq = ctx.emit("Mul", {ctx.emit("Mul", {x, x}), c(0.5)});
  const std::string negative = ctx.emit("Sub", {ctx.emit("Log", {half_e}), half_sq});
  const std::string q = ctx.emit("Mul", {half_e, ctx.emit("Exp", {ctx.emit("Neg", {half_sq})})});
  std::string series = c(1.0 / 8);  // -(q + q^2/2 + ... + q^8/8), error below q^9/9
  for (int k = 7; k >= 1; --k) series = ctx.emit("Add", {ctx.emit("Mul", {series, q}), c(1.0 / k)});
  series = ctx.emit("Neg", {ctx.emit("Mul", {series, q})});
  const std::string direct = ctx.emit("Log", {ctx.emit("Sub", {c(1), q})});
  const std::string positive = ctx.emit("Where", {ctx.emit("Less", {q, c(0.1)}), series, direct});
  const std::string y = ctx.emit("Where", {ctx.emit("Less", {x, c(0)}), negative, positive});
  return emitted(ctx, cast_if_needed(ctx, y, f, out));
}

// gcd(Tensor self, Tensor other) -> Tensor: Euclid's algorithm on |self| and |other| (broadcast), in
// an ONNX Loop that runs while some pair still has a nonzero remainder: (a, b) -> (b, a mod b);
// gcd(0, 0) = 0. Integer types only, as torch's.
std::string gcd_values(EmitContext& ctx, const ArgReader& args, DType type) {
  const std::string zero = ctx.const_scalar(0, type), one = ctx.const_scalar(1, type);
  const std::string a0 = ctx.emit("Abs", {operand_as(ctx, args, "self", type)}), b0 = ctx.emit("Abs", {operand_as(ctx, args, "other", type)});
  const std::string shape = ctx.shape_of(ctx.emit("Add", {a0, b0}));
  const std::string flat = ctx.const_i64s({-1}), int32_zero = ctx.const_scalar(0, DType::kInt32);
  onnx::GraphProto body;
  body.set_name(ctx.fresh_name("gcd_step"));
  add_scalar_input(ctx, body, "i", DType::kInt64);
  add_scalar_input(ctx, body, "cond", DType::kBool);
  const std::string a = add_typed_input(ctx, body, "a", type), b = add_typed_input(ctx, body, "b", type);
  auto step = [&](const std::string& op, const std::vector<std::string>& in, const std::vector<Attr>& attrs = {}) {
    return append_body_node(ctx, body, op, in, attrs);
  };
  const std::string live = step("Not", {step("Equal", {b, zero})});
  const std::string next_b = step("Where", {live, step("Mod", {a, step("Where", {live, b, one})}), zero});
  const std::string next_a = step("Where", {live, b, a});
  // The condition: some remainder is still nonzero (a 0-D bool; ReduceMax of an empty tensor is
  // the lowest int32, so an empty input stops at once).
  const std::string nonzero = step("Cast", {step("Not", {step("Equal", {next_b, zero})})}, {Attr("to", int64_t{onnx_dtype(DType::kInt32)})});
  const std::string more = step("Greater", {step("ReduceMax", {step("Reshape", {nonzero, flat})}, {Attr("keepdims", int64_t{0})}), int32_zero});
  add_typed_output(body, more, DType::kBool, true);
  add_typed_output(body, next_a, type);
  add_typed_output(body, step("Identity", {next_b}), type);
  const std::string a1 = ctx.emit("Expand", {a0, shape}), b1 = ctx.emit("Expand", {b0, shape});
  const std::string start = ctx.emit("Greater", {ctx.reduce("ReduceMax", ctx.cast(ctx.emit("Not", {ctx.emit("Equal", {b1, zero})}), DType::kInt32),
                                                            std::nullopt, false),
                                                 int32_zero});
  return ctx.emit("Loop", {"", start, a1, b1}, {Attr("body", std::move(body))}, 2)[0];
}
RuleResult aten_gcd(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, torch_result_type(args, {"self", "other"}));
  PT2ONNX_CHECK(is_integral(type), ErrorCode::kUnsupported, "gcd of " + std::string(ir::dtype_name(type)) + " (torch takes integers)");
  return emitted(ctx, gcd_values(ctx, args, type));
}
// lcm(Tensor self, Tensor other) -> Tensor: |self / gcd * other|, 0 where the gcd is 0.
RuleResult aten_lcm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, torch_result_type(args, {"self", "other"}));
  PT2ONNX_CHECK(is_integral(type), ErrorCode::kUnsupported, "lcm of " + std::string(ir::dtype_name(type)) + " (torch takes integers)");
  const std::string g = gcd_values(ctx, args, type), zero = ctx.const_scalar(0, type);
  const std::string zero_gcd = ctx.emit("Equal", {g, zero});
  const std::string quotient = ctx.emit("Div", {operand_as(ctx, args, "self", type), ctx.emit("Where", {zero_gcd, ctx.const_scalar(1, type), g})});
  const std::string value = ctx.emit("Abs", {ctx.emit("Mul", {quotient, operand_as(ctx, args, "other", type)})});
  return emitted(ctx, ctx.emit("Where", {zero_gcd, zero, value}));
}

// The binary layout of a floating type as nextafter needs it: significand digits (with the
// implicit bit), the least normal exponent, the greatest exponent and the greatest finite value.
struct FloatLayout {
  int digits, min_exp, max_exp;
  double max_finite;
};

FloatLayout float_layout(DType type) {
  switch (type) {
    case DType::kFloat16: return {11, -14, 15, 65504.0};
    case DType::kBFloat16: return {8, -126, 127, 3.3895313892515355e38};
    case DType::kFloat32: return {24, -126, 127, static_cast<double>(std::numeric_limits<float>::max())};
    case DType::kFloat64: return {53, -1022, 1023, std::numeric_limits<double>::max()};
    default: fail(ErrorCode::kUnsupported, std::string("nextafter of ") + std::string(ir::dtype_name(type)));
  }
}

// nextafter(Tensor self, Tensor other) -> Tensor: the representable value next to self toward
// other, by arithmetic (ONNX has no bit cast before opset 26). With e the exponent of |x| (Log,
// then corrected against exact powers of two, at least the least normal exponent), a step away
// from zero is 2^(e - digits + 1), a step toward zero from |x| == 2^e half that; adding the step
// is exact. x == other gives other, NaN gives NaN, 0 the least subnormal toward other, an
// infinity the greatest finite value. Half types run in float32, where every step of theirs is exact.
RuleResult aten_nextafter(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, torch_result_type(args, {"self", "other"}));
  const FloatLayout layout = float_layout(type);
  const DType f = type == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  const std::string x = cast_if_needed(ctx, operand_as(ctx, args, "self", type), type, f);
  const std::string y = cast_if_needed(ctx, operand_as(ctx, args, "other", type), type, f);
  auto c = [&](double v) { return ctx.const_scalar(v, f); };
  auto pow2 = [&](const std::string& e) { return ctx.emit("Pow", {c(2), e}); };
  auto clamp_exp = [&](const std::string& e) { return ctx.emit("Max", {ctx.emit("Min", {e, c(layout.max_exp)}), c(layout.min_exp)}); };
  const std::string a = ctx.emit("Abs", {x});
  std::string e = clamp_exp(ctx.emit("Floor", {ctx.emit("Mul", {ctx.emit("Log", {a}), c(1.0 / std::numbers::ln2)})}));
  e = ctx.emit("Sub", {e, ctx.cast(ctx.emit("Greater", {pow2(e), a}), f)});
  e = ctx.emit("Add", {e, ctx.cast(ctx.emit("LessOrEqual", {pow2(ctx.emit("Add", {e, c(1)})), a}), f)});
  e = clamp_exp(e);
  const std::string away_step = pow2(ctx.emit("Sub", {e, c(layout.digits - 1)}));
  const std::string at_power = ctx.emit("And", {ctx.emit("Equal", {a, pow2(e)}), ctx.emit("Greater", {e, c(layout.min_exp)})});
  const std::string toward_step = ctx.emit("Where", {at_power, ctx.emit("Mul", {away_step, c(0.5)}), away_step});
  const std::string up = ctx.emit("Greater", {y, x});
  const std::string away = ctx.emit("Or", {ctx.emit("Equal", {x, c(0)}), ctx.emit("Equal", {ctx.emit("Greater", {x, c(0)}), up})});
  const std::string step = ctx.emit("Where", {away, away_step, toward_step});
  std::string r = ctx.emit("Add", {x, ctx.emit("Where", {up, step, ctx.emit("Neg", {step})})});
  const std::string largest = ctx.emit("Mul", {ctx.emit("Sign", {x}), c(layout.max_finite)});
  r = ctx.emit("Where", {ctx.emit("IsInf", {x}), largest, r});
  r = ctx.emit("Where", {ctx.emit("Equal", {x, y}), y, r});
  const std::string nan = ctx.emit("Or", {ctx.emit("IsNaN", {x}), ctx.emit("IsNaN", {y})});
  r = ctx.emit("Where", {nan, ctx.emit("Add", {x, y}), r});
  // A zero result takes other's sign (x == other) or x's (a step onto zero); onnxruntime's Where
  // drops the sign of a zero, so it is set by a multiplication, the signs read as 1/v < 0.
  auto negative = [&](const std::string& v) { return ctx.emit("Less", {ctx.emit("Div", {c(1), v}), c(0)}); };
  const std::string equal = ctx.emit("Equal", {x, y});
  const std::string sign_source_negative = ctx.emit("Or", {ctx.emit("And", {equal, negative(y)}),
                                                           ctx.emit("And", {ctx.emit("Not", {equal}), negative(x)})});
  const std::string flip = ctx.emit("And", {ctx.emit("Equal", {r, c(0)}), sign_source_negative});
  r = ctx.emit("Mul", {r, ctx.emit("Where", {flip, c(-1), c(1)})});
  return emitted(ctx, cast_if_needed(ctx, r, f, type));
}

}  // namespace

void register_math_extra_rules(RuleTable& t) {
  t.add("aten.gcd.default", aten_gcd);
  t.add("aten.lcm.default", aten_lcm);
  for (const char* target : {"aten.__lshift__.Scalar", "aten.__lshift__.Tensor", "aten.bitwise_left_shift.Tensor",
                             "aten.bitwise_left_shift.Tensor_Scalar", "aten.bitwise_left_shift.Scalar_Tensor"})
    t.add(target, aten_left_shift);
  for (const char* target : {"aten.__rshift__.Scalar", "aten.__rshift__.Tensor", "aten.bitwise_right_shift.Tensor",
                             "aten.bitwise_right_shift.Tensor_Scalar", "aten.bitwise_right_shift.Scalar_Tensor"})
    t.add(target, aten_right_shift);
  t.add("aten.deg2rad.default", aten_deg2rad);
  t.add("aten.rad2deg.default", aten_rad2deg);
  t.add("aten.angle.default", aten_angle);
  t.add("aten.isclose.default", aten_isclose);
  t.add("aten.linalg_det.default", aten_det);
  t.add("aten.det.default", aten_det);
  t.add("aten._linalg_det.default", aten_linalg_det_parts);
  t.add("aten.logdet.default", aten_logdet);
  t.add("aten._linalg_slogdet.default", aten_linalg_slogdet);
  t.add("aten.eye.default", aten_eye);
  t.add("aten.bilinear.default", aten_bilinear);
  t.add("aten.eye.m", aten_eye);
  t.add("aten.special_erfcx.default", aten_special_erfcx);
  t.add("aten.special_log_ndtr.default", aten_special_log_ndtr);
  t.add("aten.nextafter.default", aten_nextafter);
}

}  // namespace pt2onnx::translate
