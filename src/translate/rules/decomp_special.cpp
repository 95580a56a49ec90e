// Special functions ONNX lacks, computed in float64 from their series: polygamma of order >= 1
// (through the Hurwitz zeta), special_zeta, the modified Bessel functions i0/i1 and their scaled
// forms, the Bessel functions J0/J1/Y0/Y1 and K0/K1 (scaled too), spherical_bessel_j0, the Airy function Ai, and frexp. Each result is cast back to the input's floating type.
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// The floating type a result has: the input's, float32 for integers and bools.
DType float_result(const ArgReader& args, const char* name) {
  const DType in = args.dtype_of(name);
  return is_floating(in) ? in : DType::kFloat32;
}

std::string in_f64(EmitContext& ctx, const ArgReader& args, const char* name) {
  return cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kFloat64);
}

// p(y) = sum c[i] y^i by Horner (c lowest power first), in float64.
std::string polynomial(EmitContext& ctx, const std::vector<double>& c, const std::string& y) {
  std::string p = ctx.const_scalar(c.back(), DType::kFloat64);
  for (size_t i = c.size() - 1; i-- > 0;) p = ctx.emit("Add", {ctx.emit("Mul", {p, y}), ctx.const_scalar(c[i], DType::kFloat64)});
  return p;
}

// ---- Hurwitz zeta -------------------------------------------------------------------------------

// zeta(s, q) = sum_{k>=0} (q + k)^-s for float64 s and q, as cephes (and so torch) defines it: inf at
// s = 1 and at q a non-positive integer, NaN for s < 1 and for q < 0 with a non-integer s. The first
// K terms are summed directly, K = 10 plus enough to bring the smallest negative q (where s is an
// integer) above 10, and the rest by Euler-Maclaurin at a = q + K >= 10 (to the B16 term: relative
// error below 1e-16 there).
std::string hurwitz_zeta(EmitContext& ctx, const std::string& s, const std::string& q) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string s_integer = ctx.emit("Equal", {s, ctx.emit("Floor", {s})});
  const std::string finite_q = ctx.emit("Not", {ctx.emit("Or", {ctx.emit("IsNaN", {q}), ctx.emit("IsInf", {q})})});
  // The smallest q that the direct sum must carry past 0 (other elements count as 0).
  const std::string needs = ctx.emit("And", {ctx.emit("And", {finite_q, s_integer}), ctx.emit("Less", {q, c(0)})});
  const std::string q_low = ctx.emit("Where", {needs, q, c(0)});
  const std::string flat = ctx.concat({ctx.reshape(q_low, ctx.const_i64s({-1})), ctx.unsqueeze(c(0), {0})}, 0);  // never empty
  const std::string lowest = ctx.reduce("ReduceMin", flat, std::nullopt, false);
  const std::string terms = ctx.cast(ctx.emit("Add", {ctx.emit("Neg", {ctx.emit("Floor", {lowest})}), c(10)}), DType::kInt64);
  const std::string k = ctx.cast(ctx.emit("Range", {ctx.const_i64(0), terms, ctx.const_i64(1)}), DType::kFloat64);
  const std::string shape = ctx.shape_of(ctx.emit("Add", {q, s}));  // the broadcast shape
  const std::string qs = ctx.unsqueeze(ctx.emit("Expand", {q, shape}), {-1});
  const std::string ss = ctx.unsqueeze(ctx.emit("Expand", {s, shape}), {-1});
  const std::string direct = ctx.reduce("ReduceSum", ctx.emit("Pow", {ctx.emit("Add", {qs, k}), ctx.emit("Neg", {ss})}), std::vector<int64_t>{-1}, false);
  const std::string a = ctx.emit("Add", {q, ctx.cast(terms, DType::kFloat64)});
  const std::string a_s = ctx.emit("Pow", {a, ctx.emit("Neg", {s})});  // a^-s
  // a^(1-s)/(s-1) + a^-s/2 + sum_j B2j/(2j)! s(s+1)...(s+2j-2) a^(-s-2j+1)
  std::string tail = ctx.emit("Add", {ctx.emit("Div", {ctx.emit("Mul", {a_s, a}), ctx.emit("Sub", {s, c(1)})}), ctx.emit("Mul", {a_s, c(0.5)})});
  constexpr std::array<double, 8> kBernoulli = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510};
  const std::string inv_a = ctx.emit("Reciprocal", {a}), inv_a2 = ctx.emit("Mul", {inv_a, inv_a});
  std::string rising = s;                            // s(s+1)...(s+2j-2)
  std::string power = ctx.emit("Mul", {a_s, inv_a});  // a^(-s-2j+1)
  double factorial = 2;                              // (2j)!
  for (size_t j = 1; j <= kBernoulli.size(); ++j) {
    tail = ctx.emit("Add", {tail, ctx.emit("Mul", {ctx.emit("Mul", {rising, power}), c(kBernoulli[j - 1] / factorial)})});
    const double next = static_cast<double>(2 * j);
    rising = ctx.emit("Mul", {rising, ctx.emit("Mul", {ctx.emit("Add", {s, c(next - 1)}), ctx.emit("Add", {s, c(next)})})});
    power = ctx.emit("Mul", {power, inv_a2});
    factorial *= (next + 1) * (next + 2);
  }
  std::string value = ctx.emit("Add", {direct, tail});
  const std::string pole_q = ctx.emit("And", {ctx.emit("LessOrEqual", {q, c(0)}), ctx.emit("Equal", {q, ctx.emit("Floor", {q})})});
  const std::string nan_case = ctx.emit("Or", {ctx.emit("Less", {s, c(1)}),
                                               ctx.emit("And", {ctx.emit("Less", {q, c(0)}), ctx.emit("Not", {s_integer})})});
  value = ctx.emit("Where", {pole_q, c(INFINITY), value});
  value = ctx.emit("Where", {nan_case, c(NAN), value});
  return ctx.emit("Where", {ctx.emit("Equal", {s, c(1)}), c(INFINITY), value});
}


// special_zeta(Tensor self, Tensor other) -> Tensor: the Hurwitz zeta of s = self at q = other.
RuleResult aten_special_zeta(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType out = result_dtype(args, DType::kFloat32);
  const std::string s = operand_as(ctx, args, "self", DType::kFloat64), q = operand_as(ctx, args, "other", DType::kFloat64);
  return emitted(ctx, cast_if_needed(ctx, hurwitz_zeta(ctx, s, q), DType::kFloat64, out));
}

// polygamma(int n, Tensor self) -> Tensor for n >= 1: (-1)^(n+1) n! zeta(n + 1, x). Order 0
// (digamma) is the composite math rule's; this rule declines it. Measured against float64 torch
// on 2e5 points of [-20, 30] (1e-3 or more off the poles): relative error 4.9e-10 for n = 1,
// 9.2e-13 for n = 2, 1.4e-15 for n = 3 and 5; special_zeta on 2e4 points of s in (1.1, 20.1),
// q in (0.05, 50.05): 1.0e-15.
RuleResult aten_polygamma(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t n = args.get_int("n");
  if (n == 0) return RuleResult::kDeclined;
  PT2ONNX_CHECK(n > 0 && n <= 170, ErrorCode::kUnsupported, "polygamma of order " + std::to_string(n));
  const DType out = result_dtype(args, float_result(args, "self"));
  const std::string x = in_f64(ctx, args, "self");
  const double scale = (n % 2 == 1 ? 1.0 : -1.0) * std::tgamma(static_cast<double>(n + 1));
  const std::string zeta = hurwitz_zeta(ctx, ctx.const_scalar(static_cast<double>(n + 1), DType::kFloat64), x);
  return emitted(ctx, cast_if_needed(ctx, ctx.emit("Mul", {zeta, ctx.const_scalar(scale, DType::kFloat64)}), DType::kFloat64, out));
}

// ---- modified Bessel functions of the first kind ------------------------------------------------

// I_nu(x) for nu = 0 or 1 and x >= 0, times exp(-x) when `scaled`: the power series
// (x/2)^nu / nu! sum (x^2/4)^k nu! / (k! (k+nu)!) to k = 47 below x = 30 (all terms positive; the
// first term left out is below 1e-20 of the sum), nested as 1 + y/(1(1+nu)) (1 + y/(2(2+nu)) (...))
// so that no constant is tiny (onnxruntime's optimizer merges float64 constants that are equal as
// floats: 1/(k!)^2 underflows there); above 30 the asymptotic series
// e^x / sqrt(2 pi x) sum_k (-1)^k prod_{j<=k} (4nu^2 - (2j-1)^2) / (k! (8x)^k) to k = 12 (its
// terms fall below 1e-16 by then). Measured against float64 torch on 2e5 points of [-700, 700]:
// relative error at most 2.4e-15.
std::string bessel_i(EmitContext& ctx, const std::string& x, int nu, bool scaled) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  constexpr int kSeriesTerms = 48;
  const std::string y = ctx.emit("Mul", {ctx.emit("Mul", {x, x}), c(0.25)});
  std::string small = c(1);
  for (int k = kSeriesTerms - 1; k >= 1; --k)
    small = ctx.emit("Add", {c(1), ctx.emit("Mul", {small, ctx.emit("Mul", {y, c(1.0 / (static_cast<double>(k) * (k + nu)))})})});
  if (nu == 1) small = ctx.emit("Mul", {small, ctx.emit("Mul", {x, c(0.5)})});
  if (scaled) small = ctx.emit("Mul", {small, ctx.emit("Exp", {ctx.emit("Neg", {x})})});
  std::vector<double> asymptotic = {1.0};
  for (int k = 1; k <= 12; ++k) {
    const double odd = 2.0 * k - 1;
    asymptotic.push_back(-asymptotic.back() * (4.0 * nu * nu - odd * odd) / (8.0 * k));
  }
  // sum a_k (1/x)^k, then e^x / sqrt(2 pi x) (split as e^(x/2) twice, so that I0(700) stays finite in float64)
  std::string large = ctx.emit("Div", {polynomial(ctx, asymptotic, ctx.emit("Reciprocal", {x})),
                                       ctx.emit("Sqrt", {ctx.emit("Mul", {x, c(2 * std::numbers::pi)})})});
  if (!scaled) {
    const std::string half = ctx.emit("Exp", {ctx.emit("Mul", {x, c(0.5)})});
    large = ctx.emit("Mul", {ctx.emit("Mul", {large, half}), half});
  }
  return ctx.emit("Where", {ctx.emit("Less", {x, c(30)}), small, large});
}

// i0 / special_i0e / special_i1 / special_i1e and special_modified_bessel_i0/i1: I_nu(|x|) (i1 odd),
// scaled by exp(-|x|) for the e forms. At +-inf: i0 inf, i1 +-inf, the scaled forms 0.
RuleResult bessel_i_rule(EmitContext& ctx, const ir::Node& node, int nu, bool scaled) {
  ArgReader args(ctx, node);
  const DType out = result_dtype(args, float_result(args, "self"));
  const std::string x = in_f64(ctx, args, "self");
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string magnitude = ctx.emit("Abs", {x});
  std::string value = bessel_i(ctx, magnitude, nu, scaled);
  value = ctx.emit("Where", {ctx.emit("IsInf", {x}), c(scaled ? 0.0 : INFINITY), value});
  if (nu == 1) value = ctx.emit("Where", {ctx.emit("Less", {x, c(0)}), ctx.emit("Neg", {value}), value});
  return emitted(ctx, cast_if_needed(ctx, value, DType::kFloat64, out));
}
RuleResult aten_i0(EmitContext& ctx, const ir::Node& node) { return bessel_i_rule(ctx, node, 0, false); }
RuleResult aten_i0e(EmitContext& ctx, const ir::Node& node) { return bessel_i_rule(ctx, node, 0, true); }
RuleResult aten_i1(EmitContext& ctx, const ir::Node& node) { return bessel_i_rule(ctx, node, 1, false); }
RuleResult aten_i1e(EmitContext& ctx, const ir::Node& node) { return bessel_i_rule(ctx, node, 1, true); }

// ---- Bessel functions of order 0 and 1: J, Y and K ----------------------------------------------

constexpr double kEulerGamma = 0.5772156649015329;

// The harmonic number H_k = 1 + 1/2 + ... + 1/k (H_0 = 0).
double harmonic(int k) {
  double h = 0;
  for (int j = 1; j <= k; ++j) h += 1.0 / j;
  return h;
}

// sum_{k=0..terms} weight(k) T_k with T_0 = 1 and T_k = T_{k-1} y / (k (k + nu)), that is
// y^k nu! / (k! (k + nu)!), in float64. Running products, so that every constant is of moderate
// size (onnxruntime merges float64 constants that are equal as floats; 1/(k!)^2 underflows there).
template <typename Weight>
std::string bessel_series(EmitContext& ctx, const std::string& y, int nu, int terms, Weight weight) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  std::string term = c(1), sum = c(weight(0));
  for (int k = 1; k <= terms; ++k) {
    term = ctx.emit("Mul", {term, ctx.emit("Mul", {y, c(1.0 / (static_cast<double>(k) * (k + nu)))})});
    const double w = weight(k);
    if (w != 0) sum = ctx.emit("Add", {sum, w == 1 ? term : ctx.emit("Mul", {term, c(w)})});
  }
  return sum;
}

// Hankel's expansion of J_nu and Y_nu (nu = 0, 1) at x >= 12: sqrt(2 / (pi x)) times
// P cos(chi) - Q sin(chi) and P sin(chi) + Q cos(chi), chi = x - (nu / 2 + 1/4) pi, with P and Q to
// the terms a_22 / x^22 and a_23 / x^23 (near the smallest ones, about 2x: the series diverges
// beyond).
std::pair<std::string, std::string> hankel_jy(EmitContext& ctx, const std::string& x, int nu) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  constexpr int kTerms = 12;
  std::vector<double> a = {1.0};  // a_k = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! 8^k)
  for (int k = 1; k < 2 * kTerms; ++k) a.push_back(a.back() * (4.0 * nu * nu - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k));
  std::vector<double> p, q;
  for (int k = 0; k < kTerms; ++k) {
    p.push_back((k % 2 ? -1 : 1) * a[static_cast<size_t>(2 * k)]);
    q.push_back((k % 2 ? -1 : 1) * a[static_cast<size_t>(2 * k + 1)]);
  }
  const std::string inv = ctx.emit("Reciprocal", {x}), inv2 = ctx.emit("Mul", {inv, inv});
  const std::string big_p = polynomial(ctx, p, inv2), big_q = ctx.emit("Mul", {polynomial(ctx, q, inv2), inv});
  const std::string chi = ctx.emit("Sub", {x, c((nu / 2.0 + 0.25) * std::numbers::pi)});
  const std::string cos = ctx.emit("Cos", {chi}), sin = ctx.emit("Sin", {chi});
  const std::string scale = ctx.emit("Sqrt", {ctx.emit("Div", {c(2 / std::numbers::pi), x})});
  const std::string j = ctx.emit("Sub", {ctx.emit("Mul", {big_p, cos}), ctx.emit("Mul", {big_q, sin})});
  const std::string y = ctx.emit("Add", {ctx.emit("Mul", {big_p, sin}), ctx.emit("Mul", {big_q, cos})});
  return {ctx.emit("Mul", {scale, j}), ctx.emit("Mul", {scale, y})};
}

constexpr double kBesselCut = 12;  // power series below, Hankel's expansion above
constexpr int kBesselTerms = 34;   // (x^2/4)^k / (k!)^2 < 1e-18 of the sum by k = 34 at x = 12

// J_nu(|x|) by the power series (x/2)^nu sum T_k at y = -x^2/4 below the cut.
std::string bessel_j_small(EmitContext& ctx, const std::string& ax, int nu) {
  const std::string y = ctx.emit("Neg", {ctx.emit("Mul", {ctx.emit("Mul", {ax, ax}), ctx.const_scalar(0.25, DType::kFloat64)})});
  const std::string sum = bessel_series(ctx, y, nu, kBesselTerms, [](int) { return 1.0; });
  return nu == 0 ? sum : ctx.emit("Mul", {sum, ctx.emit("Mul", {ax, ctx.const_scalar(0.5, DType::kFloat64)})});
}

// special_bessel_j0/j1(Tensor self) -> Tensor: J_nu(x), even (nu = 0) or odd (nu = 1); NaN at
// +-inf, as torch gives. Measured against mpmath on 1,500 points of [-60, 60]: at most 8.7e-13
// absolute, 2.3e-11 relative where |J| > 1e-3 (torch's own float64 kernel is 4e-7 off near x = 5).
RuleResult bessel_j_rule(EmitContext& ctx, const ir::Node& node, int nu) {
  ArgReader args(ctx, node);
  const DType out = result_dtype(args, float_result(args, "self"));
  const std::string x = in_f64(ctx, args, "self");
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string ax = ctx.emit("Abs", {x});
  const std::string large = hankel_jy(ctx, ctx.emit("Max", {ax, c(kBesselCut)}), nu).first;
  std::string value = ctx.emit("Where", {ctx.emit("Less", {ax, c(kBesselCut)}), bessel_j_small(ctx, ax, nu), large});
  if (nu == 1) value = ctx.emit("Where", {ctx.emit("Less", {x, c(0)}), ctx.emit("Neg", {value}), value});
  value = ctx.emit("Where", {ctx.emit("IsInf", {x}), c(NAN), value});
  return emitted(ctx, cast_if_needed(ctx, value, DType::kFloat64, out));
}
RuleResult aten_bessel_j0(EmitContext& ctx, const ir::Node& node) { return bessel_j_rule(ctx, node, 0); }
RuleResult aten_bessel_j1(EmitContext& ctx, const ir::Node& node) { return bessel_j_rule(ctx, node, 1); }

// special_bessel_y0/y1(Tensor self) -> Tensor: Y_nu(x) for x > 0 by the series with logarithm
// (Abramowitz and Stegun 9.1.11) below the cut, Hankel's expansion above; -inf at 0, NaN for x < 0
// and at +inf, as torch gives. Measured against mpmath on 900 points of (0, 60]: relative error
// at most 1.2e-10 where |Y| > 1e-3.
RuleResult bessel_y_rule(EmitContext& ctx, const ir::Node& node, int nu) {
  ArgReader args(ctx, node);
  const DType out = result_dtype(args, float_result(args, "self"));
  const std::string x = in_f64(ctx, args, "self");
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string pos = ctx.emit("Max", {x, c(1e-300)});  // the small branch away from log(0)
  const std::string y = ctx.emit("Neg", {ctx.emit("Mul", {ctx.emit("Mul", {pos, pos}), c(0.25)})});
  const std::string log_half = ctx.emit("Log", {ctx.emit("Mul", {pos, c(0.5)})});
  std::string small;
  if (nu == 0) {
    // (2/pi) ((log(x/2) + gamma) J0 - sum H_k T_k)
    const std::string lead = ctx.emit("Mul", {ctx.emit("Add", {log_half, c(kEulerGamma)}), bessel_j_small(ctx, pos, 0)});
    small = ctx.emit("Mul", {ctx.emit("Sub", {lead, bessel_series(ctx, y, 0, kBesselTerms, harmonic)}), c(2 / std::numbers::pi)});
  } else {
    // -2/(pi x) + (2/pi) log(x/2) J1 - (x / 2pi) sum (H_k + H_{k+1} - 2 gamma) T_k
    const std::string sum = bessel_series(ctx, y, 1, kBesselTerms, [](int k) { return harmonic(k) + harmonic(k + 1) - 2 * kEulerGamma; });
    small = ctx.emit("Sub", {ctx.emit("Mul", {ctx.emit("Mul", {log_half, bessel_j_small(ctx, pos, 1)}), c(2 / std::numbers::pi)}),
                             ctx.emit("Add", {ctx.emit("Div", {c(2 / std::numbers::pi), pos}),
                                              ctx.emit("Mul", {ctx.emit("Mul", {pos, sum}), c(0.5 / std::numbers::pi)})})});
  }
  const std::string large = hankel_jy(ctx, ctx.emit("Max", {x, c(kBesselCut)}), nu).second;
  std::string value = ctx.emit("Where", {ctx.emit("Less", {x, c(kBesselCut)}), small, large});
  value = ctx.emit("Where", {ctx.emit("Equal", {x, c(0)}), c(-INFINITY), value});
  value = ctx.emit("Where", {ctx.emit("Or", {ctx.emit("Less", {x, c(0)}), ctx.emit("IsInf", {x})}), c(NAN), value});
  return emitted(ctx, cast_if_needed(ctx, value, DType::kFloat64, out));
}
RuleResult aten_bessel_y0(EmitContext& ctx, const ir::Node& node) { return bessel_y_rule(ctx, node, 0); }
RuleResult aten_bessel_y1(EmitContext& ctx, const ir::Node& node) { return bessel_y_rule(ctx, node, 1); }

// A 1-D float64 constant.
std::string f64_vector(EmitContext& ctx, const std::vector<double>& v, const std::string& base) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_DOUBLE);
  t.add_dims(static_cast<int64_t>(v.size()));
  for (double d : v) t.add_double_data(d);
  return ctx.const_tensor(std::move(t), base);
}

// K_nu(x) e^x (nu = 0, 1) for x > 0, in float64: below 2 the series with logarithm (Abramowitz
// and Stegun 9.6.11, through I_nu's series: all terms positive); in [2, 20) the trapezoid rule on
// e^x K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt with step 1/8 to t = 4 (the
// integrand is analytic and decays doubly exponentially: the rule's error is below 1e-16 there);
// from 20 on the asymptotic series sqrt(pi / 2x) sum a_k / x^k to k = 29 (its smallest terms).
std::string scaled_bessel_k(EmitContext& ctx, const std::string& x, int nu) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string pos = ctx.emit("Max", {x, c(1e-300)});
  const std::string y = ctx.emit("Mul", {ctx.emit("Mul", {pos, pos}), c(0.25)});
  const std::string log_half = ctx.emit("Log", {ctx.emit("Mul", {pos, c(0.5)})});
  const std::string half_x = ctx.emit("Mul", {pos, c(0.5)});
  constexpr int kTerms = 30;
  std::string small;
  if (nu == 0) {
    const std::string i0 = bessel_series(ctx, y, 0, kTerms, [](int) { return 1.0; });
    small = ctx.emit("Sub", {bessel_series(ctx, y, 0, kTerms, harmonic), ctx.emit("Mul", {ctx.emit("Add", {log_half, c(kEulerGamma)}), i0})});
  } else {
    const std::string i1 = ctx.emit("Mul", {bessel_series(ctx, y, 1, kTerms, [](int) { return 1.0; }), half_x});
    const std::string sum = bessel_series(ctx, y, 1, kTerms, [](int k) { return harmonic(k) + harmonic(k + 1) - 2 * kEulerGamma; });
    small = ctx.emit("Sub", {ctx.emit("Add", {ctx.emit("Reciprocal", {pos}), ctx.emit("Mul", {log_half, i1})}),
                             ctx.emit("Mul", {ctx.emit("Mul", {half_x, sum}), c(0.5)})});
  }
  small = ctx.emit("Mul", {small, ctx.emit("Exp", {pos})});
  // The trapezoid rule over t_k = k / 8, k = 0..32 (the first node weighted 1/2).
  constexpr int kNodes = 33;
  constexpr double kStep = 0.125;
  std::vector<double> rate, weight;
  for (int k = 0; k < kNodes; ++k) {
    const double t = k * kStep;
    rate.push_back(-(std::cosh(t) - 1));
    weight.push_back((k == 0 ? 0.5 : 1.0) * std::cosh(nu * t) * kStep);
  }
  const std::string mid_x = ctx.unsqueeze(ctx.emit("Max", {x, c(2)}), {-1});
  const std::string samples = ctx.emit("Exp", {ctx.emit("Mul", {mid_x, f64_vector(ctx, rate, "bessel_k_rates")})});
  const std::string mid = ctx.reduce("ReduceSum", ctx.emit("Mul", {samples, f64_vector(ctx, weight, "bessel_k_weights")}),
                                     std::vector<int64_t>{-1}, false);
  std::vector<double> a = {1.0};
  for (int k = 1; k < kTerms; ++k) a.push_back(a.back() * (4.0 * nu * nu - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k));
  const std::string large_x = ctx.emit("Max", {x, c(20)});
  const std::string large = ctx.emit("Mul", {polynomial(ctx, a, ctx.emit("Reciprocal", {large_x})),
                                             ctx.emit("Sqrt", {ctx.emit("Div", {c(std::numbers::pi / 2), large_x})})});
  return ctx.emit("Where", {ctx.emit("Less", {x, c(2)}), small, ctx.emit("Where", {ctx.emit("Less", {x, c(20)}), mid, large})});
}

// special_modified_bessel_k0/k1 and special_scaled_modified_bessel_k0/k1 (times e^x): +inf at 0,
// NaN below, 0 at +inf, as torch gives. Measured against float64 torch on 1.2e5 points of
// [1e-8, 1000]: relative error at most 7.3e-15.
RuleResult bessel_k_rule(EmitContext& ctx, const ir::Node& node, int nu, bool scaled) {
  ArgReader args(ctx, node);
  const char* name = args.has("self") ? "self" : "x";  // the scaled forms name their operand x
  const DType out = result_dtype(args, float_result(args, name));
  const std::string x = in_f64(ctx, args, name);
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  std::string value = scaled_bessel_k(ctx, x, nu);
  if (!scaled) value = ctx.emit("Mul", {value, ctx.emit("Exp", {ctx.emit("Neg", {x})})});
  value = ctx.emit("Where", {ctx.emit("Equal", {x, c(0)}), c(INFINITY), value});
  value = ctx.emit("Where", {ctx.emit("Equal", {x, c(INFINITY)}), c(0), value});
  value = ctx.emit("Where", {ctx.emit("Less", {x, c(0)}), c(NAN), value});
  return emitted(ctx, cast_if_needed(ctx, value, DType::kFloat64, out));
}
RuleResult aten_bessel_k0(EmitContext& ctx, const ir::Node& node) { return bessel_k_rule(ctx, node, 0, false); }
RuleResult aten_bessel_k1(EmitContext& ctx, const ir::Node& node) { return bessel_k_rule(ctx, node, 1, false); }
RuleResult aten_bessel_k0e(EmitContext& ctx, const ir::Node& node) { return bessel_k_rule(ctx, node, 0, true); }
RuleResult aten_bessel_k1e(EmitContext& ctx, const ir::Node& node) { return bessel_k_rule(ctx, node, 1, true); }

// special_spherical_bessel_j0(Tensor x) -> Tensor: sin(x) / x, 1 at 0 and 0 at +-inf (relative
// error 3.6e-13 against float64 torch on [-700, 700]).
RuleResult aten_spherical_bessel_j0(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType out = result_dtype(args, float_result(args, "x"));
  const std::string x = in_f64(ctx, args, "x");
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  std::string value = ctx.emit("Div", {ctx.emit("Sin", {x}), x});
  value = ctx.emit("Where", {ctx.emit("Equal", {x, c(0)}), c(1), value});
  value = ctx.emit("Where", {ctx.emit("IsInf", {x}), c(0), value});
  return emitted(ctx, cast_if_needed(ctx, value, DType::kFloat64, out));
}

// frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent): x = m 2^e with |m| in [0.5, 1),
// e int32; 0, +-inf and NaN give (x, 0). In float64 (exact for float32 and float16 inputs): e from
// the log, then corrected by one where rounding put m outside [0.5, 1).
RuleResult aten_frexp(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "frexp of a non-floating tensor");
  PT2ONNX_CHECK(type != DType::kFloat64, ErrorCode::kUnsupported, "frexp of float64 (its subnormals have no float64 headroom)");
  const std::string x = in_f64(ctx, args, "self");
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string magnitude = ctx.emit("Abs", {x});
  const std::string special = ctx.emit("Or", {ctx.emit("Equal", {magnitude, c(0)}),
                                              ctx.emit("Or", {ctx.emit("IsInf", {x}), ctx.emit("IsNaN", {x})})});
  const std::string safe = ctx.emit("Where", {special, c(1), magnitude});
  std::string e = ctx.emit("Add", {ctx.emit("Floor", {ctx.emit("Div", {ctx.emit("Log", {safe}), c(std::numbers::ln2)})}), c(1)});
  auto scaled = [&](const std::string& exponent) { return ctx.emit("Div", {safe, ctx.emit("Pow", {c(2), exponent})}); };
  e = ctx.emit("Where", {ctx.emit("GreaterOrEqual", {scaled(e), c(1)}), ctx.emit("Add", {e, c(1)}), e});
  e = ctx.emit("Where", {ctx.emit("Less", {scaled(e), c(0.5)}), ctx.emit("Sub", {e, c(1)}), e});
  e = ctx.emit("Where", {special, c(0), e});
  const std::string mantissa = ctx.emit("Where", {special, x, ctx.emit("Div", {x, ctx.emit("Pow", {c(2), e})})});
  ctx.set_output(0, cast_if_needed(ctx, mantissa, DType::kFloat64, type));
  if (ctx.output_used(1)) ctx.set_output(1, ctx.cast(e, DType::kInt32));
  return RuleResult::kEmitted;
}

// ---- Airy function Ai ----------------------------------------------------------------------------

// Ai(x) in float64: the Maclaurin series on [-8, 5.5], Ai(0) f(x^3) + Ai'(0) x g(x^3), f and g
// polynomials in t = x^3 (scaled below) with f_{k+1} = f_k / ((3k+2)(3k+3)) and g_{k+1} = g_k / ((3k+3)(3k+4))
// (34 terms; the largest term on that interval is 2e6 times the result at most, so about 1e-10
// relative is lost to cancellation). Outside it the asymptotic expansions in 1/zeta, zeta =
// 2/3 |x|^(3/2), with u_k = u_{k-1} (6k-5)(6k-3)(6k-1) / (216 k (2k-1)):
// x > 5.5: exp(-zeta) / (2 sqrt(pi) x^(1/4)) sum (-1)^k u_k zeta^-k;
// x < -8: (sin(zeta + pi/4) P - cos(zeta + pi/4) Q) / (sqrt(pi) |x|^(1/4)), P and Q the even and
// odd terms. Checked against mpmath over [-60, 30]: at most 1.4e-10 absolute, 8e-6 relative.
std::string airy_ai_f64(EmitContext& ctx, const std::string& x) {
  constexpr int kSeriesTerms = 34, kAsymptoticTerms = 16;
  constexpr double kAi0 = 0.355028053887817239260, kMinusAiPrime0 = 0.258819403792806798405;
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  std::vector<double> f(kSeriesTerms, 1.0), g(kSeriesTerms, 1.0);
  // In t / 512 (|t / 512| <= 1 on the interval) the coefficients stay above 1e-17: onnxruntime's
  // optimizer drops an Add of a double constant that rounds to 0 in float32, which would lose the
  // terms of the raw coefficients (below 1e-100).
  constexpr double kScale = 512.0;
  for (int k = 0; k + 1 < kSeriesTerms; ++k) {
    f[static_cast<size_t>(k) + 1] = f[static_cast<size_t>(k)] * kScale / ((3.0 * k + 2) * (3.0 * k + 3));
    g[static_cast<size_t>(k) + 1] = g[static_cast<size_t>(k)] * kScale / ((3.0 * k + 3) * (3.0 * k + 4));
  }
  std::vector<double> u(kAsymptoticTerms, 1.0);
  for (int k = 1; k < kAsymptoticTerms; ++k)
    u[static_cast<size_t>(k)] = u[static_cast<size_t>(k) - 1] * (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / (216.0 * k * (2.0 * k - 1));
  const std::string t = ctx.emit("Mul", {ctx.emit("Mul", {ctx.emit("Mul", {x, x}), x}), c(1.0 / kScale)});
  const std::string series = ctx.emit("Sub", {ctx.emit("Mul", {c(kAi0), polynomial(ctx, f, t)}),
                                              ctx.emit("Mul", {c(kMinusAiPrime0), ctx.emit("Mul", {x, polynomial(ctx, g, t)})})});
  const std::string z = ctx.emit("Abs", {x});
  const std::string zeta = ctx.emit("Mul", {c(2.0 / 3.0), ctx.emit("Mul", {z, ctx.emit("Sqrt", {z})})});
  const std::string inv = ctx.emit("Reciprocal", {zeta});
  const std::string quarter = ctx.emit("Sqrt", {ctx.emit("Sqrt", {z})});
  std::vector<double> decaying(u), p, q;
  for (size_t k = 0; k < u.size(); ++k) {
    const double sign = (k / 2) % 2 == 0 ? 1.0 : -1.0;
    if (k % 2 == 1) decaying[k] = -u[k];
    (k % 2 == 0 ? p : q).push_back(sign * u[k]);
  }
  const std::string right = ctx.emit("Div", {ctx.emit("Mul", {ctx.emit("Exp", {ctx.emit("Neg", {zeta})}), polynomial(ctx, decaying, inv)}),
                                             ctx.emit("Mul", {c(2.0 * std::sqrt(std::numbers::pi)), quarter})});
  const std::string inv2 = ctx.emit("Mul", {inv, inv});
  const std::string phase = ctx.emit("Add", {zeta, c(std::numbers::pi / 4)});
  const std::string oscillating = ctx.emit("Sub", {ctx.emit("Mul", {ctx.emit("Sin", {phase}), polynomial(ctx, p, inv2)}),
                                                   ctx.emit("Mul", {ctx.emit("Cos", {phase}), ctx.emit("Mul", {inv, polynomial(ctx, q, inv2)})})});
  const std::string left = ctx.emit("Div", {oscillating, ctx.emit("Mul", {c(std::sqrt(std::numbers::pi)), quarter})});
  return ctx.emit("Where", {ctx.emit("Greater", {x, c(5.5)}), right, ctx.emit("Where", {ctx.emit("Less", {x, c(-8.0)}), left, series})});
}

// special_airy_ai(Tensor x) -> Tensor
RuleResult aten_special_airy_ai(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType out = float_result(args, "x");
  return emitted(ctx, cast_if_needed(ctx, airy_ai_f64(ctx, in_f64(ctx, args, "x")), DType::kFloat64, out));
}

}  // namespace

void register_decomp_special_rules(RuleTable& t) {
  t.add("aten.special_zeta.default", aten_special_zeta);
  t.add("aten.polygamma.default", aten_polygamma, "order 0 is digamma's rule");
  t.add("aten.i0.default", aten_i0);
  t.add("aten.special_i0.default", aten_i0);
  t.add("aten.special_modified_bessel_i0.default", aten_i0);
  t.add("aten.special_i0e.default", aten_i0e);
  t.add("aten.special_i1.default", aten_i1);
  t.add("aten.special_modified_bessel_i1.default", aten_i1);
  t.add("aten.special_i1e.default", aten_i1e);
  t.add("aten.special_spherical_bessel_j0.default", aten_spherical_bessel_j0);
  t.add("aten.special_bessel_j0.default", aten_bessel_j0);
  t.add("aten.special_bessel_j1.default", aten_bessel_j1);
  t.add("aten.special_bessel_y0.default", aten_bessel_y0);
  t.add("aten.special_bessel_y1.default", aten_bessel_y1);
  t.add("aten.special_modified_bessel_k0.default", aten_bessel_k0);
  t.add("aten.special_modified_bessel_k1.default", aten_bessel_k1);
  t.add("aten.special_scaled_modified_bessel_k0.default", aten_bessel_k0e);
  t.add("aten.special_scaled_modified_bessel_k1.default", aten_bessel_k1e);
  t.add("aten.frexp.Tensor", aten_frexp);
  t.add("aten.special_airy_ai.default", aten_special_airy_ai);
}

}  // namespace pt2onnx::translate
