// Composite math ops that the default IR keeps (torch's _decomp/_refs, done here): nan_to_num,
// copysign, fmax/fmin, nansum/nanmean, aminmax, trace, round(decimals),
// isin, bucketize, one_hot, cosine_similarity, pairwise_distance, _weight_norm, and erfinv (and
// ndtri through it), which
// ONNX lacks (a published polynomial approximation, its error stated), lgamma/digamma/mvlgamma
// (series with recurrence and reflection), ldexp, float_power, cumprod, renorm, linalg_norm and
// linalg_matrix_norm (Frobenius, 1, inf); hardshrink/softshrink/threshold,
// isreal/real of real tensors, tensordot and inner (one MatMul), the trapezoid rule (trapezoid, trapz, cumulative_trapezoid),
// gradient (numpy's differences) and searchsorted of a 1-D sequence.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/typed_emit.h"
#include "translate/rule_helpers.h"
#include "translate/subgraph_body.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

std::optional<std::vector<int64_t>> dims_or_all(const ArgReader& args, const std::string& name = "dim") {
  if (!args.has(name) || args.rank_of("self") == 0) return std::nullopt;
  const std::vector<int64_t> dims = args.ints(name);
  if (dims.empty()) return std::nullopt;
  return normalize_dims(dims, args.rank_of("self"));
}

// Operands `a` and `b` in the node's result dtype.
std::pair<std::string, std::string> pair_as_result(EmitContext& ctx, const ArgReader& args, const char* a, const char* b) {
  const DType type = result_dtype(args, torch_result_type(args, {a, b}));
  return {operand_as(ctx, args, a, type), operand_as(ctx, args, b, type)};
}

// The largest finite value of a floating dtype.
double finite_max(DType type) {
  switch (type) {
    case DType::kFloat16: return 65504.0;
    case DType::kBFloat16: return 3.3895313892515355e38;
    case DType::kFloat64: return std::numeric_limits<double>::max();
    default: return std::numeric_limits<float>::max();
  }
}

// nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor:
// NaN -> nan (0), +inf -> posinf (the dtype's max), -inf -> neginf (its lowest). Ints unchanged.
RuleResult aten_nan_to_num(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  std::string x = args.tensor("self");
  if (!is_floating(type)) return emitted(ctx, x);
  const double big = finite_max(type);
  const std::string inf = ctx.const_scalar(std::numeric_limits<double>::infinity(), type);
  x = ctx.emit("Where", {ctx.emit("IsNaN", {x}), ctx.const_scalar(args.float_or("nan", 0.0), type), x});
  x = ctx.emit("Where", {ctx.emit("Equal", {x, inf}), ctx.const_scalar(args.float_or("posinf", big), type), x});
  x = ctx.emit("Where", {ctx.emit("Equal", {x, ctx.emit("Neg", {inf})}), ctx.const_scalar(args.float_or("neginf", -big), type), x});
  return emitted(ctx, x);
}

// copysign.Tensor(Tensor self, Tensor other) -> Tensor; copysign.Scalar: |self| with other's sign
// bit, -0.0 included (1 / -0.0 is -inf).
RuleResult aten_copysign(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto [a, b] = pair_as_result(ctx, args, "self", "other");
  const DType type = result_dtype(args, DType::kFloat32);
  const std::string zero = ctx.const_scalar(0, type);
  const std::string negative = ctx.emit("Or", {ctx.emit("Less", {b, zero}),
                                               ctx.emit("Less", {ctx.emit("Div", {ctx.const_scalar(1, type), b}), zero})});
  const std::string magnitude = ctx.emit("Abs", {a});
  return emitted(ctx, ctx.emit("Where", {negative, ctx.emit("Neg", {magnitude}), magnitude}));
}

// fmax(Tensor self, Tensor other) -> Tensor; fmin: max/min that ignore a NaN operand (NaN only
// when both are).
RuleResult nan_ignoring(EmitContext& ctx, const ir::Node& node, const char* op) {
  ArgReader args(ctx, node);
  const auto [a, b] = pair_as_result(ctx, args, "self", "other");
  const std::string m = emit_in(ctx, op, {a, b}, args.out_dtype());
  if (!is_floating(result_dtype(args, DType::kFloat32))) return emitted(ctx, m);
  return emitted(ctx, ctx.emit("Where", {ctx.emit("IsNaN", {a}), b, ctx.emit("Where", {ctx.emit("IsNaN", {b}), a, m})}));
}
RuleResult aten_fmax(EmitContext& ctx, const ir::Node& node) { return nan_ignoring(ctx, node, "Max"); }
RuleResult aten_fmin(EmitContext& ctx, const ir::Node& node) { return nan_ignoring(ctx, node, "Min"); }

// nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor;
// nanmean likewise (the mean over the non-NaN entries).
RuleResult nan_reduce(EmitContext& ctx, const ir::Node& node, bool mean) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  const bool keep = args.bool_or("keepdim", false);
  const auto axes = dims_or_all(args);
  if (!is_floating(type)) return emitted(ctx, ctx.reduce(mean ? "ReduceMean" : "ReduceSum", x, axes, keep));
  const std::string nan = ctx.emit("IsNaN", {x});
  const std::string sum = ctx.reduce("ReduceSum", ctx.emit("Where", {nan, ctx.const_scalar(0, type), x}), axes, keep);
  if (!mean) return emitted(ctx, sum);
  const std::string count = ctx.reduce("ReduceSum", ctx.cast(ctx.emit("Not", {nan}), type), axes, keep);
  return emitted(ctx, ctx.emit("Div", {sum, count}));
}
RuleResult aten_nansum(EmitContext& ctx, const ir::Node& node) { return nan_reduce(ctx, node, false); }
RuleResult aten_nanmean(EmitContext& ctx, const ir::Node& node) { return nan_reduce(ctx, node, true); }

// aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)
RuleResult aten_aminmax(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto axes = dims_or_all(args);
  const bool keep = args.bool_or("keepdim", false) && axes.has_value();
  const DType type = args.dtype_of("self");
  ctx.set_output(0, reduce_in(ctx, "ReduceMin", args.tensor("self"), type, axes, keep));
  if (ctx.output_used(1)) ctx.set_output(1, reduce_in(ctx, "ReduceMax", args.tensor("self"), type, axes, keep));
  return RuleResult::kEmitted;
}

// trace(Tensor self) -> Tensor: the main diagonal's sum (ints sum in int64). The diagonal is
// selected, not multiplied by the identity, so a NaN off it does not leak in.
RuleResult aten_trace(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  const std::string eye = ctx.emit("EyeLike", {ctx.cast(x, DType::kFloat32)});
  const std::string diagonal = ctx.emit("Where", {ctx.cast(eye, DType::kBool), x, ctx.const_scalar(0, type)});
  return emitted(ctx, ctx.reduce("ReduceSum", diagonal, std::nullopt, false));
}

// round.decimals(Tensor self, *, int decimals) -> Tensor: half to even at 10^-decimals, scaled as
// torch scales (multiply then divide for decimals > 0, the reverse below).
RuleResult aten_round_decimals(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const int64_t decimals = args.get_int("decimals");
  const std::string scale = ctx.const_scalar(std::pow(10.0, static_cast<double>(std::llabs(decimals))), type);
  const std::string x = args.tensor("self");
  if (decimals >= 0) return emitted(ctx, ctx.emit("Div", {ctx.emit("Round", {ctx.emit("Mul", {x, scale})}), scale}));
  return emitted(ctx, ctx.emit("Mul", {ctx.emit("Round", {ctx.emit("Div", {x, scale})}), scale}));
}

// isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool
// invert=False) -> Tensor; isin.Tensor_Scalar(Tensor elements, Scalar test_element, ...);
// isin.Scalar_Tensor(Scalar element, Tensor test_elements, ...)
RuleResult aten_isin(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const char* test = args.has("test_elements") ? "test_elements" : "test_element";
  const char* element = args.has("elements") ? "elements" : "element";
  DType type = torch_result_type(args, {element, test});
  const std::string elements = operand_as(ctx, args, element, type);
  const std::string tests = ctx.reshape(operand_as(ctx, args, test, type), ctx.const_i64s({-1}));
  const std::string hits = ctx.cast(ctx.emit("Equal", {ctx.unsqueeze(elements, {-1}), tests}), DType::kInt32);
  const int64_t rank = operand_rank(args, element);
  std::string found = ctx.emit("Greater", {ctx.reduce("ReduceSum", hits, std::vector<int64_t>{rank}, false), ctx.const_scalar(0, DType::kInt32)});
  if (args.bool_or("invert", false)) found = ctx.emit("Not", {found});
  return emitted(ctx, found);
}

// bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False), and
// bucketize.Scalar (Scalar self):
// the number of (sorted) boundaries below x (right: at or below x).
RuleResult aten_bucketize(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = torch_result_type(args, {"self", "boundaries"});
  const std::string x = ctx.unsqueeze(operand_as(ctx, args, "self", type), {-1});
  const std::string b = operand_as(ctx, args, "boundaries", type);
  const std::string below = ctx.emit(args.bool_or("right", false) ? "LessOrEqual" : "Less", {b, x});
  const std::string count = ctx.reduce("ReduceSum", ctx.cast(below, DType::kInt64), std::vector<int64_t>{operand_rank(args, "self")}, false);
  return emitted(ctx, cast_if_needed(ctx, count, DType::kInt64, args.out_dtype()));
}

// one_hot(Tensor self, int num_classes=-1) -> Tensor (int64). num_classes -1 (the data's max + 1)
// gives a data-dependent shape, which torch.export does not trace.
RuleResult aten_one_hot(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t classes = args.int_or("num_classes", -1);
  PT2ONNX_CHECK(classes >= 0, ErrorCode::kUnsupported, "one_hot without num_classes");
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kInt64);
  const std::string classes_v = ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(classes), ctx.const_i64(1)});
  return emitted(ctx, ctx.cast(ctx.emit("Equal", {ctx.unsqueeze(x, {-1}), classes_v}), DType::kInt64));
}

// cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor: each operand
// divided by its norm (at least eps), then the dot product along dim of the broadcast shape.
RuleResult aten_cosine_similarity(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, torch_result_type(args, {"x1", "x2"}));
  const int64_t rank = std::max(args.rank_of("x1"), args.rank_of("x2"));
  // Two 0-d operands are taken as vectors of one element (ONNX reductions need rank 1 or more).
  const std::vector<int64_t> axis = {rank == 0 ? 0 : normalize_dim(args.int_or("dim", 1), rank)};
  const std::string eps = ctx.const_scalar(args.float_or("eps", 1e-8), type);
  std::string a = operand_as(ctx, args, "x1", type), b = operand_as(ctx, args, "x2", type);
  if (rank == 0) {
    a = ctx.unsqueeze(a, {0});
    b = ctx.unsqueeze(b, {0});
  }
  const std::string both = ctx.emit("Add", {a, b});  // the broadcast shape, so that norms run along the same axis
  a = ctx.emit("Expand", {a, ctx.shape_of(both)});
  b = ctx.emit("Expand", {b, ctx.shape_of(both)});
  auto unit = [&](const std::string& v) {
    return ctx.emit("Div", {v, ctx.emit("Max", {ctx.reduce("ReduceL2", v, axis, true), eps})});
  };
  return emitted(ctx, ctx.reduce("ReduceSum", ctx.emit("Mul", {unit(a), unit(b)}), axis, false));
}

// pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False) -> Tensor:
// the p-norm of x1 - x2 + eps along the last dim of the broadcast shape.
RuleResult aten_pairwise_distance(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, torch_result_type(args, {"x1", "x2"}));
  const int64_t rank = std::max(args.rank_of("x1"), args.rank_of("x2"));
  const std::string diff = ctx.emit("Add", {ctx.emit("Sub", {operand_as(ctx, args, "x1", type), operand_as(ctx, args, "x2", type)}),
                                            ctx.const_scalar(args.float_or("eps", 1e-6), type)});
  const auto axes = rank == 0 ? std::nullopt : std::optional<std::vector<int64_t>>{{rank - 1}};
  return emitted(ctx, vector_norm(ctx, diff, args.float_or("p", 2.0), axes, args.bool_or("keepdim", false), type));
}

// _weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor: v * g / ||v||, the norm over every dim but
// `dim` (over all of them for dim -1). In wav2vec2-style position convolutions both are parameters.
// _weight_norm_interface(Tensor v, Tensor g, int dim=0) -> (Tensor, Tensor), its kernel, also gives
// the norms (kept dims).
RuleResult aten_weight_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("v");
  const int64_t dim = args.int_or("dim", 0);
  std::optional<std::vector<int64_t>> axes;
  if (dim != -1 && rank > 0) {
    const int64_t keep = normalize_dim(dim, rank);
    axes.emplace();
    for (int64_t i = 0; i < rank; ++i)
      if (i != keep) axes->push_back(i);
  }
  const std::string v = args.tensor("v");
  const std::string norm = axes && axes->empty() ? ctx.emit("Abs", {v}) : ctx.reduce("ReduceL2", v, axes, true);
  if (ctx.output_count() > 1 && ctx.output_used(1)) ctx.set_output(1, norm);
  return emitted(ctx, ctx.emit("Mul", {v, ctx.emit("Div", {args.tensor("g"), norm})}));
}

// erfinv(Tensor self) -> Tensor: Giles' single-precision approximation ("Approximating the erfinv
// function", GPU Computing Gems, 2011): with w = -log((1 - y)(1 + y)), y times a degree-8
// polynomial in w - 2.5 (w < 5) or in sqrt(w) - 3 (the tails), evaluated in float32. Measured
// against float64 erfinv on 2e6 points over (-1, 1): at most 2.6e-7 relative error. +-1 give
// +-inf, |y| > 1 NaN (the log of a negative number).
constexpr std::array<double, 9> kErfinvCentral = {2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                                                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941};
constexpr std::array<double, 9> kErfinvTail = {-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                                               -0.0076224613, 0.00943887047, 1.00167406, 2.83297682};

std::string horner(EmitContext& ctx, const std::array<double, 9>& coefficients, const std::string& w) {
  std::string p = ctx.const_scalar(coefficients[0], DType::kFloat32);
  for (size_t i = 1; i < coefficients.size(); ++i)
    p = ctx.emit("Add", {ctx.emit("Mul", {p, w}), ctx.const_scalar(coefficients[i], DType::kFloat32)});
  return p;
}

RuleResult aten_erfinv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType out = result_dtype(args, DType::kFloat32);
  const std::string y = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat32);
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat32); };
  const std::string w = ctx.emit("Neg", {ctx.emit("Log", {ctx.emit("Mul", {ctx.emit("Sub", {c(1), y}), ctx.emit("Add", {c(1), y})})})});
  const std::string central = horner(ctx, kErfinvCentral, ctx.emit("Sub", {w, c(2.5)}));
  const std::string tail = horner(ctx, kErfinvTail, ctx.emit("Sub", {ctx.emit("Sqrt", {w}), c(3)}));
  const std::string x = ctx.emit("Mul", {ctx.emit("Where", {ctx.emit("Less", {w, c(5)}), central, tail}), y});
  const std::string edge = ctx.emit("Equal", {ctx.emit("Abs", {y}), c(1)});
  const std::string inf = ctx.emit("Mul", {y, c(std::numeric_limits<double>::infinity())});
  return emitted(ctx, cast_if_needed(ctx, ctx.emit("Where", {edge, inf, x}), DType::kFloat32, out));
}

// sum c[i] y^i by Horner (c lowest power first), float64.
std::string polynomial_f64(EmitContext& ctx, const std::vector<double>& c, const std::string& y) {
  std::string p = ctx.const_scalar(c.back(), DType::kFloat64);
  for (size_t i = c.size() - 1; i-- > 0;) p = ctx.emit("Add", {ctx.emit("Mul", {p, y}), ctx.const_scalar(c[i], DType::kFloat64)});
  return p;
}

// The standard normal quantile x < -5.19 of a tail probability q < 1e-7 (float64): Abramowitz
// and Stegun's 26.2.23 start (error below 4.5e-4), then three Newton steps on log Phi(x) = log q with
// log Phi(x) = -x^2/2 - log(2 pi)/2 + log R and R = Phi/phi = (1/|x|) sum (-1)^k (2k-1)!! / x^2k to
// k = 10 (the asymptotic series: R within 3e-6 from x = -5.19 on, x within 1e-7 relative).
std::string normal_tail_quantile(EmitContext& ctx, const std::string& q) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string log_q = ctx.emit("Log", {q});
  const std::string t = ctx.emit("Sqrt", {ctx.emit("Mul", {log_q, c(-2)})});
  const std::string num = polynomial_f64(ctx, {2.515517, 0.802853, 0.010328}, t);
  const std::string den = polynomial_f64(ctx, {1, 1.432788, 0.189269, 0.001308}, t);
  std::string x = ctx.emit("Neg", {ctx.emit("Sub", {t, ctx.emit("Div", {num, den})})});
  std::vector<double> mills = {1};
  for (int k = 1; k <= 10; ++k) mills.push_back(-mills.back() * (2 * k - 1));
  for (int step = 0; step < 3; ++step) {
    const std::string inv2 = ctx.emit("Reciprocal", {ctx.emit("Mul", {x, x})});
    const std::string r = ctx.emit("Div", {polynomial_f64(ctx, mills, inv2), ctx.emit("Neg", {x})});
    const std::string log_phi = ctx.emit("Add", {ctx.emit("Mul", {ctx.emit("Mul", {x, x}), c(-0.5)}),
                                                 ctx.emit("Add", {ctx.emit("Log", {r}), c(-0.5 * std::log(2 * std::numbers::pi))})});
    x = ctx.emit("Sub", {x, ctx.emit("Mul", {ctx.emit("Sub", {log_phi, log_q}), r})});
  }
  return x;
}

// special_ndtri(Tensor self) -> Tensor: the standard normal quantile. For min(p, 1 - p) >= 1e-7,
// sqrt(2) erfinv(2p - 1) by the approximation above with w = -log((1 - y)(1 + y)) taken as
// -log(4 p (1 - p)) (inside the approximation's range, w < 15.7); further out the tail quantile
// above, with the sign of p - 1/2. 0 and 1 give -inf and +inf, p outside [0, 1] NaN. Measured
// against float64 torch on 25,000 float32 points of [1e-37, 1]: relative error at most 3e-7.
RuleResult aten_special_ndtri(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.dtype_of("self") != DType::kFloat64, ErrorCode::kUnsupported,
                "special_ndtri of float64 (the approximation is single precision)");
  const DType out = result_dtype(args, DType::kFloat32);
  const std::string p = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat32);
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat32); };
  const std::string y = ctx.emit("Sub", {ctx.emit("Mul", {p, c(2)}), c(1)});
  const std::string w = ctx.emit("Neg", {ctx.emit("Log", {ctx.emit("Mul", {ctx.emit("Mul", {p, c(4)}), ctx.emit("Sub", {c(1), p})})})});
  const std::string central = horner(ctx, kErfinvCentral, ctx.emit("Sub", {w, c(2.5)}));
  const std::string tail = horner(ctx, kErfinvTail, ctx.emit("Sub", {ctx.emit("Sqrt", {w}), c(3)}));
  const std::string x = ctx.emit("Mul", {ctx.emit("Mul", {ctx.emit("Where", {ctx.emit("Less", {w, c(5)}), central, tail}), y}), c(std::numbers::sqrt2)});
  // The far tails, in float64 (1 - p is exact there).
  const std::string p64 = ctx.cast(p, DType::kFloat64);
  const std::string q = ctx.emit("Min", {p64, ctx.emit("Sub", {ctx.const_scalar(1, DType::kFloat64), p64})});
  const std::string far = ctx.emit("Less", {q, ctx.const_scalar(1e-7, DType::kFloat64)});
  const std::string safe_q = ctx.emit("Where", {far, q, ctx.const_scalar(1e-8, DType::kFloat64)});
  std::string tail_x = ctx.cast(normal_tail_quantile(ctx, safe_q), DType::kFloat32);
  tail_x = ctx.emit("Where", {ctx.emit("Greater", {p, c(0.5)}), ctx.emit("Neg", {tail_x}), tail_x});
  const std::string value = ctx.emit("Where", {far, tail_x, x});
  const std::string edge = ctx.emit("Or", {ctx.emit("Equal", {p, c(0)}), ctx.emit("Equal", {p, c(1)})});
  const std::string inf = ctx.emit("Mul", {y, c(std::numeric_limits<double>::infinity())});
  return emitted(ctx, cast_if_needed(ctx, ctx.emit("Where", {edge, inf, value}), DType::kFloat32, out));
}

// ---- gamma functions: recurrence to x + 6, an asymptotic series there, reflection below 1/2 ----

// The floating type a special function is computed in: the input's, float32 for others.
DType special_type(const ArgReader& args) {
  const DType in = args.dtype_of("self");
  return in == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
}

// True where x is a pole of the gamma function (0, -1, -2, ...).
std::string gamma_pole(EmitContext& ctx, const std::string& x, DType type) {
  return ctx.emit("And", {ctx.emit("LessOrEqual", {x, ctx.const_scalar(0, type)}), ctx.emit("Equal", {x, ctx.emit("Floor", {x})})});
}

// x minus its nearest integer (exact in floating point): sin(pi x) and tan(pi x) up to sign, without
// the error pi * x carries for large |x|.
std::string unit_offset(EmitContext& ctx, const std::string& x) { return ctx.emit("Sub", {x, ctx.emit("Round", {x})}); }

// lgamma of x in float `type`: Stirling's series (to 1/(1680 w^7)) at w = z + 6, minus log z(z+1)...(z+5)
// as a sum of logs (no overflow), z = x or 1 - x with log(pi / |sin(pi x)|) for x < 1/2; +inf at the
// poles and at +-inf.
std::string lgamma_value(EmitContext& ctx, const std::string& x, DType type) {
  auto c = [&](double v) { return ctx.const_scalar(v, type); };
  const std::string reflect = ctx.emit("Less", {x, c(0.5)});
  const std::string z = ctx.emit("Where", {reflect, ctx.emit("Sub", {c(1), x}), x});
  std::string shift_log = ctx.emit("Log", {z});
  for (int i = 1; i < 6; ++i) shift_log = ctx.emit("Add", {shift_log, ctx.emit("Log", {ctx.emit("Add", {z, c(i)})})});
  const std::string w = ctx.emit("Add", {z, c(6)});
  const std::string r = ctx.emit("Reciprocal", {w}), r2 = ctx.emit("Mul", {r, r});
  // 1/(12w) - 1/(360w^3) + 1/(1260w^5) - 1/(1680w^7), by Horner in 1/w^2
  std::string series = c(-1.0 / 1680);
  for (double k : {1.0 / 1260, -1.0 / 360, 1.0 / 12}) series = ctx.emit("Add", {ctx.emit("Mul", {series, r2}), c(k)});
  series = ctx.emit("Mul", {series, r});
  const std::string stirling = ctx.emit("Add", {ctx.emit("Sub", {ctx.emit("Mul", {ctx.emit("Sub", {w, c(0.5)}), ctx.emit("Log", {w})}), w}),
                                               ctx.emit("Add", {c(0.5 * std::log(2 * std::numbers::pi)), series})});
  const std::string lg_z = ctx.emit("Sub", {stirling, shift_log});
  const std::string sine = ctx.emit("Abs", {ctx.emit("Sin", {ctx.emit("Mul", {unit_offset(ctx, x), c(std::numbers::pi)})})});
  const std::string reflected = ctx.emit("Sub", {ctx.emit("Log", {ctx.emit("Div", {c(std::numbers::pi), sine})}), lg_z});
  const std::string value = ctx.emit("Where", {reflect, reflected, lg_z});
  const std::string infinite = ctx.emit("Or", {gamma_pole(ctx, x, type), ctx.emit("Equal", {ctx.emit("Abs", {x}), c(INFINITY)})});
  return ctx.emit("Where", {infinite, c(INFINITY), value});
}

// digamma of x: the asymptotic series (to 1/(240 w^8)) at w = z + 6 minus sum 1/(z + i), reflected
// with pi / tan(pi x) below 1/2; -1/x at +-0 (-inf, +inf), NaN at the negative integers and -inf.
std::string digamma_value(EmitContext& ctx, const std::string& x, DType type) {
  auto c = [&](double v) { return ctx.const_scalar(v, type); };
  const std::string reflect = ctx.emit("Less", {x, c(0.5)});
  const std::string z = ctx.emit("Where", {reflect, ctx.emit("Sub", {c(1), x}), x});
  std::string shift = ctx.emit("Reciprocal", {z});
  for (int i = 1; i < 6; ++i) shift = ctx.emit("Add", {shift, ctx.emit("Reciprocal", {ctx.emit("Add", {z, c(i)})})});
  const std::string w = ctx.emit("Add", {z, c(6)});
  const std::string r = ctx.emit("Reciprocal", {w}), r2 = ctx.emit("Mul", {r, r});
  // -1/(12w^2) + 1/(120w^4) - 1/(252w^6) + 1/(240w^8), by Horner in 1/w^2
  std::string series = c(1.0 / 240);
  for (double k : {-1.0 / 252, 1.0 / 120, -1.0 / 12}) series = ctx.emit("Add", {ctx.emit("Mul", {series, r2}), c(k)});
  series = ctx.emit("Mul", {series, r2});
  const std::string asym = ctx.emit("Add", {ctx.emit("Sub", {ctx.emit("Log", {w}), ctx.emit("Mul", {r, c(0.5)})}), series});
  const std::string psi_z = ctx.emit("Sub", {asym, shift});
  const std::string cot = ctx.emit("Div", {c(std::numbers::pi), ctx.emit("Tan", {ctx.emit("Mul", {unit_offset(ctx, x), c(std::numbers::pi)})})});
  std::string value = ctx.emit("Where", {reflect, ctx.emit("Sub", {psi_z, cot}), psi_z});
  const std::string undefined = ctx.emit("Or", {gamma_pole(ctx, x, type), ctx.emit("Equal", {x, c(-INFINITY)})});
  value = ctx.emit("Where", {undefined, c(NAN), value});
  return ctx.emit("Where", {ctx.emit("Equal", {x, c(0)}), ctx.emit("Neg", {ctx.emit("Reciprocal", {x})}), value});
}

RuleResult special(EmitContext& ctx, const ir::Node& node, std::string (*fn)(EmitContext&, const std::string&, DType)) {
  ArgReader args(ctx, node);
  const DType type = special_type(args);
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  return emitted(ctx, cast_if_needed(ctx, fn(ctx, x, type), type, result_dtype(args, type)));
}
// lgamma(Tensor self) -> Tensor. Checked against float64 torch over (-20, 30), see the op sample.
RuleResult aten_lgamma(EmitContext& ctx, const ir::Node& node) { return special(ctx, node, lgamma_value); }
// digamma(Tensor self) -> Tensor; polygamma(0, x)
RuleResult aten_digamma(EmitContext& ctx, const ir::Node& node) { return special(ctx, node, digamma_value); }

// polygamma(int n, Tensor self) -> Tensor: order 0 (digamma); higher orders are decomp_special.cpp's.
RuleResult aten_polygamma(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (args.get_int("n") != 0) return RuleResult::kDeclined;
  return special(ctx, node, digamma_value);
}

// mvlgamma(Tensor self, int p) -> Tensor: sum over i < p of lgamma(x - i/2), plus p(p-1)/4 log pi
RuleResult aten_mvlgamma(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = special_type(args);
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  const int64_t p = args.get_int("p");
  PT2ONNX_CHECK(p >= 1, ErrorCode::kUnsupported, "mvlgamma with p below 1");
  std::string sum = ctx.const_scalar(static_cast<double>(p * (p - 1)) / 4 * std::log(std::numbers::pi), type);
  for (int64_t i = 0; i < p; ++i)
    sum = ctx.emit("Add", {sum, lgamma_value(ctx, ctx.emit("Sub", {x, ctx.const_scalar(static_cast<double>(i) / 2, type)}), type)});
  return emitted(ctx, cast_if_needed(ctx, sum, type, result_dtype(args, type)));
}

// ---- regularized incomplete gamma functions ------------------------------------------------------

// A Loop body value of `type` (`scalar`: declared 0-d, as onnxruntime wants the iteration number
// and condition).
onnx::ValueInfoProto body_value(const std::string& name, DType type, bool scalar = false) {
  onnx::ValueInfoProto info;
  info.set_name(name);
  info.mutable_type()->mutable_tensor_type()->set_elem_type(onnx_dtype(type));
  if (scalar) info.mutable_type()->mutable_tensor_type()->mutable_shape();
  return info;
}

// P(a, x) and Q(a, x) = 1 - P for float64 a, x > 0 as cephes (and so torch) splits them: where x > 1
// and x > a, Q by the continued fraction (modified Lentz), else P by the power series
// x^a e^-x / Gamma(a + 1) sum x^n / ((a + 1)...(a + n)). One Loop runs both 40 + 12 sqrt(max a)
// steps (capped at 12,040, so a up to 1e6; both converge in O(sqrt(a)) steps where x is near a).
// torch's uniform asymptotic expansion for a > 20 near x is not needed at that count. Measured
// against float64 torch on 1e5 points with a up to 1e4 and x within a factor e of a, or uniform:
// at most 4e-10 absolute.
std::pair<std::string, std::string> incomplete_gamma(EmitContext& ctx, const std::string& a, const std::string& x) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string shape = ctx.shape_of(ctx.emit("Add", {a, x}));
  const std::string log_prefix = ctx.emit("Sub", {ctx.emit("Sub", {ctx.emit("Mul", {a, ctx.emit("Log", {x})}), x}), lgamma_value(ctx, a, DType::kFloat64)});
  const std::string prefix = ctx.emit("Exp", {log_prefix});  // x^a e^-x / Gamma(a)
  constexpr double kTiny = 1e-300;
  const std::string b0 = ctx.emit("Sub", {ctx.emit("Add", {x, c(1)}), a});
  const std::string d0 = ctx.emit("Reciprocal", {b0});

  onnx::GraphProto body;
  body.set_name(ctx.fresh_name("incomplete_gamma_step"));
  const std::string iter = ctx.fresh_name("i"), cond = ctx.fresh_name("cond"), term = ctx.fresh_name("term"), sum = ctx.fresh_name("sum"),
                    cc = ctx.fresh_name("lentz_c"), dd = ctx.fresh_name("lentz_d"), ff = ctx.fresh_name("fraction");
  *body.add_input() = body_value(iter, DType::kInt64, true);
  *body.add_input() = body_value(cond, DType::kBool, true);
  for (const std::string& v : {term, sum, cc, dd, ff}) *body.add_input() = body_value(v, DType::kFloat64);
  auto step = [&](const std::string& op, const std::vector<std::string>& in) { return append_body_node(ctx, body, op, in); };
  auto guard = [&](const std::string& v) { return step("Where", {step("Less", {step("Abs", {v}), c(kTiny)}), c(kTiny), v}); };
  const std::string k = append_body_node(ctx, body, "Cast", {step("Add", {iter, ctx.const_i64(1)})},
                                         {Attr("to", static_cast<int64_t>(onnx_dtype(DType::kFloat64)))});
  const std::string next_term = step("Div", {step("Mul", {term, x}), step("Add", {a, k})});
  const std::string next_sum = step("Add", {sum, next_term});
  const std::string an = step("Mul", {step("Neg", {k}), step("Sub", {k, a})});  // -k (k - a)
  const std::string b = step("Add", {b0, step("Mul", {k, c(2)})});
  const std::string next_d = step("Reciprocal", {guard(step("Add", {step("Mul", {an, dd}), b}))});
  const std::string next_c = guard(step("Add", {b, step("Div", {an, cc})}));
  const std::string next_f = step("Mul", {ff, step("Mul", {next_c, next_d})});
  *body.add_output() = body_value(step("Identity", {cond}), DType::kBool, true);
  for (const std::string& v : {next_term, next_sum, next_c, next_d, next_f}) *body.add_output() = body_value(v, DType::kFloat64);

  // Steps: 40 + 12 sqrt(the largest finite a), at most 12,040.
  const std::string finite_a = ctx.emit("Where", {ctx.emit("IsInf", {a}), c(0), ctx.emit("Where", {ctx.emit("IsNaN", {a}), c(0), a})});
  const std::string flat_a = ctx.concat({ctx.reshape(ctx.emit("Expand", {finite_a, shape}), ctx.const_i64s({-1})), ctx.unsqueeze(c(0), {0})}, 0);
  const std::string largest = ctx.reduce("ReduceMax", flat_a, std::nullopt, false);
  const std::string steps = ctx.cast(ctx.emit("Min", {ctx.emit("Add", {ctx.emit("Ceil", {ctx.emit("Mul", {ctx.emit("Sqrt", {ctx.emit("Max", {largest, c(0)})}), c(12)})}), c(40)}), c(12040)}),
                                     DType::kInt64);
  const std::string ones = ctx.emit("Expand", {c(1), shape});
  const std::vector<std::string> loop = ctx.emit("Loop", {steps, "", ones, ones, ctx.emit("Expand", {c(1 / kTiny), shape}),
                                                          ctx.emit("Expand", {d0, shape}), ctx.emit("Expand", {d0, shape})},
                                                 {Attr("body", std::move(body))}, 5);
  const std::string series_p = ctx.emit("Div", {ctx.emit("Mul", {prefix, loop[1]}), a});
  const std::string fraction_q = ctx.emit("Mul", {prefix, loop[4]});
  const std::string use_fraction = ctx.emit("And", {ctx.emit("Greater", {x, c(1)}), ctx.emit("Greater", {x, a})});
  return {ctx.emit("Where", {use_fraction, ctx.emit("Sub", {c(1), fraction_q}), series_p}),
          ctx.emit("Where", {use_fraction, fraction_q, ctx.emit("Sub", {c(1), series_p})})};
}

// igamma(Tensor self, Tensor other) -> Tensor: P(a = self, x = other); igammac: Q. torch's edge
// values: NaN for a < 0 or x < 0 and at a = x = 0; P = 1 (Q = 0) for a = 0 < x and at x = +inf;
// P = 0 (Q = 1) at x = 0 and at a = +inf; NaN at a = x = +inf.
RuleResult incomplete_gamma_rule(EmitContext& ctx, const ir::Node& node, bool upper) {
  ArgReader args(ctx, node);
  const DType out = result_dtype(args, DType::kFloat32);
  const std::string a = operand_as(ctx, args, "self", DType::kFloat64), x = operand_as(ctx, args, "other", DType::kFloat64);
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  auto [p, q] = incomplete_gamma(ctx, a, x);
  std::string value = upper ? q : p;
  const double full = upper ? 0 : 1, none = upper ? 1 : 0;  // the value where P is 1, where P is 0
  auto is = [&](const std::string& v, double k) { return ctx.emit("Equal", {v, c(k)}); };
  value = ctx.emit("Where", {is(x, 0), c(none), value});
  value = ctx.emit("Where", {is(a, INFINITY), c(none), value});
  value = ctx.emit("Where", {is(x, INFINITY), c(full), value});
  value = ctx.emit("Where", {is(a, 0), c(full), value});
  const std::string undefined = ctx.emit("Or", {ctx.emit("Or", {ctx.emit("Less", {a, c(0)}), ctx.emit("Less", {x, c(0)})}),
                                                ctx.emit("Or", {ctx.emit("And", {is(a, 0), is(x, 0)}), ctx.emit("And", {is(a, INFINITY), is(x, INFINITY)})})});
  value = ctx.emit("Where", {undefined, c(NAN), value});
  return emitted(ctx, cast_if_needed(ctx, value, DType::kFloat64, out));
}
RuleResult aten_igamma(EmitContext& ctx, const ir::Node& node) { return incomplete_gamma_rule(ctx, node, false); }
RuleResult aten_igammac(EmitContext& ctx, const ir::Node& node) { return incomplete_gamma_rule(ctx, node, true); }

// ---- powers, products and norms -----------------------------------------------------------------

// ldexp.Tensor(Tensor self, Tensor other) -> Tensor: self * 2^other
RuleResult aten_ldexp(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, DType::kFloat32);
  const std::string power = ctx.emit("Pow", {ctx.const_scalar(2, type), operand_as(ctx, args, "other", type)});
  return emitted(ctx, ctx.emit("Mul", {operand_as(ctx, args, "self", type), power}));
}

// float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor; Tensor_Scalar, Scalar: pow in float64
RuleResult aten_float_power(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Pow", {operand_as(ctx, args, "self", DType::kFloat64), operand_as(ctx, args, "exponent", DType::kFloat64)}));
}

// cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor. ONNX has no CumProd: the
// magnitude is exp(cumsum(log|x|)), the sign the parity of the negatives so far, and 0 from the
// first zero on. Integers go through float64 and are rounded back.
RuleResult aten_cumprod(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType out = result_dtype(args, args.dtype_of("self"));
  // A 0-d tensor is its own cumulative product (onnxruntime's CumSum refuses rank 0).
  if (args.rank_of("self") == 0) return emitted(ctx, cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), out));
  const DType type = is_floating(out) && out != DType::kFloat64 ? DType::kFloat32 : DType::kFloat64;
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  const std::string axis = ctx.const_i64(normalize_dim(args.get_int("dim"), std::max<int64_t>(args.rank_of("self"), 1)));
  auto c = [&](double v) { return ctx.const_scalar(v, type); };
  auto cumsum = [&](const std::string& v) { return ctx.emit("CumSum", {v, axis}); };
  const std::string zero = ctx.emit("Equal", {x, c(0)});
  const std::string logs = cumsum(ctx.emit("Log", {ctx.emit("Where", {zero, c(1), ctx.emit("Abs", {x})})}));
  const std::string negatives = cumsum(ctx.cast(ctx.emit("Less", {x, c(0)}), type));
  const std::string sign = ctx.emit("Sub", {c(1), ctx.emit("Mul", {c(2), ctx.emit("Mod", {negatives, c(2)}, {Attr("fmod", 1)})})});
  const std::string zero_seen = ctx.emit("Greater", {cumsum(ctx.cast(zero, type)), c(0)});
  std::string product = ctx.emit("Where", {zero_seen, c(0), ctx.emit("Mul", {sign, ctx.emit("Exp", {logs})})});
  if (!is_floating(out)) product = ctx.emit("Round", {product});
  return emitted(ctx, cast_if_needed(ctx, product, type, out));
}

// renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor: each slice along dim whose
// p-norm exceeds maxnorm scaled by maxnorm / (norm + 1e-7), as torch does.
RuleResult aten_renorm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const int64_t rank = args.rank_of("self");
  const int64_t dim = normalize_dim(args.get_int("dim"), rank);
  std::vector<int64_t> others;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim) others.push_back(i);
  const std::string x = args.tensor("self");
  const std::string norm = others.empty() ? ctx.emit("Abs", {x}) : vector_norm(ctx, x, args.scalar_number("p"), others, true, type);
  const std::string max_norm = ctx.const_scalar(args.scalar_number("maxnorm"), type);
  const std::string scale = ctx.emit("Div", {max_norm, ctx.emit("Add", {norm, ctx.const_scalar(1e-7, type)})});
  const std::string factor = ctx.emit("Where", {ctx.emit("Greater", {norm, max_norm}), scale, ctx.const_scalar(1, type)});
  return emitted(ctx, ctx.emit("Mul", {x, factor}));
}

// Whether a matrix norm's ord needs the singular values ("nuc", +-2): decomp_linalg.cpp's rules
// take those, these decline them.
bool singular_value_ord(const ArgReader& args) {
  if (!args.has("ord")) return false;
  if (const auto* text = std::get_if<std::string>(&args.arg("ord"))) return *text == "nuc";
  return std::abs(args.scalar_number("ord")) == 2;
}

// A matrix norm's ord: "fro" (also when absent), or a number (other orders refused by name).
std::optional<double> matrix_ord(const ArgReader& args) {
  if (!args.has("ord")) return std::nullopt;
  if (const auto* text = std::get_if<std::string>(&args.arg("ord"))) {
    PT2ONNX_CHECK(*text == "fro", ErrorCode::kUnsupported, "matrix norm of ord '" + *text + "' (needs an SVD)");
    return std::nullopt;
  }
  const double value = args.scalar_number("ord");
  PT2ONNX_CHECK(std::abs(value) == 1 || std::isinf(value), ErrorCode::kUnsupported,
                "matrix norm of ord " + std::to_string(value) + " (needs an SVD)");
  return value;
}

// The Frobenius norm (nullopt), or ord +-1 (max/min column sum of |x|), +-inf (row sums), over dims (rows, cols).
std::string matrix_norm(EmitContext& ctx, const std::string& x, std::optional<double> ord, int64_t rows, int64_t cols, bool keep) {
  const std::vector<int64_t> both = {std::min(rows, cols), std::max(rows, cols)};
  if (!ord) return ctx.reduce("ReduceL2", x, both, keep);
  const bool one = std::abs(*ord) == 1;
  const std::string sums = ctx.reduce("ReduceSum", ctx.emit("Abs", {x}), std::vector<int64_t>{one ? rows : cols}, true);
  const std::string m = ctx.reduce(*ord > 0 ? "ReduceMax" : "ReduceMin", sums, std::vector<int64_t>{one ? cols : rows}, true);
  return keep ? m : ctx.squeeze(m, both);
}

// linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None); .str_ord
RuleResult aten_linalg_matrix_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (singular_value_ord(args)) return RuleResult::kDeclined;
  const int64_t rank = args.rank_of("self");
  const std::vector<int64_t> dims = args.has("dim") ? normalize_dims(args.ints("dim"), rank) : std::vector<int64_t>{rank - 2, rank - 1};
  PT2ONNX_CHECK(dims.size() == 2, ErrorCode::kUnsupported, "a matrix norm over other than two dims");
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), result_dtype(args, args.dtype_of("self")));
  return emitted(ctx, matrix_norm(ctx, x, matrix_ord(args), dims[0], dims[1], args.bool_or("keepdim", false)));
}

// linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None); .ord_str:
// a vector norm over one dim (or a flattened tensor without ord), a matrix norm over two.
RuleResult aten_linalg_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  const bool keep = args.bool_or("keepdim", false);
  std::optional<std::vector<int64_t>> dims;
  if (args.has("dim")) dims = normalize_dims(args.ints("dim"), rank);
  if (!args.has("ord")) return emitted(ctx, ctx.reduce("ReduceL2", x, dims, keep));  // 2-norm or Frobenius alike
  const std::vector<int64_t> over = dims ? *dims : [&] {
    std::vector<int64_t> all;
    for (int64_t i = 0; i < rank; ++i) all.push_back(i);
    return all;
  }();
  if (over.size() == 2 && singular_value_ord(args)) return RuleResult::kDeclined;
  if (over.size() == 2) return emitted(ctx, matrix_norm(ctx, x, matrix_ord(args), over[0], over[1], keep));
  PT2ONNX_CHECK(over.size() == 1 && std::get_if<std::string>(&args.arg("ord")) == nullptr, ErrorCode::kUnsupported,
                "linalg_norm with an ord over other than one or two dims");
  return emitted(ctx, vector_norm(ctx, x, args.scalar_number("ord"), dims, keep, type));
}

// hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor: 0 inside [-lambd, lambd], else x (NaN kept;
// ONNX Shrink would give 0 for NaN).
RuleResult aten_hardshrink(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string x = args.tensor("self");
  const double lambd = args.has("lambd") ? args.scalar_number("lambd") : 0.5;
  const std::string inside = ctx.emit("And", {ctx.emit("GreaterOrEqual", {x, ctx.const_scalar(-lambd, type)}),
                                              ctx.emit("LessOrEqual", {x, ctx.const_scalar(lambd, type)})});
  return emitted(ctx, ctx.emit("Where", {inside, ctx.const_scalar(0, type), x}));
}

// softshrink(Tensor self, Scalar lambd=0.5) -> Tensor: x - lambd above lambd, x + lambd below
// -lambd, x * 0 between (NaN stays NaN).
RuleResult aten_softshrink(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string x = args.tensor("self");
  const std::string lambd = ctx.const_scalar(args.has("lambd") ? args.scalar_number("lambd") : 0.5, type);
  const std::string low = ctx.emit("Neg", {lambd});
  const std::string between = ctx.emit("Mul", {x, ctx.const_scalar(0, type)});
  const std::string below = ctx.emit("Where", {ctx.emit("Less", {x, low}), ctx.emit("Add", {x, lambd}), between});
  return emitted(ctx, ctx.emit("Where", {ctx.emit("Greater", {x, lambd}), ctx.emit("Sub", {x, lambd}), below}));
}

// threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor: value where x <= threshold.
RuleResult aten_threshold(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string x = args.tensor("self");
  return emitted(ctx, ctx.emit("Where", {ctx.emit("LessOrEqual", {x, args.scalar("threshold", type)}), args.scalar("value", type), x}));
}

// isreal(Tensor self) -> Tensor and real(Tensor self) of a real tensor: all true, and the value
// itself (complex inputs have their own rules).
RuleResult aten_isreal(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Expand", {ctx.const_bool(true), ctx.shape_of(args.tensor("self"))}));
}
RuleResult aten_real(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, args.tensor("self"));
}

// The trapezoid rule's terms along `dim` of y: (y[1:] + y[:-1]) * dx / 2, dx the spacing (a
// Scalar `dx`, or the differences of `x`, 1-D along dim or of y's rank), in the node's dtype.
std::string trapezoid_terms(EmitContext& ctx, const ArgReader& args, int64_t& dim) {
  const DType type = args.out_dtype();
  const int64_t rank = args.rank_of("y");
  dim = normalize_dim(args.int_or("dim", -1), rank);
  const std::string y = operand_as(ctx, args, "y", type);
  auto shifted = [&](const std::string& v, int64_t axis, int64_t begin, int64_t end) {
    return ctx.emit("Slice", {v, ctx.const_i64s({begin}), ctx.const_i64s({end}), ctx.const_i64s({axis})});
  };
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  const std::string sums = ctx.emit("Add", {shifted(y, dim, 1, kEnd), shifted(y, dim, 0, -1)});
  std::string spacing;
  if (args.is_tensor("x")) {
    const std::string x = operand_as(ctx, args, "x", type);
    const int64_t x_axis = args.rank_of("x") == 1 ? 0 : normalize_dim(args.int_or("dim", -1), args.rank_of("x"));
    spacing = ctx.emit("Sub", {shifted(x, x_axis, 1, kEnd), shifted(x, x_axis, 0, -1)});
    if (args.rank_of("x") == 1 && rank > 1) {
      std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
      shape[static_cast<size_t>(dim)] = -1;
      spacing = ctx.reshape(spacing, ctx.const_i64s(shape));
    }
  } else {
    spacing = args.has("dx") ? args.scalar("dx", type) : ctx.const_scalar(1, type);
  }
  return ctx.emit("Div", {ctx.emit("Mul", {sums, spacing}), ctx.const_scalar(2, type)});
}

// trapezoid.x(Tensor y, Tensor x, *, int dim=-1) / .dx(Tensor y, *, Scalar dx=1, int dim=-1), trapz alike
RuleResult aten_trapezoid(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  int64_t dim = 0;
  const std::string terms = trapezoid_terms(ctx, args, dim);
  return emitted(ctx, ctx.reduce("ReduceSum", terms, std::vector<int64_t>{dim}, false));
}

// cumulative_trapezoid.x / .dx: the running sums of the same terms.
RuleResult aten_cumulative_trapezoid(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  int64_t dim = 0;
  const std::string terms = trapezoid_terms(ctx, args, dim);
  return emitted(ctx, ctx.emit("CumSum", {terms, ctx.const_i64(dim)}));
}

// ---- gradient ----------------------------------------------------------------------------------

// v[begin:end] along `axis`.
std::string slice_along(EmitContext& ctx, const std::string& v, int64_t axis, int64_t begin, int64_t end) {
  return ctx.emit("Slice", {v, ctx.const_i64s({begin}), ctx.const_i64s({end}), ctx.const_i64s({axis})});
}

// torch.gradient of f along `axis` (numpy's formulas): second-order differences inside, one-sided
// ones of `edge_order` (1 or 2) at both ends. The spacing is a step `h` (uniform) or, where
// `coordinates` is set, the differences of those coordinates (1-D, one per element along axis).
std::string gradient_along(EmitContext& ctx, const std::string& f, int64_t axis, int64_t rank, double h,
                           const std::optional<std::string>& coordinates, int64_t edge_order, DType type) {
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  auto at = [&](int64_t begin, int64_t end) { return slice_along(ctx, f, axis, begin, end); };
  auto c = [&](double v) { return ctx.const_scalar(v, type); };
  auto mul = [&](const std::string& a, const std::string& b) { return ctx.emit("Mul", {a, b}); };
  auto add = [&](const std::string& a, const std::string& b) { return ctx.emit("Add", {a, b}); };
  auto sub = [&](const std::string& a, const std::string& b) { return ctx.emit("Sub", {a, b}); };
  auto div = [&](const std::string& a, const std::string& b) { return ctx.emit("Div", {a, b}); };
  std::string center, first, last;
  if (!coordinates) {
    const std::string step = c(h);
    center = div(div(sub(at(2, kEnd), at(0, -2)), step), c(2));
    if (edge_order == 1) {
      first = div(sub(at(1, 2), at(0, 1)), step);
      last = div(sub(at(-1, kEnd), at(-2, -1)), step);
    } else {
      first = div(add(sub(mul(at(1, 2), c(2)), mul(at(0, 1), c(1.5))), mul(at(2, 3), c(-0.5))), step);
      last = div(add(sub(mul(at(-3, -2), c(0.5)), mul(at(-2, -1), c(2))), mul(at(-1, kEnd), c(1.5))), step);
    }
  } else {
    // The differences dx [n-1], shaped [n-1, 1, ...] to broadcast along `axis`.
    std::string dx = sub(slice_along(ctx, *coordinates, 0, 1, kEnd), slice_along(ctx, *coordinates, 0, 0, -1));
    std::vector<int64_t> trailing;
    for (int64_t i = 1; i < rank - axis; ++i) trailing.push_back(i);
    if (!trailing.empty()) dx = ctx.unsqueeze(dx, trailing);
    auto d = [&](int64_t begin, int64_t end) { return slice_along(ctx, dx, 0, begin, end); };
    const std::string d1 = d(0, -1), d2 = d(1, kEnd), sum = add(d1, d2);
    const std::string a = div(ctx.emit("Neg", {d2}), mul(d1, sum)), b = div(sub(d2, d1), mul(d1, d2)), cc = div(d1, mul(d2, sum));
    center = add(add(mul(a, at(0, -2)), mul(b, at(1, -1))), mul(cc, at(2, kEnd)));
    if (edge_order == 1) {
      first = div(sub(at(1, 2), at(0, 1)), d(0, 1));
      last = div(sub(at(-1, kEnd), at(-2, -1)), d(-1, kEnd));
    } else {
      const std::string x0 = d(0, 1), x1 = d(1, 2), xs = add(x0, x1);
      first = add(add(mul(div(ctx.emit("Neg", {add(mul(x0, c(2)), x1)}), mul(x0, xs)), at(0, 1)), mul(div(xs, mul(x0, x1)), at(1, 2))),
                  mul(div(ctx.emit("Neg", {x0}), mul(x1, xs)), at(2, 3)));
      const std::string y0 = d(-1, kEnd), y1 = d(-2, -1), ys = add(y0, y1);
      last = add(add(mul(div(y0, mul(y1, ys)), at(-3, -2)), mul(div(ctx.emit("Neg", {ys}), mul(y0, y1)), at(-2, -1))),
                 mul(div(add(mul(y0, c(2)), y1), mul(y0, ys)), at(-1, kEnd)));
    }
  }
  return ctx.concat({first, center, last}, axis);
}

// gradient.scalarint(Tensor self, *, Scalar? spacing=None, int? dim=None, int edge_order=1) -> Tensor[]
// and the other overloads: spacing a Scalar (one step for every dim), a Scalar[] (a step per
// dim) or a Tensor[] (coordinates per dim); dim an int, an int[] or None (every dim, in order).
RuleResult aten_gradient(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t edge_order = args.int_or("edge_order", 1);
  PT2ONNX_CHECK(edge_order == 1 || edge_order == 2, ErrorCode::kUnsupported, "gradient with edge_order " + std::to_string(edge_order));
  std::vector<int64_t> dims;
  if (args.has("dim")) dims = normalize_dims(args.ints("dim"), rank);
  else for (int64_t i = 0; i < rank; ++i) dims.push_back(i);
  PT2ONNX_CHECK(ctx.output_count() == dims.size(), ErrorCode::kUnsupported, "gradient with another result count");
  std::vector<double> steps(dims.size(), 1.0);
  std::vector<std::optional<std::string>> coordinates(dims.size());
  const DType type = args.out_dtype();
  if (args.has("spacing")) {
    const ir::Argument& spacing = args.arg("spacing");
    if (std::holds_alternative<ir::TensorListArg>(spacing)) {
      const std::vector<std::string> coords = args.tensors("spacing");
      PT2ONNX_CHECK(coords.size() == dims.size(), ErrorCode::kUnsupported, "gradient with coordinates for another number of dims");
      for (size_t i = 0; i < dims.size(); ++i) coordinates[i] = cast_if_needed(ctx, coords[i], DType::kUnknown, type);
    } else if (std::holds_alternative<ir::SymFloatListArg>(spacing) || std::holds_alternative<ir::SymIntListArg>(spacing)) {
      steps = args.floats("spacing");
      PT2ONNX_CHECK(steps.size() == dims.size(), ErrorCode::kUnsupported, "gradient with steps for another number of dims");
    } else {
      steps.assign(dims.size(), args.scalar_number("spacing"));
    }
  }
  const std::string f = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  for (size_t i = 0; i < dims.size(); ++i)
    if (ctx.output_used(i)) ctx.set_output(i, gradient_along(ctx, f, dims[i], rank, steps[i], coordinates[i], edge_order, type));
  return RuleResult::kEmitted;
}

// searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False,
// str? side=None, Tensor? sorter=None) with a 1-D sequence and no sorter: bucketize of self; also
// searchsorted.Scalar (Scalar self).
RuleResult aten_searchsorted(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.rank_of("sorted_sequence") == 1 && !args.has("sorter"), ErrorCode::kUnsupported,
                "searchsorted with a sequence of rank other than 1 or a sorter");
  const bool right = args.string_or("side", args.bool_or("right", false) ? "right" : "left") == "right";
  const DType type = torch_result_type(args, {"self", "sorted_sequence"});
  const std::string x = ctx.unsqueeze(operand_as(ctx, args, "self", type), {-1});
  const std::string b = operand_as(ctx, args, "sorted_sequence", type);
  const std::string below = ctx.emit(right ? "LessOrEqual" : "Less", {b, x});
  const std::string count = ctx.reduce("ReduceSum", ctx.cast(below, DType::kInt64), std::vector<int64_t>{operand_rank(args, "self")}, false);
  return emitted(ctx, cast_if_needed(ctx, count, DType::kInt64, args.out_dtype()));
}

// a and b contracted over a_dims/b_dims (pairwise): a's free dims, then b's. Both are permuted
// (a's contracted dims last, b's first) and flattened to matrices for one MatMul.
std::string contract(EmitContext& ctx, const std::string& a, const std::string& b, int64_t rank_a, int64_t rank_b,
                     const std::vector<int64_t>& a_dims, const std::vector<int64_t>& b_dims) {
  std::vector<int64_t> a_free, b_free;
  for (int64_t i = 0; i < rank_a; ++i)
    if (std::find(a_dims.begin(), a_dims.end(), i) == a_dims.end()) a_free.push_back(i);
  for (int64_t i = 0; i < rank_b; ++i)
    if (std::find(b_dims.begin(), b_dims.end(), i) == b_dims.end()) b_free.push_back(i);
  std::vector<int64_t> a_perm = a_free, b_perm = b_dims;
  a_perm.insert(a_perm.end(), a_dims.begin(), a_dims.end());
  b_perm.insert(b_perm.end(), b_free.begin(), b_free.end());
  const std::string at = ctx.transpose(a, a_perm), bt = ctx.transpose(b, b_perm);
  const auto free_a = static_cast<int64_t>(a_free.size()), free_b = static_cast<int64_t>(b_free.size());
  const std::string a2 = ctx.reshape(at, ctx.concat({ctx.const_i64s({-1}), ctx.reduce("ReduceProd", ctx.shape_slice(at, free_a, rank_a), std::vector<int64_t>{0}, true)}, 0));
  const std::string b2 = ctx.reshape(bt, ctx.concat({ctx.reduce("ReduceProd", ctx.shape_slice(bt, 0, rank_b - free_b), std::vector<int64_t>{0}, true), ctx.const_i64s({-1})}, 0));
  const std::string product = ctx.emit("MatMul", {a2, b2});
  return ctx.reshape(product, ctx.concat({ctx.shape_slice(at, 0, free_a), ctx.shape_slice(bt, rank_b - free_b, rank_b)}, 0));
}

// tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor
RuleResult aten_tensordot(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  auto [a, b] = pair_as_result(ctx, args, "self", "other");
  const int64_t rank_a = args.rank_of("self"), rank_b = args.rank_of("other");
  const std::vector<int64_t> a_dims = normalize_dims(args.ints("dims_self"), rank_a), b_dims = normalize_dims(args.ints("dims_other"), rank_b);
  // torch broadcasts a contracted dim of size 1 against the other's: that side is summed first.
  const ir::TensorMeta &ma = args.meta("self"), &mb = args.meta("other");
  for (size_t i = 0; i < a_dims.size() && i < b_dims.size(); ++i) {
    const ir::Dim &da = ma.sizes[static_cast<size_t>(a_dims[i])], &db = mb.sizes[static_cast<size_t>(b_dims[i])];
    if (!da.is_static() || !db.is_static() || da.as_int() == db.as_int()) continue;
    if (da.as_int() == 1) b = ctx.reduce("ReduceSum", b, std::vector<int64_t>{b_dims[i]}, true);
    else if (db.as_int() == 1) a = ctx.reduce("ReduceSum", a, std::vector<int64_t>{a_dims[i]}, true);
  }
  return emitted(ctx, contract(ctx, a, b, rank_a, rank_b, a_dims, b_dims));
}

// inner(Tensor self, Tensor other) -> Tensor: the product over both last dims (a 0-d operand scales).
RuleResult aten_inner(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto [a, b] = pair_as_result(ctx, args, "self", "other");
  const int64_t rank_a = args.rank_of("self"), rank_b = args.rank_of("other");
  if (rank_a == 0 || rank_b == 0) return emitted(ctx, ctx.emit("Mul", {a, b}));
  return emitted(ctx, contract(ctx, a, b, rank_a, rank_b, {rank_a - 1}, {rank_b - 1}));
}

}  // namespace

void register_composite_math_rules(RuleTable& t) {
  t.add("aten.nan_to_num.default", aten_nan_to_num);
  t.add("aten.nan_to_num_.default", aten_nan_to_num);
  t.add("aten.copysign.Tensor", aten_copysign);
  t.add("aten.copysign.Scalar", aten_copysign);
  t.add("aten.fmax.default", aten_fmax);
  t.add("aten.fmin.default", aten_fmin);
  t.add("aten.nansum.default", aten_nansum);
  t.add("aten.nanmean.default", aten_nanmean);
  t.add("aten.aminmax.default", aten_aminmax);
  t.add("aten.trace.default", aten_trace);
  t.add("aten.round.decimals", aten_round_decimals);
  t.add("aten.isin.Tensor_Tensor", aten_isin);
  t.add("aten.isin.Tensor_Scalar", aten_isin);
  t.add("aten.isin.Scalar_Tensor", aten_isin);
  t.add("aten.bucketize.Tensor", aten_bucketize);
  t.add("aten.bucketize.Scalar", aten_bucketize);
  t.add("aten.one_hot.default", aten_one_hot);
  t.add("aten.cosine_similarity.default", aten_cosine_similarity);
  t.add("aten.pairwise_distance.default", aten_pairwise_distance);
  t.add("aten._weight_norm.default", aten_weight_norm);
  t.add("aten._weight_norm_interface.default", aten_weight_norm);
  t.add("aten.erfinv.default", aten_erfinv);
  t.add("aten.special_ndtri.default", aten_special_ndtri);
  t.add("aten.igamma.default", aten_igamma);
  t.add("aten.special_gammainc.default", aten_igamma);
  t.add("aten.igammac.default", aten_igammac);
  t.add("aten.special_gammaincc.default", aten_igammac);
  t.add("aten.lgamma.default", aten_lgamma);
  t.add("aten.digamma.default", aten_digamma);
  t.add("aten.special_digamma.default", aten_digamma);
  t.add("aten.special_psi.default", aten_digamma);
  t.add("aten.polygamma.default", aten_polygamma, "order 0 only (digamma); higher orders are the series rule's");
  t.add("aten.mvlgamma.default", aten_mvlgamma);
  t.add("aten.special_multigammaln.default", aten_mvlgamma);
  t.add("aten.ldexp.Tensor", aten_ldexp);
  t.add("aten.float_power.Tensor_Tensor", aten_float_power);
  t.add("aten.float_power.Tensor_Scalar", aten_float_power);
  t.add("aten.float_power.Scalar", aten_float_power);
  t.add("aten.cumprod.default", aten_cumprod);
  t.add("aten.renorm.default", aten_renorm);
  constexpr std::string_view kSvdOrds = "ords nuc and +-2 are decomp_linalg.cpp's";
  t.add("aten.linalg_matrix_norm.default", aten_linalg_matrix_norm, kSvdOrds);
  t.add("aten.linalg_matrix_norm.str_ord", aten_linalg_matrix_norm, kSvdOrds);
  t.add("aten.linalg_norm.default", aten_linalg_norm, kSvdOrds);
  t.add("aten.linalg_norm.ord_str", aten_linalg_norm, kSvdOrds);
  t.add("aten.hardshrink.default", aten_hardshrink);
  t.add("aten.softshrink.default", aten_softshrink);
  t.add("aten.threshold.default", aten_threshold);
  t.add("aten.isreal.default", aten_isreal);
  t.add("aten.real.default", aten_real);
  t.add("aten.trapezoid.x", aten_trapezoid);
  t.add("aten.trapezoid.dx", aten_trapezoid);
  t.add("aten.trapz.x", aten_trapezoid);
  t.add("aten.trapz.dx", aten_trapezoid);
  t.add("aten.cumulative_trapezoid.x", aten_cumulative_trapezoid);
  t.add("aten.cumulative_trapezoid.dx", aten_cumulative_trapezoid);
  for (const char* overload : {"scalarint", "scalararray", "array", "scalarrayint", "scalarrayarray", "tensorarrayint", "tensorarray"})
    t.add(std::string("aten.gradient.") + overload, aten_gradient);
  t.add("aten.searchsorted.Tensor", aten_searchsorted);
  t.add("aten.searchsorted.Scalar", aten_searchsorted);
  t.add("aten.tensordot.default", aten_tensordot);
  t.add("aten.inner.default", aten_inner);
}

}  // namespace pt2onnx::translate
