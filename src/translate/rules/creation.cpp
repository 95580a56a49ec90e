// Creation rules: arange, linspace/logspace, full/zeros/ones/empty and their *_like and new_* forms, scalar_tensor,
// tril/triu. Shapes may be symbolic; the element type is the node's output dtype.
#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/constant_tensors.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// A tensor of `shape` (a 1-D int64 value) filled with the Scalar argument `fill` (or `value`
// when `fill` is empty) in `type`.
std::string filled(EmitContext& ctx, const ArgReader& args, const std::string& shape, const std::string& fill, double value,
                   DType type) {
  const bool symbolic = !fill.empty() && args.has(fill) && std::holds_alternative<ir::SymIntArg>(args.arg(fill)) &&
                        !args.is_static_int(fill);
  if (symbolic) return ctx.emit("Expand", {args.scalar(fill, type), shape});
  const double v = fill.empty() || !args.has(fill) ? value : args.scalar_number(fill);
  // ConstantOfShape takes bfloat16 from opset 20 on; before, fill in float32 and cast.
  const DType fill_type = (type == DType::kBFloat16 && ctx.opset() < 20) ? DType::kFloat32 : type;
  const std::string out = ctx.emit("ConstantOfShape", {shape}, {Attr("value", filled_tensor(v, fill_type, {1}))});
  return cast_if_needed(ctx, out, fill_type, type);
}

DType creation_dtype(const ArgReader& args, DType fallback) {
  if (auto d = args.dtype("dtype")) return result_dtype(args, *d);
  return result_dtype(args, fallback);
}

// full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, ...) -> Tensor
RuleResult aten_full(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  DType inferred = operand_dtype(args, "fill_value");
  if (inferred == DType::kFloat64) inferred = DType::kFloat32;  // a Python float gives the default dtype
  return emitted(ctx, filled(ctx, args, args.ints_value("size"), "fill_value", 0, creation_dtype(args, inferred)));
}

// zeros(SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor; empty.memory_format gives zeros too
RuleResult aten_zeros(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, filled(ctx, args, args.ints_value("size"), "", 0, creation_dtype(args, DType::kFloat32)));
}

// ones(SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
RuleResult aten_ones(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, filled(ctx, args, args.ints_value("size"), "", 1, creation_dtype(args, DType::kFloat32)));
}

// full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, ...) -> Tensor
RuleResult aten_full_like(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = creation_dtype(args, args.dtype_of("self"));
  return emitted(ctx, filled(ctx, args, ctx.shape_of(args.tensor("self")), "fill_value", 0, type));
}

// zeros_like(Tensor self, *, ScalarType? dtype=None, ...) -> Tensor; empty_like gives zeros too
RuleResult aten_zeros_like(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, filled(ctx, args, ctx.shape_of(args.tensor("self")), "", 0, creation_dtype(args, args.dtype_of("self"))));
}

// ones_like(Tensor self, *, ScalarType? dtype=None, ...) -> Tensor
RuleResult aten_ones_like(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, filled(ctx, args, ctx.shape_of(args.tensor("self")), "", 1, creation_dtype(args, args.dtype_of("self"))));
}

// new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, ...) -> Tensor
RuleResult aten_new_full(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, filled(ctx, args, args.ints_value("size"), "fill_value", 0, creation_dtype(args, args.dtype_of("self"))));
}

// new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor; new_empty alike
RuleResult aten_new_zeros(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, filled(ctx, args, args.ints_value("size"), "", 0, creation_dtype(args, args.dtype_of("self"))));
}

// new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
RuleResult aten_new_ones(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, filled(ctx, args, args.ints_value("size"), "", 1, creation_dtype(args, args.dtype_of("self"))));
}

// scalar_tensor(Scalar s, *, ScalarType? dtype=None, ...) -> Tensor
RuleResult aten_scalar_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = creation_dtype(args, DType::kFloat32);
  return emitted(ctx, args.scalar("s", type));
}

// arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, ...) -> Tensor;
// arange.start(start, end), arange.default(end)
RuleResult aten_arange(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType fallback = torch_result_type(args, {"start", "end", "step"}) == DType::kInt64 ? DType::kInt64 : DType::kFloat32;
  const DType type = creation_dtype(args, fallback);
  // torch counts ceil((end - start) / step) and computes start + i * step in double for floating
  // dtypes (arange(0.1, 1.1, 1.0) has one element; in float32 the count would be 2), so floating
  // results are computed in float64 and cast. Range takes int16/32/64; other integers use int64.
  const bool native_int = type == DType::kInt16 || type == DType::kInt32 || type == DType::kInt64;
  // An integer dtype from float bounds: torch counts in double, then steps by the step truncated
  // (arange(5, 0, -0.5, dtype=int64) is ten 5s).
  bool float_bounds = false;
  for (const char* name : {"start", "end", "step"}) float_bounds = float_bounds || (args.has(name) && args.is_float_scalar(name));
  if (!is_floating(type) && float_bounds) {
    auto bound = [&](const char* name, double absent, DType as) {
      return args.has(name) ? args.scalar(name, as) : ctx.const_scalar(absent, as);
    };
    const std::string counted = ctx.emit("Range", {bound("start", 0, DType::kFloat64), bound("end", 0, DType::kFloat64),
                                                   bound("step", 1, DType::kFloat64)});
    const std::string index = ctx.emit("Range", {ctx.const_i64(0), ctx.squeeze(ctx.shape_of(counted), {0}), ctx.const_i64(1)});
    const std::string start = ctx.cast(bound("start", 0, DType::kFloat64), DType::kInt64);
    const std::string step = ctx.cast(bound("step", 1, DType::kFloat64), DType::kInt64);  // Cast truncates, as torch does
    return emitted(ctx, cast_if_needed(ctx, ctx.emit("Add", {start, ctx.emit("Mul", {index, step})}), DType::kInt64, type));
  }
  const DType compute = is_floating(type) ? DType::kFloat64 : native_int ? type : DType::kInt64;
  const std::string start = args.has("start") ? args.scalar("start", compute) : ctx.const_scalar(0, compute);
  const std::string step = args.has("step") ? args.scalar("step", compute) : ctx.const_scalar(1, compute);
  const std::string range = ctx.emit("Range", {start, args.scalar("end", compute), step});
  return emitted(ctx, cast_if_needed(ctx, range, compute, type));
}

// tril(Tensor self, int diagonal=0) -> Tensor; triu likewise
RuleResult trilu(EmitContext& ctx, const ir::Node& node, bool upper) {
  ArgReader args(ctx, node);
  const std::string k = args.has("diagonal") ? args.int_value("diagonal") : ctx.const_i64(0);
  return emitted(ctx, ctx.emit("Trilu", {args.tensor("self"), k}, {Attr("upper", upper ? 1 : 0)}));
}
RuleResult aten_tril(EmitContext& ctx, const ir::Node& node) { return trilu(ctx, node, false); }
RuleResult aten_triu(EmitContext& ctx, const ir::Node& node) { return trilu(ctx, node, true); }


// linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, ...) -> Tensor. torch's
// two-sided form: start + i * step in the first half, end - (steps - 1 - i) * step in the second,
// computed in float (double for float64) and cast to the dtype (integer dtypes truncate). One step
// is `start` alone, so its only element belongs to the first half.
RuleResult aten_linspace(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = creation_dtype(args, DType::kFloat32);
  const DType compute = type == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  const int64_t steps = args.get_int("steps");
  PT2ONNX_CHECK(steps >= 0, ErrorCode::kUnsupported, "linspace with negative steps");
  const double start = args.scalar_number("start"), end = args.scalar_number("end");
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  const std::string index = ctx.emit("Range", {ctx.const_scalar(0, compute), ctx.const_scalar(static_cast<double>(steps), compute),
                                               ctx.const_scalar(1, compute)});
  const std::string step_v = ctx.const_scalar(step, compute);
  const std::string low = ctx.emit("Add", {ctx.const_scalar(start, compute), ctx.emit("Mul", {index, step_v})});
  const std::string from_end = ctx.emit("Sub", {ctx.const_scalar(static_cast<double>(steps - 1), compute), index});
  const std::string high = ctx.emit("Sub", {ctx.const_scalar(end, compute), ctx.emit("Mul", {from_end, step_v})});
  const int64_t halfway = steps == 1 ? 1 : steps / 2;
  const std::string first_half = ctx.emit("Less", {index, ctx.const_scalar(static_cast<double>(halfway), compute)});
  return emitted(ctx, cast_if_needed(ctx, ctx.emit("Where", {first_half, low, high}), compute, type));
}

}  // namespace

// linspace's values between two 0-D values of `compute`, the step computed in the graph in the
// compute type as torch's kernel does, with its two-sided form (also torch.histogram's bin edges).
std::string linspace_between(EmitContext& ctx, const std::string& start, const std::string& end, int64_t steps, DType compute) {
  const std::string step = steps > 1 ? ctx.emit("Div", {ctx.emit("Sub", {end, start}), ctx.const_scalar(static_cast<double>(steps - 1), compute)})
                                     : ctx.const_scalar(0, compute);
  const std::string index = ctx.emit("Range", {ctx.const_scalar(0, compute), ctx.const_scalar(static_cast<double>(steps), compute),
                                               ctx.const_scalar(1, compute)});
  const std::string low = ctx.emit("Add", {start, ctx.emit("Mul", {index, step})});
  const std::string from_end = ctx.emit("Sub", {ctx.const_scalar(static_cast<double>(steps - 1), compute), index});
  const std::string high = ctx.emit("Sub", {end, ctx.emit("Mul", {from_end, step})});
  const int64_t halfway = steps == 1 ? 1 : steps / 2;
  const std::string first_half = ctx.emit("Less", {index, ctx.const_scalar(static_cast<double>(halfway), compute)});
  return ctx.emit("Where", {first_half, low, high});
}

namespace {

// linspace's values from start/end Scalars or 0-d tensors (torch reads their items).
std::string linspace_values(EmitContext& ctx, const ArgReader& args, DType compute) {
  const int64_t steps = args.get_int("steps");
  PT2ONNX_CHECK(steps >= 0, ErrorCode::kUnsupported, "linspace/logspace with negative steps");
  auto bound = [&](const std::string& name) {
    if (!args.is_tensor(name)) return args.scalar(name, compute);
    PT2ONNX_CHECK(args.rank_of(name) == 0, ErrorCode::kUnsupported, "linspace/logspace with a " + name + " tensor that is not 0-d");
    return cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), compute);
  };
  return linspace_between(ctx, bound("start"), bound("end"), steps, compute);
}

// linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, ...), Tensor_Scalar, Scalar_Tensor
RuleResult aten_linspace_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = creation_dtype(args, DType::kFloat32);
  const DType compute = type == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  return emitted(ctx, cast_if_needed(ctx, linspace_values(ctx, args, compute), compute, type));
}

// logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None, ...) -> Tensor
// and its Tensor_Tensor/Tensor_Scalar/Scalar_Tensor forms: base ** linspace(start, end, steps).
RuleResult aten_logspace(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = creation_dtype(args, DType::kFloat32);
  const DType compute = type == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  const std::string base = ctx.const_scalar(args.float_or("base", 10.0), compute);
  return emitted(ctx, cast_if_needed(ctx, ctx.emit("Pow", {base, linspace_values(ctx, args, compute)}), compute, type));
}

}  // namespace

void register_creation_rules(RuleTable& t) {
  t.add("aten.linspace.Tensor_Tensor", aten_linspace_tensor);
  t.add("aten.linspace.Tensor_Scalar", aten_linspace_tensor);
  t.add("aten.linspace.Scalar_Tensor", aten_linspace_tensor);
  t.add("aten.logspace.default", aten_logspace);
  t.add("aten.logspace.Tensor_Tensor", aten_logspace);
  t.add("aten.logspace.Tensor_Scalar", aten_logspace);
  t.add("aten.logspace.Scalar_Tensor", aten_logspace);
  t.add("aten.linspace.default", aten_linspace);
  t.add("aten.full.default", aten_full);
  t.add("aten.zeros.default", aten_zeros);
  t.add("aten.empty.memory_format", aten_zeros);
  t.add("aten.empty_permuted.default", aten_zeros);  // the layout only changes strides
  // empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, ...): the strides
  // only place elements in memory; ONNX tensors are dense, and empty memory reads as zeros.
  t.add("aten.empty_strided.default", aten_zeros);
  t.add("aten.new_empty_strided.default", aten_new_zeros);
  t.add("aten.ones.default", aten_ones);
  t.add("aten.full_like.default", aten_full_like);
  t.add("aten.zeros_like.default", aten_zeros_like);
  t.add("aten.empty_like.default", aten_zeros_like);
  t.add("aten.ones_like.default", aten_ones_like);
  t.add("aten.new_full.default", aten_new_full);
  t.add("aten.new_zeros.default", aten_new_zeros);
  t.add("aten.new_empty.default", aten_new_zeros);
  t.add("aten.new_ones.default", aten_new_ones);
  t.add("aten.scalar_tensor.default", aten_scalar_tensor);
  t.add("aten.arange.default", aten_arange);
  t.add("aten.arange.start", aten_arange);
  t.add("aten.arange.start_step", aten_arange);
  t.add("aten.tril.default", aten_tril);
  t.add("aten.triu.default", aten_triu);
}

}  // namespace pt2onnx::translate
