// Composite math ops that the default IR keeps (torch's _decomp/_refs, done here): nan_to_num,
// hypot, copysign, fmax/fmin, nansum/nanmean, count_nonzero, aminmax, trace, round(decimals),
// isin, bucketize, one_hot, cosine_similarity, pairwise_distance, _weight_norm, and erfinv, which
// ONNX lacks (a published polynomial approximation, its error stated), lgamma/digamma/mvlgamma
// (series with recurrence and reflection), ldexp, float_power, cumprod, renorm, linalg_norm and
// linalg_matrix_norm (Frobenius, 1, inf); hardshrink/softshrink/threshold, outer, vdot, dist,
// isreal/real of real tensors, tensordot and inner (one MatMul), the trapezoid rule (trapezoid, trapz, cumulative_trapezoid) and
// searchsorted of a 1-D sequence.
#include <algorithm>
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

// hypot(Tensor self, Tensor other) -> Tensor
RuleResult aten_hypot(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto [a, b] = pair_as_result(ctx, args, "self", "other");
  return emitted(ctx, ctx.emit("Sqrt", {ctx.emit("Add", {ctx.emit("Mul", {a, a}), ctx.emit("Mul", {b, b})})}));
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
  const std::string m = ctx.emit(op, {a, b});
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

// count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor; count_nonzero.default(Tensor self, int? dim=None)
RuleResult aten_count_nonzero(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string zero = ctx.const_scalar(0, type == DType::kBool ? DType::kInt32 : type);
  const std::string x = type == DType::kBool ? ctx.cast(args.tensor("self"), DType::kInt32) : args.tensor("self");
  const std::string nonzero = ctx.cast(ctx.emit("Not", {ctx.emit("Equal", {x, zero})}), DType::kInt64);
  return emitted(ctx, ctx.reduce("ReduceSum", nonzero, dims_or_all(args), false));
}

// aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)
RuleResult aten_aminmax(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto axes = dims_or_all(args);
  const bool keep = args.bool_or("keepdim", false) && axes.has_value();
  ctx.set_output(0, ctx.reduce("ReduceMin", args.tensor("self"), axes, keep));
  if (ctx.output_used(1)) ctx.set_output(1, ctx.reduce("ReduceMax", args.tensor("self"), axes, keep));
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
// invert=False) -> Tensor; isin.Tensor_Scalar(Tensor elements, Scalar test_element, ...)
RuleResult aten_isin(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const char* test = args.has("test_elements") ? "test_elements" : "test_element";
  DType type = torch_result_type(args, {"elements", test});
  const std::string elements = operand_as(ctx, args, "elements", type);
  const std::string tests = ctx.reshape(operand_as(ctx, args, test, type), ctx.const_i64s({-1}));
  const std::string hits = ctx.cast(ctx.emit("Equal", {ctx.unsqueeze(elements, {-1}), tests}), DType::kInt32);
  const int64_t rank = args.rank_of("elements");
  std::string found = ctx.emit("Greater", {ctx.reduce("ReduceSum", hits, std::vector<int64_t>{rank}, false), ctx.const_scalar(0, DType::kInt32)});
  if (args.bool_or("invert", false)) found = ctx.emit("Not", {found});
  return emitted(ctx, found);
}

// bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False):
// the number of (sorted) boundaries below x (right: at or below x).
RuleResult aten_bucketize(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = torch_result_type(args, {"self", "boundaries"});
  const std::string x = ctx.unsqueeze(operand_as(ctx, args, "self", type), {-1});
  const std::string b = operand_as(ctx, args, "boundaries", type);
  const std::string below = ctx.emit(args.bool_or("right", false) ? "LessOrEqual" : "Less", {b, x});
  const std::string count = ctx.reduce("ReduceSum", ctx.cast(below, DType::kInt64), std::vector<int64_t>{args.rank_of("self")}, false);
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

// A matrix norm's ord: "fro" (also when absent), or a number. "nuc" and the spectral +-2 need an
// SVD, which ONNX lacks: refused by name.
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

// outer(Tensor self, Tensor vec2) -> Tensor: self[:, None] * vec2.
RuleResult aten_outer(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto [a, b] = pair_as_result(ctx, args, "self", "vec2");
  return emitted(ctx, ctx.emit("Mul", {ctx.unsqueeze(a, {1}), b}));
}

// vdot(Tensor self, Tensor other) -> Tensor: sum(self * other) of real vectors (complex ones are
// refused: the conjugate).
RuleResult aten_vdot(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto [a, b] = pair_as_result(ctx, args, "self", "other");
  return emitted(ctx, ctx.reduce("ReduceSum", ctx.emit("Mul", {a, b}), std::nullopt, false));
}

// dist(Tensor self, Tensor other, Scalar p=2) -> Tensor: the p-norm of self - other, all elements.
RuleResult aten_dist(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, torch_result_type(args, {"self", "other"}));
  const auto [a, b] = pair_as_result(ctx, args, "self", "other");
  const double p = args.has("p") ? args.scalar_number("p") : 2.0;
  return emitted(ctx, vector_norm(ctx, ctx.emit("Sub", {a, b}), p, std::nullopt, false, type));
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

// searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False,
// str? side=None, Tensor? sorter=None) with a 1-D sequence and no sorter: bucketize of self.
RuleResult aten_searchsorted(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.rank_of("sorted_sequence") == 1 && !args.has("sorter"), ErrorCode::kUnsupported,
                "searchsorted with a sequence of rank other than 1 or a sorter");
  const bool right = args.string_or("side", args.bool_or("right", false) ? "right" : "left") == "right";
  const DType type = torch_result_type(args, {"self", "sorted_sequence"});
  const std::string x = ctx.unsqueeze(operand_as(ctx, args, "self", type), {-1});
  const std::string b = operand_as(ctx, args, "sorted_sequence", type);
  const std::string below = ctx.emit(right ? "LessOrEqual" : "Less", {b, x});
  const std::string count = ctx.reduce("ReduceSum", ctx.cast(below, DType::kInt64), std::vector<int64_t>{args.rank_of("self")}, false);
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
  t.add("aten.hypot.default", aten_hypot);
  t.add("aten.copysign.Tensor", aten_copysign);
  t.add("aten.copysign.Scalar", aten_copysign);
  t.add("aten.fmax.default", aten_fmax);
  t.add("aten.fmin.default", aten_fmin);
  t.add("aten.nansum.default", aten_nansum);
  t.add("aten.nanmean.default", aten_nanmean);
  t.add("aten.count_nonzero.dim_IntList", aten_count_nonzero);
  t.add("aten.count_nonzero.default", aten_count_nonzero);
  t.add("aten.aminmax.default", aten_aminmax);
  t.add("aten.trace.default", aten_trace);
  t.add("aten.round.decimals", aten_round_decimals);
  t.add("aten.isin.Tensor_Tensor", aten_isin);
  t.add("aten.isin.Tensor_Scalar", aten_isin);
  t.add("aten.bucketize.Tensor", aten_bucketize);
  t.add("aten.one_hot.default", aten_one_hot);
  t.add("aten.cosine_similarity.default", aten_cosine_similarity);
  t.add("aten.pairwise_distance.default", aten_pairwise_distance);
  t.add("aten._weight_norm.default", aten_weight_norm);
  t.add("aten.erfinv.default", aten_erfinv);
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
  t.add("aten.linalg_matrix_norm.default", aten_linalg_matrix_norm);
  t.add("aten.linalg_matrix_norm.str_ord", aten_linalg_matrix_norm);
  t.add("aten.linalg_norm.default", aten_linalg_norm);
  t.add("aten.linalg_norm.ord_str", aten_linalg_norm);
  t.add("aten.hardshrink.default", aten_hardshrink);
  t.add("aten.softshrink.default", aten_softshrink);
  t.add("aten.threshold.default", aten_threshold);
  t.add("aten.outer.default", aten_outer);
  t.add("aten.ger.default", aten_outer);
  t.add("aten.vdot.default", aten_vdot);
  t.add("aten.dist.default", aten_dist);
  t.add("aten.isreal.default", aten_isreal);
  t.add("aten.real.default", aten_real);
  t.add("aten.trapezoid.x", aten_trapezoid);
  t.add("aten.trapezoid.dx", aten_trapezoid);
  t.add("aten.trapz.x", aten_trapezoid);
  t.add("aten.trapz.dx", aten_trapezoid);
  t.add("aten.cumulative_trapezoid.x", aten_cumulative_trapezoid);
  t.add("aten.cumulative_trapezoid.dx", aten_cumulative_trapezoid);
  t.add("aten.searchsorted.Tensor", aten_searchsorted);
  t.add("aten.tensordot.default", aten_tensordot);
  t.add("aten.inner.default", aten_inner);
}

}  // namespace pt2onnx::translate
