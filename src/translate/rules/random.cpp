// Random numbers: rand/randn (and _like), randint (and _like), normal, bernoulli and multinomial as
// ONNX's Random* ops and Multinomial; the functional forms of the in-place fills (uniform,
// exponential, cauchy, log_normal, geometric) as transforms of a uniform or normal draw; randperm
// as the order of uniform draws. Seeding: no `seed` attribute is written, so the
// runtime draws new numbers on every run; torch's generator state has no ONNX form, so a converted
// model matches torch in distribution (shape, dtype, range, moments), never value for value.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <string>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

bool is_float(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 || t == DType::kBFloat16;
}

// Random<kind> of the node's `size` (static: the plain op; symbolic: the _Like op of a tensor of
// that shape) in `type`.
std::string random_of_size(EmitContext& ctx, const ArgReader& args, std::string_view kind, DType type,
                           std::vector<Attr> attrs) {
  attrs.emplace_back("dtype", int64_t{onnx_dtype(type)});
  if (args.is_static_ints("size")) {
    attrs.emplace_back("shape", args.ints("size"));
    return ctx.emit("Random" + std::string(kind), {}, attrs);
  }
  const std::string like = ctx.emit("ConstantOfShape", {args.ints_value("size")});
  return ctx.emit("Random" + std::string(kind) + "Like", {like}, attrs);
}

// Random<kind>Like of the `self` argument's shape.
std::string random_like(EmitContext& ctx, const ArgReader& args, std::string_view kind, DType type, std::vector<Attr> attrs) {
  attrs.emplace_back("dtype", int64_t{onnx_dtype(type)});
  return ctx.emit("Random" + std::string(kind) + "Like", {args.tensor("self")}, attrs);
}

DType float_result(const ArgReader& args, DType fallback) {
  const DType type = args.dtype("dtype").value_or(fallback);
  PT2ONNX_CHECK(is_float(type), ErrorCode::kUnsupported, "random floats of dtype " + std::string(ir::dtype_name(type)));
  return type;
}

// Uniform integers in [low, high): floor of a float64 uniform draw, cast to the result dtype.
std::string int_draw(EmitContext& ctx, const std::string& uniform, DType type) {
  return ctx.cast(ctx.emit("Floor", {uniform}), type);
}

// rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
RuleResult aten_rand(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, random_of_size(ctx, args, "Uniform", float_result(args, DType::kFloat32), {}));
}
// randn(SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
RuleResult aten_randn(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, random_of_size(ctx, args, "Normal", float_result(args, DType::kFloat32), {}));
}
// rand_like(Tensor self, *, ScalarType? dtype=None, ..., MemoryFormat? memory_format=None) -> Tensor
RuleResult aten_rand_like(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, random_like(ctx, args, "Uniform", float_result(args, args.dtype_of("self")), {}));
}
// randn_like(Tensor self, *, ScalarType? dtype=None, ...) -> Tensor
RuleResult aten_randn_like(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, random_like(ctx, args, "Normal", float_result(args, args.dtype_of("self")), {}));
}

// randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=long, ...); randint(SymInt high, SymInt[] size, ...)
RuleResult aten_randint(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const double low = args.has("low") ? static_cast<double>(args.get_int("low")) : 0, high = static_cast<double>(args.get_int("high"));
  const DType type = args.dtype("dtype").value_or(DType::kInt64);
  const std::string u = random_of_size(ctx, args, "Uniform", DType::kFloat64, {Attr("low", low), Attr("high", high)});
  return emitted(ctx, int_draw(ctx, u, type));
}
// randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, ScalarType? dtype=None, ...); randint_like(self, SymInt high, ...)
RuleResult aten_randint_like(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const double low = args.has("low") ? static_cast<double>(args.get_int("low")) : 0, high = static_cast<double>(args.get_int("high"));
  const DType type = args.dtype("dtype").value_or(args.dtype_of("self"));
  const std::string u = random_like(ctx, args, "Uniform", DType::kFloat64, {Attr("low", low), Attr("high", high)});
  return emitted(ctx, int_draw(ctx, u, type));
}

// normal.Tensor_float(Tensor mean, float std=1, *, Generator?); normal.float_Tensor(float mean, Tensor std);
// normal.Tensor_Tensor(Tensor mean, Tensor std): mean + std * N(0, 1) over their broadcast shape
RuleResult aten_normal_tensors(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, DType::kFloat32);
  const std::string mean = operand_as(ctx, args, "mean", type), std = operand_as(ctx, args, "std", type);
  const std::string z = ctx.emit("RandomNormalLike", {ctx.emit("Add", {mean, std})}, {Attr("dtype", int64_t{onnx_dtype(type)})});
  return emitted(ctx, ctx.emit("Add", {mean, ctx.emit("Mul", {std, z})}));
}
// normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, ScalarType? dtype=None, ...)
RuleResult aten_normal_floats(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = float_result(args, DType::kFloat32);
  return emitted(ctx, random_of_size(ctx, args, "Normal", type,
                                     {Attr("mean", args.get_float("mean")), Attr("scale", args.get_float("std"))}));
}

// A 0/1 draw of probability `p` (a value of self's shape or a 0-D float32) in self's dtype:
// uniform < p. Not ONNX Bernoulli: onnxruntime 1.32's draws ones with probability 1 - p.
std::string bernoulli_draw(EmitContext& ctx, const ArgReader& args, const std::string& p, DType p_type) {
  const std::string u = random_like(ctx, args, "Uniform", p_type, {});
  return ctx.cast(ctx.emit("Less", {u, p}), args.dtype_of("self"));
}
// normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!);
// normal_functional(Tensor self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor
// (self: only the shape and dtype)
RuleResult aten_normal_like_self(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = float_result(args, args.dtype_of("self"));
  return emitted(ctx, random_like(ctx, args, "Normal", type,
                                  {Attr("mean", args.float_or("mean", 0)), Attr("scale", args.float_or("std", 1))}));
}

// bernoulli(Tensor self, *, Generator? generator=None) -> Tensor   (self: the probabilities)
RuleResult aten_bernoulli(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, bernoulli_draw(ctx, args, args.tensor("self"), float_result(args, args.dtype_of("self"))));
}
// bernoulli.p(Tensor self, float p=0.5, *, Generator? generator=None) -> Tensor   (self: only the shape and dtype)
RuleResult aten_bernoulli_p(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, bernoulli_draw(ctx, args, ctx.const_scalar(args.get_float("p"), DType::kFloat32), DType::kFloat32));
}

// bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor   (self: only the
// shape and dtype; p broadcast to it)
RuleResult aten_bernoulli_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = float_result(args, args.dtype_of("p"));
  return emitted(ctx, bernoulli_draw(ctx, args, args.tensor("p"), type));
}

// A uniform draw in [0, 1) of self's shape in self's floating dtype (the fills below keep it).
std::string unit_draw(EmitContext& ctx, const ArgReader& args) {
  return random_like(ctx, args, "Uniform", float_result(args, args.dtype_of("self")), {});
}
std::string scalar_of_self(EmitContext& ctx, const ArgReader& args, double v) { return ctx.const_scalar(v, args.dtype_of("self")); }

// uniform(Tensor self, float from=0, float to=1, *, Generator? generator=None) -> Tensor
RuleResult aten_uniform(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, random_like(ctx, args, "Uniform", float_result(args, args.dtype_of("self")),
                                  {Attr("low", args.float_or("from", 0)), Attr("high", args.float_or("to", 1))}));
}
// exponential(Tensor self, float lambd=1, *, Generator? generator=None) -> Tensor: -log(1 - u) / lambd
RuleResult aten_exponential(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string tail = ctx.emit("Log", {ctx.emit("Sub", {scalar_of_self(ctx, args, 1), unit_draw(ctx, args)})});
  return emitted(ctx, ctx.emit("Div", {ctx.emit("Neg", {tail}), scalar_of_self(ctx, args, args.float_or("lambd", 1))}));
}
// cauchy(Tensor self, float median=0, float sigma=1, *, Generator? generator=None) -> Tensor:
// median + sigma * tan(pi (u - 1/2))
RuleResult aten_cauchy(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string angle = ctx.emit("Mul", {ctx.emit("Sub", {unit_draw(ctx, args), scalar_of_self(ctx, args, 0.5)}), scalar_of_self(ctx, args, std::numbers::pi)});
  return emitted(ctx, ctx.emit("Add", {scalar_of_self(ctx, args, args.float_or("median", 0)),
                                       ctx.emit("Mul", {scalar_of_self(ctx, args, args.float_or("sigma", 1)), ctx.emit("Tan", {angle})})}));
}
// log_normal(Tensor self, float mean=1, float std=2, *, Generator? generator=None) -> Tensor: exp of a normal draw
RuleResult aten_log_normal(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Exp", {random_like(ctx, args, "Normal", float_result(args, args.dtype_of("self")),
                                                   {Attr("mean", args.float_or("mean", 1)), Attr("scale", args.float_or("std", 2))})}));
}
// geometric(Tensor self, float p, *, Generator? generator=None) -> Tensor: the number of trials to the
// first success, ceil(log(1 - u) / log(1 - p)), at least 1, in self's dtype (drawn in float64)
RuleResult aten_geometric(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const double p = args.get_float("p");
  PT2ONNX_CHECK(p > 0 && p <= 1, ErrorCode::kUnsupported, "geometric with p " + std::to_string(p) + " outside (0, 1]");
  const std::string u = random_like(ctx, args, "Uniform", DType::kFloat64, {});
  const std::string trials = ctx.emit("Ceil", {ctx.emit("Div", {ctx.emit("Log", {ctx.emit("Sub", {ctx.const_scalar(1, DType::kFloat64), u})}),
                                                               ctx.const_scalar(std::log1p(-p), DType::kFloat64)})});
  return emitted(ctx, ctx.cast(ctx.emit("Max", {trials, ctx.const_scalar(1, DType::kFloat64)}), args.dtype_of("self")));
}
// randint_like.Tensor(Tensor self, Tensor high, *, ScalarType? dtype=None, ...): integers in [0, high)
RuleResult aten_randint_like_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype("dtype").value_or(args.dtype_of("self"));
  const std::string high = cast_if_needed(ctx, args.tensor("high"), args.dtype_of("high"), DType::kFloat64);
  const std::string u = random_like(ctx, args, "Uniform", DType::kFloat64, {});
  return emitted(ctx, int_draw(ctx, ctx.emit("Mul", {u, high}), type));
}
// randperm(SymInt n, *, ScalarType? dtype=long, ...) -> Tensor: the ascending order of n uniform
// draws, each of the n! orders equally likely (ties have probability ~n^2 / 2^53)
RuleResult aten_randperm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string n = ctx.unsqueeze(args.int_value("n"), {0});
  const std::string u = ctx.emit("RandomUniformLike", {ctx.emit("ConstantOfShape", {n})}, {Attr("dtype", int64_t{onnx_dtype(DType::kFloat64)})});
  const std::vector<std::string> order = ctx.emit("TopK", {u, n}, {Attr("axis", int64_t{0}), Attr("largest", int64_t{0})}, 2);
  return emitted(ctx, cast_if_needed(ctx, order[1], DType::kInt64, args.dtype("dtype").value_or(DType::kInt64)));
}

// multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor.
// ONNX Multinomial draws with replacement from log-probabilities; without replacement only one
// sample per row has the same distribution.
RuleResult aten_multinomial(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t samples = args.get_int("num_samples");
  PT2ONNX_CHECK(args.bool_or("replacement", false) || samples == 1, ErrorCode::kUnsupported,
                "multinomial without replacement of " + std::to_string(samples) +
                    " samples (ONNX Multinomial draws with replacement)");
  const int64_t rank = args.rank_of("self");
  std::string logits = ctx.emit("Log", {args.tensor("self")});
  if (rank == 1) logits = ctx.unsqueeze(logits, {0});
  std::string out = ctx.emit("Multinomial", {logits}, {Attr("sample_size", samples), Attr("dtype", int64_t{onnx_dtype(DType::kInt64)})});
  if (rank == 1) out = ctx.squeeze(out, {0});
  return emitted(ctx, out);
}

// random(Tensor self, *, Generator? generator=None), random.to(Tensor self, int to, ...) and
// random.from(Tensor self, int from, int? to, ...): integers uniform in [from, to), drawn in float64,
// in self's dtype. Without `to`, a float type's range is [0, 2^digits] (every integer it holds
// exactly); for integer types that range is refused (float64 draws do not reach every int64).
RuleResult aten_random(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const double from = static_cast<double>(args.int_or("from", 0));
  std::optional<int64_t> to = args.optional_int("to");
  if (!to) {
    const int digits = type == DType::kFloat32 ? 24 : type == DType::kFloat64 ? 53 : type == DType::kFloat16 ? 11 : type == DType::kBFloat16 ? 8 : 0;
    PT2ONNX_CHECK(digits > 0 || type == DType::kBool, ErrorCode::kUnsupported,
                  "random_ over the whole range of " + std::string(ir::dtype_name(type)) + " (give `to`)");
    to = type == DType::kBool ? 2 : (int64_t{1} << digits) + 1;
  }
  PT2ONNX_CHECK(static_cast<double>(*to) > from, ErrorCode::kUnsupported, "random_ with an empty range");
  const std::string u = random_like(ctx, args, "Uniform", DType::kFloat64, {});
  const std::string span = ctx.const_scalar(static_cast<double>(*to) - from, DType::kFloat64);
  const std::string drawn = ctx.emit("Add", {ctx.emit("Floor", {ctx.emit("Mul", {u, span})}), ctx.const_scalar(from, DType::kFloat64)});
  return emitted(ctx, ctx.cast(drawn, type));
}

}  // namespace

void register_random_rules(RuleTable& t) {
  t.add("aten.rand.default", aten_rand);
  t.add("aten.randn.default", aten_randn);
  t.add("aten.rand_like.default", aten_rand_like);
  t.add("aten.randn_like.default", aten_randn_like);
  t.add("aten.randint.default", aten_randint);
  t.add("aten.randint.low", aten_randint);
  t.add("aten.randint_like.default", aten_randint_like);
  t.add("aten.randint_like.low_dtype", aten_randint_like);
  t.add("aten.normal.Tensor_float", aten_normal_tensors);
  t.add("aten.normal.float_Tensor", aten_normal_tensors);
  t.add("aten.normal.Tensor_Tensor", aten_normal_tensors);
  t.add("aten.normal.float_float", aten_normal_floats);
  t.add("aten.normal_.default", aten_normal_like_self);
  t.add("aten.normal_functional.default", aten_normal_like_self);
  t.add("aten.bernoulli.default", aten_bernoulli);
  t.add("aten.bernoulli.p", aten_bernoulli_p);
  t.add("aten.multinomial.default", aten_multinomial);
  t.add("aten.bernoulli.Tensor", aten_bernoulli_tensor);
  t.add("aten.uniform.default", aten_uniform);
  t.add("aten.exponential.default", aten_exponential);
  t.add("aten.cauchy.default", aten_cauchy);
  t.add("aten.log_normal.default", aten_log_normal);
  t.add("aten.geometric.default", aten_geometric);
  t.add("aten.randint_like.Tensor", aten_randint_like_tensor);
  t.add("aten.randperm.default", aten_randperm);
  t.add("aten.random.default", aten_random);
  t.add("aten.random.from", aten_random);
  t.add("aten.random.to", aten_random);
}

}  // namespace pt2onnx::translate
