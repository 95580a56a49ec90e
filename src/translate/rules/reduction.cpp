// Reduction rules: mean/sum/prod/amax/amin, max/min with indices, argmax/argmin, any/all,
// var/std, logsumexp, vector norms, cumsum, logcumsumexp, mse_loss (the NLL and cross entropy
// losses: cross_entropy.cpp). Reduce* take their axes as opset-dependent attribute or input
// (EmitContext::reduce); an empty or absent dim list reduces everything.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/typed_emit.h"
#include "translate/rule_helpers.h"
#include "translate/subgraph_body.h"

namespace pt2onnx::translate {

std::string vector_norm(EmitContext& ctx, const std::string& x, double ord, const std::optional<std::vector<int64_t>>& axes,
                        bool keepdim, ir::DType type) {
  // ord 0 counts the nonzero entries (the limit of sum |x|^p, not its p-th root).
  if (ord == 0) {
    const std::string nonzero = ctx.cast(ctx.emit("Not", {ctx.emit("Equal", {x, ctx.const_scalar(0, type)})}), type);
    return ctx.reduce("ReduceSum", nonzero, axes, keepdim);
  }
  if (ord == 2) return ctx.reduce("ReduceL2", x, axes, keepdim);
  if (ord == 1) return ctx.reduce("ReduceL1", x, axes, keepdim);
  if (std::isinf(ord)) return ctx.reduce(ord > 0 ? "ReduceMax" : "ReduceMin", ctx.emit("Abs", {x}), axes, keepdim);
  const std::string powered = ctx.emit("Pow", {ctx.emit("Abs", {x}), ctx.const_scalar(ord, type)});
  return ctx.emit("Pow", {ctx.reduce("ReduceSum", powered, axes, keepdim), ctx.const_scalar(1.0 / ord, type)});
}

std::string reduce_loss(EmitContext& ctx, const std::string& loss, int64_t reduction) {
  if (reduction == 0) return loss;
  return ctx.reduce(reduction == 1 ? "ReduceMean" : "ReduceSum", loss, std::nullopt, false);
}

namespace {

using ir::DType;

// The `dim` argument normalised; nullopt (every axis) when None or empty.
std::optional<std::vector<int64_t>> reduce_axes(const ArgReader& args, const std::string& name = "dim") {
  if (!args.has(name) || args.rank_of("self") == 0) return std::nullopt;
  std::vector<int64_t> dims = args.ints(name);
  if (dims.empty()) return std::nullopt;
  return normalize_dims(dims, args.rank_of("self"));
}

// `self` cast to the node's result dtype (dtype= argument, or torch's int -> int64 promotion).
std::string self_as_result(EmitContext& ctx, const ArgReader& args) {
  return cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), result_dtype(args, args.dtype_of("self")));
}

RuleResult reduce(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  return emitted(ctx, reduce_in(ctx, op, self_as_result(ctx, args), result_dtype(args, args.dtype_of("self")),
                                reduce_axes(args), args.bool_or("keepdim", false)));
}

// sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor; sum.default
RuleResult aten_sum(EmitContext& ctx, const ir::Node& node) { return reduce(ctx, node, "ReduceSum"); }
// amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
RuleResult aten_amax(EmitContext& ctx, const ir::Node& node) { return reduce(ctx, node, "ReduceMax"); }
// amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
RuleResult aten_amin(EmitContext& ctx, const ir::Node& node) { return reduce(ctx, node, "ReduceMin"); }
// logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor
RuleResult aten_logsumexp(EmitContext& ctx, const ir::Node& node) { return reduce(ctx, node, "ReduceLogSumExp"); }

// prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor; prod.default
RuleResult aten_prod(EmitContext& ctx, const ir::Node& node) { return reduce(ctx, node, "ReduceProd"); }

// max.default(Tensor self) -> Tensor / min.default: every element
RuleResult aten_max_all(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, reduce_in(ctx, "ReduceMax", args.tensor("self"), args.dtype_of("self"), std::nullopt, false));
}
RuleResult aten_min_all(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, reduce_in(ctx, "ReduceMin", args.tensor("self"), args.dtype_of("self"), std::nullopt, false));
}

// max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices); min.dim likewise.
// torch returns the first index of an extreme value, like select_last_index=0. A 0-d tensor (dim
// 0 or -1) is its own extreme, at index 0.
RuleResult max_min_dim(EmitContext& ctx, const ir::Node& node, std::string_view reduce_op, std::string_view arg_op) {
  ArgReader args(ctx, node);
  if (args.rank_of("self") == 0) {
    ctx.set_output(0, args.tensor("self"));
    if (ctx.output_used(1)) ctx.set_output(1, ctx.const_i64(0));
    return RuleResult::kEmitted;
  }
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  const bool keep = args.bool_or("keepdim", false);
  const DType type = args.dtype_of("self");
  ctx.set_output(0, reduce_in(ctx, reduce_op, args.tensor("self"), type, std::vector<int64_t>{dim}, keep));
  if (ctx.output_used(1))
    ctx.set_output(1, emit_in(ctx, arg_op, {args.tensor("self")}, type, {Attr("axis", dim), Attr("keepdims", keep ? 1 : 0)}));
  return RuleResult::kEmitted;
}
RuleResult aten_max_dim(EmitContext& ctx, const ir::Node& node) { return max_min_dim(ctx, node, "ReduceMax", "ArgMax"); }
RuleResult aten_min_dim(EmitContext& ctx, const ir::Node& node) { return max_min_dim(ctx, node, "ReduceMin", "ArgMin"); }

// argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor; argmin likewise
RuleResult arg_extreme(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  const bool keep = args.bool_or("keepdim", false);
  if (!args.has("dim") || args.rank_of("self") == 0) {
    // Over the flattened tensor; keepdim gives all-ones dims. A 0-d tensor takes this path with
    // any dim (0 or -1): ONNX has no axis 0 in rank 0, and its result is 0-d either way.
    const std::string flat = ctx.reshape(args.tensor("self"), ctx.const_i64s({-1}));
    std::string index = ctx.emit(op, {flat}, {Attr("axis", 0), Attr("keepdims", 0)});
    if (keep) index = ctx.emit("Reshape", {index, ctx.const_i64s(std::vector<int64_t>(args.rank_of("self"), 1))});
    return emitted(ctx, index);
  }
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  return emitted(ctx, ctx.emit(op, {args.tensor("self")}, {Attr("axis", dim), Attr("keepdims", keep ? 1 : 0)}));
}
RuleResult aten_argmax(EmitContext& ctx, const ir::Node& node) { return arg_extreme(ctx, node, "ArgMax"); }
RuleResult aten_argmin(EmitContext& ctx, const ir::Node& node) { return arg_extreme(ctx, node, "ArgMin"); }

// any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor; any.dims, any.default; all likewise.
// Reduce* take no bools before opset 20, so reduce the 0/1 int32 form.
RuleResult any_all(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  const std::string flags = ctx.cast(cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kBool), DType::kInt32);
  const std::string reduced = ctx.reduce(op, flags, reduce_axes(args), args.bool_or("keepdim", false));
  return emitted(ctx, ctx.cast(reduced, result_dtype(args, DType::kBool)));
}
RuleResult aten_any(EmitContext& ctx, const ir::Node& node) { return any_all(ctx, node, "ReduceMax"); }
RuleResult aten_all(EmitContext& ctx, const ir::Node& node) { return any_all(ctx, node, "ReduceMin"); }

// Number of elements the `axes` of an FX tensor hold (all axes when nullopt), as a 0-D `type` value.
std::string reduced_count(EmitContext& ctx, const ArgReader& args, const std::optional<std::vector<int64_t>>& axes, DType type) {
  const ir::TensorMeta& meta = args.meta("self");
  std::vector<int64_t> all;
  for (int64_t i = 0; i < static_cast<int64_t>(meta.sizes.size()); ++i) all.push_back(i);
  const std::vector<int64_t>& list = axes ? *axes : all;
  int64_t product = 1;
  bool is_static = true;
  for (int64_t a : list) {
    if (!meta.sizes[a].is_static()) is_static = false;
    else product *= meta.sizes[a].as_int();
  }
  if (is_static) return ctx.const_scalar(static_cast<double>(product), type);
  const std::string sizes = sizes_value(ctx, args.tensor_fx("self"), list);
  return ctx.cast(ctx.reduce("ReduceProd", sizes, std::nullopt, false), type);
}

// The mean of x (self, or a value of its shape) over `axes`. torch's mean of no elements is NaN,
// onnxruntime's ReduceMean gives 0: where the reduced count is statically 0, it is sum / 0.
std::string mean_of(EmitContext& ctx, const ArgReader& args, const std::string& x, const std::optional<std::vector<int64_t>>& axes,
                    bool keep, DType type) {
  const ir::TensorMeta& meta = args.meta("self");
  bool empty = false;
  for (int64_t i = 0; i < static_cast<int64_t>(meta.sizes.size()); ++i) {
    const bool reduced = !axes || std::find(axes->begin(), axes->end(), i) != axes->end();
    if (reduced && meta.sizes[i].is_static() && meta.sizes[i].as_int() == 0) empty = true;
  }
  if (!empty) return ctx.reduce("ReduceMean", x, axes, keep);
  return ctx.emit("Div", {ctx.reduce("ReduceSum", x, axes, keep), ctx.const_scalar(0, type)});
}

// mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor; mean.default
RuleResult aten_mean(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("self"));
  return emitted(ctx, mean_of(ctx, args, self_as_result(ctx, args), reduce_axes(args), args.bool_or("keepdim", false), type));
}

// Sets var (and std, mean) outputs for var/std/var_mean/std_mean with `correction`.
RuleResult variance(EmitContext& ctx, const ir::Node& node, bool take_sqrt, bool with_mean) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::optional<std::vector<int64_t>> axes = reduce_axes(args);
  const bool keep = args.bool_or("keepdim", false);
  // correction= (new overloads) or unbiased= (old): default 1, Bessel's correction.
  double correction = 1;
  if (args.has("correction")) correction = args.get_float("correction");
  else if (args.has("unbiased")) correction = args.get_bool("unbiased") ? 1 : 0;
  const std::string x = args.tensor("self");
  const std::string mean = mean_of(ctx, args, x, axes, true, type);
  const std::string centered = ctx.emit("Sub", {x, mean});
  const std::string squares = ctx.reduce("ReduceSum", ctx.emit("Mul", {centered, centered}), axes, keep);
  const std::string count = reduced_count(ctx, args, axes, type);
  const std::string divisor = correction == 0 ? count : ctx.emit("Sub", {count, ctx.const_scalar(correction, type)});
  std::string result = ctx.emit("Div", {squares, ctx.emit("Max", {divisor, ctx.const_scalar(0, type)})});
  if (take_sqrt) result = ctx.emit("Sqrt", {result});
  ctx.set_output(0, result);
  if (with_mean) ctx.set_output(1, keep ? mean : mean_of(ctx, args, x, axes, false, type));
  return RuleResult::kEmitted;
}
// var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
RuleResult aten_var(EmitContext& ctx, const ir::Node& node) { return variance(ctx, node, false, false); }
// std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
RuleResult aten_std(EmitContext& ctx, const ir::Node& node) { return variance(ctx, node, true, false); }
// var_mean.correction(...) -> (Tensor, Tensor)
RuleResult aten_var_mean(EmitContext& ctx, const ir::Node& node) { return variance(ctx, node, false, true); }
// std_mean.correction(...) -> (Tensor, Tensor)
RuleResult aten_std_mean(EmitContext& ctx, const ir::Node& node) { return variance(ctx, node, true, true); }

// linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None);
// norm.Scalar(Tensor self, Scalar p=2), norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False)
// and their dtype forms: the same norm, the order named p (None: 2)
RuleResult aten_linalg_vector_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const double ord = args.has("ord") ? args.scalar_number("ord") : args.has("p") ? args.scalar_number("p") : 2.0;
  const DType type = result_dtype(args, args.dtype_of("self"));
  return emitted(ctx, vector_norm(ctx, self_as_result(ctx, args), ord, reduce_axes(args), args.bool_or("keepdim", false), type));
}

// topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
RuleResult aten_topk(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (args.rank_of("self") == 0) {  // torch takes k = 1 of a 0-d tensor: itself, at index 0
    PT2ONNX_CHECK(args.is_static_int("k") && args.get_int("k") == 1, ErrorCode::kUnsupported, "topk of a 0-d tensor with k other than 1");
    ctx.set_output(0, args.tensor("self"));
    if (ctx.output_used(1)) ctx.set_output(1, ctx.const_i64(0));
    return RuleResult::kEmitted;
  }
  const int64_t dim = normalize_dim(args.int_or("dim", -1), args.rank_of("self"));
  const std::string k = ctx.unsqueeze(args.int_value("k"), {0});
  const std::vector<std::string> outs = emit_in(ctx, "TopK", {args.tensor("self"), k}, args.dtype_of("self"),
                                                {Attr("axis", dim), Attr("largest", args.bool_or("largest", true) ? 1 : 0),
                                                 Attr("sorted", 1)},
                                                2);
  ctx.set_output(0, outs[0]);
  ctx.set_output(1, outs[1]);
  return RuleResult::kEmitted;
}

// Values and indices of `self` sorted along `dim`: TopK of every element. TopK puts equal
// elements in index order, which is torch's stable order either way.
std::vector<std::string> sorted_by_topk(EmitContext& ctx, const ArgReader& args) {
  // A 0-d tensor is sorted already, at index 0 (TopK needs rank 1 or more).
  if (args.rank_of("self") == 0) return {args.tensor("self"), ctx.const_i64(0)};
  const int64_t dim = normalize_dim(args.int_or("dim", -1), args.rank_of("self"));
  const std::string k = ctx.unsqueeze(ctx.size_of(args.tensor_fx("self"), dim), {0});
  return emit_in(ctx, "TopK", {args.tensor("self"), k}, args.dtype_of("self"),
                 {Attr("axis", dim), Attr("largest", args.bool_or("descending", false) ? 1 : 0), Attr("sorted", 1)}, 2);
}

// sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices); sort.stable
RuleResult aten_sort(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<std::string> outs = sorted_by_topk(ctx, args);
  ctx.set_output(0, outs[0]);
  ctx.set_output(1, outs[1]);
  return RuleResult::kEmitted;
}

// argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor, and argsort.stable: sort's indices
RuleResult aten_argsort(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, sorted_by_topk(ctx, args)[1]);
}

// cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
RuleResult aten_cumsum(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  // A 0-d tensor is its own cumulative sum (onnxruntime's CumSum refuses rank 0).
  if (args.rank_of("self") == 0) return emitted(ctx, self_as_result(ctx, args));
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  return emitted(ctx, ctx.emit("CumSum", {self_as_result(ctx, args), ctx.const_i64(dim)}));
}

// A formal input/output of a Scan body: its element type, shape left open.
onnx::ValueInfoProto body_value(const std::string& name, DType type) {
  onnx::ValueInfoProto info;
  info.set_name(name);
  info.mutable_type()->mutable_tensor_type()->set_elem_type(onnx_dtype(type));
  return info;
}

// logcumsumexp(Tensor self, int dim) -> Tensor
// A Scan along `dim` whose state is the running result r (from -inf): r' = max(r, x) +
// log(1 + exp(min - max)), the same infinity kept as is. Each step is exact to rounding whatever
// the spread of the values (log(cumsum(exp(x - max))) underflows to -inf at small early values).
// 16-bit floats are computed in float32.
RuleResult aten_logcumsumexp(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const DType out = result_dtype(args, args.dtype_of("self"));
  const DType type = out == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  if (rank == 0) return emitted(ctx, cast_if_needed(ctx, x, type, out));
  const int64_t dim = normalize_dim(args.get_int("dim"), rank);

  const std::string one = ctx.const_scalar(1, type);
  onnx::GraphProto body;
  body.set_name(ctx.fresh_name(node.name + "_step"));
  const std::string r = ctx.fresh_name("running");
  const std::string xt = ctx.fresh_name("x_t");
  *body.add_input() = body_value(r, type);
  *body.add_input() = body_value(xt, type);
  auto step = [&](const std::string& op, const std::vector<std::string>& in) { return append_body_node(ctx, body, op, in); };
  const std::string hi = step("Max", {r, xt});
  const std::string lo = step("Min", {r, xt});
  const std::string tail = step("Log", {step("Add", {step("Exp", {step("Sub", {lo, hi})}), one})});
  const std::string same_inf = step("And", {step("IsInf", {hi}), step("Equal", {hi, lo})});
  const std::string next = step("Where", {same_inf, hi, step("Add", {hi, tail})});
  const std::string each = step("Identity", {next});
  *body.add_output() = body_value(next, type);
  *body.add_output() = body_value(each, type);

  const std::string slice_shape =
      ctx.concat({ctx.shape_slice(x, 0, dim), ctx.shape_slice(x, dim + 1, INT64_MAX)}, 0);
  const std::string start = ctx.emit("Expand", {ctx.const_scalar(-INFINITY, type), slice_shape});
  const std::vector<std::string> scan =
      ctx.emit("Scan", {start, x},
               {Attr("body", std::move(body)), Attr("num_scan_inputs", int64_t{1}),
                Attr("scan_input_axes", std::vector<int64_t>{dim}), Attr("scan_output_axes", std::vector<int64_t>{dim})},
               2);
  return emitted(ctx, cast_if_needed(ctx, scan[1], type, out));
}

// diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor
// prepend/append are concatenated along `dim` first; then n times x[1:] - x[:-1] (logical xor
// for bool, as torch does).
RuleResult aten_diff(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", -1), args.rank_of("self"));
  const int64_t n = args.int_or("n", 1);
  std::vector<std::string> parts;
  if (auto pre = args.optional_tensor("prepend")) parts.push_back(*pre);
  parts.push_back(args.tensor("self"));
  if (auto app = args.optional_tensor("append")) parts.push_back(*app);
  std::string x = parts.size() == 1 ? parts.front() : ctx.concat(parts, dim);
  const bool is_bool = args.dtype_of("self") == DType::kBool;
  const std::string axes = ctx.const_i64s({dim});
  for (int64_t i = 0; i < n; ++i) {
    const std::string hi = ctx.emit("Slice", {x, ctx.const_i64s({1}), ctx.const_i64s({INT64_MAX}), axes});
    const std::string lo = ctx.emit("Slice", {x, ctx.const_i64s({0}), ctx.const_i64s({-1}), axes});
    x = ctx.emit(is_bool ? "Xor" : "Sub", {hi, lo});
  }
  return emitted(ctx, x);
}


// ---- histograms ---------------------------------------------------------------------------------

// histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor   (min == max: the data's
// own range, widened by 1 either way when that is empty too). Bin = floor((x - min) * bins / (max - min)),
// x == max in the last bin, values outside [min, max] not counted.
RuleResult aten_histc(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "histc of a non-float tensor");
  const int64_t bins = args.int_or("bins", 100);
  PT2ONNX_CHECK(bins > 0, ErrorCode::kUnsupported, "histc with bins < 1");
  const std::string x = ctx.reshape(args.tensor("self"), ctx.const_i64s({-1}));
  const double lo = args.has("min") ? args.scalar_number("min") : 0.0, hi = args.has("max") ? args.scalar_number("max") : 0.0;
  std::string low = ctx.const_scalar(lo, type), high = ctx.const_scalar(hi, type);
  if (lo == hi) {
    low = ctx.reduce("ReduceMin", x, std::nullopt, false);
    high = ctx.reduce("ReduceMax", x, std::nullopt, false);
    const std::string empty = ctx.emit("Equal", {low, high});
    low = ctx.emit("Where", {empty, ctx.emit("Sub", {low, ctx.const_scalar(1, type)}), low});
    high = ctx.emit("Where", {empty, ctx.emit("Add", {high, ctx.const_scalar(1, type)}), high});
  }
  const std::string scaled = ctx.emit("Div", {ctx.emit("Mul", {ctx.emit("Sub", {x, low}), ctx.const_scalar(static_cast<double>(bins), type)}),
                                              ctx.emit("Sub", {high, low})});
  std::string bin = ctx.emit("Min", {ctx.cast(ctx.emit("Floor", {scaled}), DType::kInt64), ctx.const_i64(bins - 1)});
  const std::string inside = ctx.emit("And", {ctx.emit("GreaterOrEqual", {x, low}), ctx.emit("LessOrEqual", {x, high})});
  bin = ctx.emit("Where", {inside, bin, ctx.const_i64(-1)});
  const std::string hits = ctx.emit("Equal", {ctx.unsqueeze(bin, {1}), ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(bins), ctx.const_i64(1)})});
  return emitted(ctx, ctx.reduce("ReduceSum", ctx.cast(hits, type), std::vector<int64_t>{0}, false));
}

// bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor   (length max(self) + 1,
// at least minlength; weights summed per value, else counts)
RuleResult aten_bincount(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kInt64);
  const std::string top = ctx.emit("Add", {ctx.reduce("ReduceMax", x, std::nullopt, false), ctx.const_i64(1)});
  const std::string length = ctx.emit("Max", {top, ctx.const_i64(args.int_or("minlength", 0))});
  const DType out = args.out_dtype() == DType::kUnknown ? DType::kInt64 : args.out_dtype();
  const std::string hits = ctx.cast(ctx.emit("Equal", {ctx.unsqueeze(x, {1}), ctx.emit("Range", {ctx.const_i64(0), length, ctx.const_i64(1)})}), out);
  const std::string counted = args.has("weights")
      ? ctx.emit("Mul", {hits, ctx.unsqueeze(cast_if_needed(ctx, args.tensor("weights"), args.dtype_of("weights"), out), {1})})
      : hits;
  return emitted(ctx, ctx.reduce("ReduceSum", counted, std::vector<int64_t>{0}, false));
}

// ---- losses -------------------------------------------------------------------------------------

// mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
RuleResult aten_mse_loss(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string diff = ctx.emit("Sub", {args.tensor("self"), args.tensor("target")});
  return emitted(ctx, reduce_loss(ctx, ctx.emit("Mul", {diff, diff}), args.int_or("reduction", 1)));
}

}  // namespace

void register_reduction_rules(RuleTable& t) {
  t.add("aten.mean.dim", aten_mean);
  t.add("aten.mean.default", aten_mean);
  t.add("aten.sum.dim_IntList", aten_sum);
  t.add("aten.sum.default", aten_sum);
  t.add("aten.amax.default", aten_amax);
  t.add("aten.amin.default", aten_amin);
  t.add("aten.logsumexp.default", aten_logsumexp);
  t.add("aten.prod.dim_int", aten_prod);
  t.add("aten.prod.default", aten_prod);
  t.add("aten.max.default", aten_max_all);
  t.add("aten.min.default", aten_min_all);
  t.add("aten.max.dim", aten_max_dim);
  t.add("aten.min.dim", aten_min_dim);
  t.add("aten.argmax.default", aten_argmax);
  t.add("aten.argmin.default", aten_argmin);
  t.add("aten.any.dim", aten_any);
  t.add("aten.any.dims", aten_any);
  t.add("aten.any.default", aten_any);
  t.add("aten.all.dim", aten_all);
  t.add("aten.all.dims", aten_all);
  t.add("aten.all.default", aten_all);
  t.add("aten.var.correction", aten_var);
  t.add("aten.var.dim", aten_var);
  t.add("aten.std.correction", aten_std);
  t.add("aten.std.dim", aten_std);
  t.add("aten.std.default", aten_std);  // std(Tensor self, bool unbiased=True): every element
  t.add("aten.var.default", aten_var);
  t.add("aten.var_mean.correction", aten_var_mean);
  t.add("aten.var_mean.dim", aten_var_mean);
  t.add("aten.std_mean.correction", aten_std_mean);
  t.add("aten.std_mean.dim", aten_std_mean);
  t.add("aten.linalg_vector_norm.default", aten_linalg_vector_norm);
  for (const char* target : {"aten.norm.Scalar", "aten.norm.ScalarOpt_dim", "aten.norm.ScalarOpt_dim_dtype", "aten.norm.ScalarOpt_dtype"})
    t.add(target, aten_linalg_vector_norm);
  t.add("aten.cumsum.default", aten_cumsum);
  t.add("aten.logcumsumexp.default", aten_logcumsumexp);
  t.add("aten.diff.default", aten_diff);
  t.add("aten.topk.default", aten_topk);
  t.add("aten.sort.default", aten_sort);
  t.add("aten.sort.stable", aten_sort);
  t.add("aten.argsort.default", aten_argsort);
  t.add("aten.argsort.stable", aten_argsort);
  t.add("aten.histc.default", aten_histc);
  t.add("aten.bincount.default", aten_bincount);
  t.add("aten.mse_loss.default", aten_mse_loss);
  t.add("aten.special_logsumexp.default", aten_logsumexp);
}

}  // namespace pt2onnx::translate
