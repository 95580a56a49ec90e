// Reduction rules: mean/sum/prod/amax/amin, max/min with indices, argmax/argmin, any/all,
// var/std, logsumexp, vector norms, cumsum. Reduce* take their axes as opset-dependent
// attribute or input (EmitContext::reduce); an empty or absent dim list reduces everything.
#include <cmath>
#include <cstdint>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

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
  return emitted(ctx, ctx.reduce(op, self_as_result(ctx, args), reduce_axes(args), args.bool_or("keepdim", false)));
}

// mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor; mean.default
RuleResult aten_mean(EmitContext& ctx, const ir::Node& node) { return reduce(ctx, node, "ReduceMean"); }
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
  return emitted(ctx, ctx.reduce("ReduceMax", args.tensor("self"), std::nullopt, false));
}
RuleResult aten_min_all(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.reduce("ReduceMin", args.tensor("self"), std::nullopt, false));
}

// max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices); min.dim likewise.
// torch returns the first index of an extreme value, like select_last_index=0.
RuleResult max_min_dim(EmitContext& ctx, const ir::Node& node, std::string_view reduce_op, std::string_view arg_op) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  const bool keep = args.bool_or("keepdim", false);
  ctx.set_output(0, ctx.reduce(reduce_op, args.tensor("self"), std::vector<int64_t>{dim}, keep));
  if (ctx.output_used(1))
    ctx.set_output(1, ctx.emit(arg_op, {args.tensor("self")}, {Attr("axis", dim), Attr("keepdims", keep ? 1 : 0)}));
  return RuleResult::kEmitted;
}
RuleResult aten_max_dim(EmitContext& ctx, const ir::Node& node) { return max_min_dim(ctx, node, "ReduceMax", "ArgMax"); }
RuleResult aten_min_dim(EmitContext& ctx, const ir::Node& node) { return max_min_dim(ctx, node, "ReduceMin", "ArgMin"); }

// argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor; argmin likewise
RuleResult arg_extreme(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  const bool keep = args.bool_or("keepdim", false);
  if (!args.has("dim")) {
    // Over the flattened tensor; keepdim gives all-ones dims.
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
  const std::string mean = ctx.reduce("ReduceMean", x, axes, true);
  const std::string centered = ctx.emit("Sub", {x, mean});
  const std::string squares = ctx.reduce("ReduceSum", ctx.emit("Mul", {centered, centered}), axes, keep);
  const std::string count = reduced_count(ctx, args, axes, type);
  const std::string divisor = correction == 0 ? count : ctx.emit("Sub", {count, ctx.const_scalar(correction, type)});
  std::string result = ctx.emit("Div", {squares, ctx.emit("Max", {divisor, ctx.const_scalar(0, type)})});
  if (take_sqrt) result = ctx.emit("Sqrt", {result});
  ctx.set_output(0, result);
  if (with_mean) ctx.set_output(1, keep ? mean : ctx.reduce("ReduceMean", x, axes, false));
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

// linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
RuleResult aten_linalg_vector_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const double ord = args.has("ord") ? args.scalar_number("ord") : 2.0;
  const std::string x = self_as_result(ctx, args);
  const std::optional<std::vector<int64_t>> axes = reduce_axes(args);
  const bool keep = args.bool_or("keepdim", false);
  if (ord == 2) return emitted(ctx, ctx.reduce("ReduceL2", x, axes, keep));
  if (ord == 1) return emitted(ctx, ctx.reduce("ReduceL1", x, axes, keep));
  if (std::isinf(ord)) return emitted(ctx, ctx.reduce(ord > 0 ? "ReduceMax" : "ReduceMin", ctx.emit("Abs", {x}), axes, keep));
  const DType type = result_dtype(args, args.dtype_of("self"));
  const std::string powered = ctx.emit("Pow", {ctx.emit("Abs", {x}), ctx.const_scalar(ord, type)});
  return emitted(ctx, ctx.emit("Pow", {ctx.reduce("ReduceSum", powered, axes, keep), ctx.const_scalar(1.0 / ord, type)}));
}

// topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
RuleResult aten_topk(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", -1), args.rank_of("self"));
  const std::string k = ctx.unsqueeze(args.int_value("k"), {0});
  const std::vector<std::string> outs = ctx.emit("TopK", {args.tensor("self"), k},
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
  const int64_t dim = normalize_dim(args.int_or("dim", -1), args.rank_of("self"));
  const std::string k = ctx.unsqueeze(ctx.size_of(args.tensor_fx("self"), dim), {0});
  return ctx.emit("TopK", {args.tensor("self"), k},
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
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  return emitted(ctx, ctx.emit("CumSum", {self_as_result(ctx, args), ctx.const_i64(dim)}));
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

}  // namespace

void register_reduction_rules(RuleTable& t) {
  t.add("aten.mean.dim", 1, aten_mean);
  t.add("aten.mean.default", 1, aten_mean);
  t.add("aten.sum.dim_IntList", 1, aten_sum);
  t.add("aten.sum.default", 1, aten_sum);
  t.add("aten.amax.default", 1, aten_amax);
  t.add("aten.amin.default", 1, aten_amin);
  t.add("aten.logsumexp.default", 1, aten_logsumexp);
  t.add("aten.prod.dim_int", 1, aten_prod);
  t.add("aten.prod.default", 1, aten_prod);
  t.add("aten.max.default", 1, aten_max_all);
  t.add("aten.min.default", 1, aten_min_all);
  t.add("aten.max.dim", 1, aten_max_dim);
  t.add("aten.min.dim", 1, aten_min_dim);
  t.add("aten.argmax.default", 1, aten_argmax);
  t.add("aten.argmin.default", 1, aten_argmin);
  t.add("aten.any.dim", 1, aten_any);
  t.add("aten.any.dims", 1, aten_any);
  t.add("aten.any.default", 1, aten_any);
  t.add("aten.all.dim", 1, aten_all);
  t.add("aten.all.dims", 1, aten_all);
  t.add("aten.all.default", 1, aten_all);
  t.add("aten.var.correction", 1, aten_var);
  t.add("aten.var.dim", 1, aten_var);
  t.add("aten.std.correction", 1, aten_std);
  t.add("aten.std.dim", 1, aten_std);
  t.add("aten.var_mean.correction", 1, aten_var_mean);
  t.add("aten.var_mean.dim", 1, aten_var_mean);
  t.add("aten.std_mean.correction", 1, aten_std_mean);
  t.add("aten.std_mean.dim", 1, aten_std_mean);
  t.add("aten.linalg_vector_norm.default", 1, aten_linalg_vector_norm);
  t.add("aten.cumsum.default", 1, aten_cumsum);
  t.add("aten.diff.default", 1, aten_diff);
  t.add("aten.topk.default", 1, aten_topk);
  t.add("aten.sort.default", 1, aten_sort);
  t.add("aten.sort.stable", 1, aten_sort);
  t.add("aten.argsort.default", 1, aten_argsort);
  t.add("aten.argsort.stable", 1, aten_argsort);
}

}  // namespace pt2onnx::translate
