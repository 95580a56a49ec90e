// Order statistics ONNX has no op for, through a TopK sort with NaN last: median and nanmedian
// (values and indices), kthvalue, quantile and nanquantile (torch's interpolations); and the
// running extremes cummax/cummin, as a masked reduction over the prefix (quadratic in the scanned
// dim's length); mode by counting equal pairs.
#include <cmath>
#include <limits>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/typed_emit.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// x sorted ascending along `axis` with NaN last: TopK of x with NaN read as +inf. `values` keeps
// that reading (a NaN sorts as +inf; callers put NaN back by count), `indices` are int64.
struct Sorted {
  std::string values, indices;
};
Sorted sort_nan_last(EmitContext& ctx, const std::string& x, DType type, int64_t axis) {
  std::string key = x;
  if (is_floating(type)) key = ctx.emit("Where", {ctx.emit("IsNaN", {x}), ctx.const_scalar(INFINITY, type), x});
  const std::string k = ctx.unsqueeze(ctx.dim_of(x, axis), {0});
  const auto out = emit_in(ctx, "TopK", {key, k}, type, {Attr("axis", axis), Attr("largest", 0), Attr("sorted", 1)}, 2);
  return {out[0], out[1]};
}

// The number of non-NaN entries along `axis` (kept), int64; `all` counts every entry.
std::string count_along(EmitContext& ctx, const std::string& x, DType type, int64_t axis, bool all) {
  std::string present = ctx.emit("Expand", {ctx.const_bool(true), ctx.shape_of(x)});
  if (!all && is_floating(type)) present = ctx.emit("Not", {ctx.emit("IsNaN", {x})});
  return ctx.reduce("ReduceSum", ctx.cast(present, DType::kInt64), std::vector<int64_t>{axis}, true);
}

// The entry of rank `position` (kept shape, int64) of each slice: value (NaN where the rank is at
// or past `count`, the non-NaN count) and index.
std::pair<std::string, std::string> select_rank(EmitContext& ctx, const Sorted& sorted, const std::string& position,
                                                const std::string& count, DType type, int64_t axis) {
  const std::string at = ctx.emit("Max", {position, ctx.const_i64(0)});
  std::string value = ctx.emit("GatherElements", {sorted.values, at}, {Attr("axis", axis)});
  const std::string index = ctx.emit("GatherElements", {sorted.indices, at}, {Attr("axis", axis)});
  if (is_floating(type)) value = ctx.emit("Where", {ctx.emit("GreaterOrEqual", {position, count}), ctx.const_scalar(NAN, type), value});
  return {value, index};
}

// median / nanmedian: the lower median, (count - 1) // 2 of the sorted slice. median gives NaN
// and the first NaN's index where the slice has one; nanmedian skips NaNs (NaN where all are).
void median_along(EmitContext& ctx, const std::string& x, DType type, int64_t axis, bool skip_nan, bool keep, int64_t rank,
                  bool want_index) {
  const Sorted sorted = sort_nan_last(ctx, x, type, axis);
  const std::string count = count_along(ctx, x, type, axis, !skip_nan);
  const std::string position = ctx.emit("Div", {ctx.emit("Sub", {count, ctx.const_i64(1)}), ctx.const_i64(2)});
  auto [value, index] = select_rank(ctx, sorted, position, skip_nan ? count : count_along(ctx, x, type, axis, false), type, axis);
  if (!skip_nan && is_floating(type)) {
    const std::string nan = ctx.emit("IsNaN", {x});
    const std::string any = ctx.emit("Greater", {ctx.reduce("ReduceMax", ctx.cast(nan, DType::kInt32), std::vector<int64_t>{axis}, true),
                                                ctx.const_scalar(0, DType::kInt32)});
    const std::string first = ctx.emit("ArgMax", {ctx.cast(nan, DType::kInt32)}, {Attr("axis", axis), Attr("keepdims", 1)});
    value = ctx.emit("Where", {any, ctx.const_scalar(NAN, type), value});
    index = ctx.emit("Where", {any, first, index});
  }
  if (!keep && rank > 0) {
    value = ctx.squeeze(value, {axis});
    index = ctx.squeeze(index, {axis});
  }
  ctx.set_output(0, value);
  if (want_index && ctx.output_used(1)) ctx.set_output(1, index);
}

// A 0-d input read as 1-D (ONNX TopK and reductions need an axis), its result squeezed back.
std::string at_least_1d(EmitContext& ctx, const std::string& x, int64_t rank) { return rank == 0 ? ctx.unsqueeze(x, {0}) : x; }

void refuse_empty(const ArgReader& args, const char* name, const char* op) {
  for (const ir::Dim& d : args.meta(name).sizes)
    PT2ONNX_CHECK(!d.is_static() || d.as_int() != 0, ErrorCode::kUnsupported, std::string(op) + " of an empty tensor");
}

// median.default(Tensor self) -> Tensor; nanmedian.default: over every element, a 0-d value.
RuleResult whole_median(EmitContext& ctx, const ir::Node& node, bool skip_nan) {
  ArgReader args(ctx, node);
  refuse_empty(args, "self", skip_nan ? "nanmedian" : "median");
  const std::string flat = ctx.reshape(args.tensor("self"), ctx.const_i64s({-1}));
  median_along(ctx, flat, args.dtype_of("self"), 0, skip_nan, false, 1, false);
  return RuleResult::kEmitted;
}
RuleResult aten_median(EmitContext& ctx, const ir::Node& node) { return whole_median(ctx, node, false); }
RuleResult aten_nanmedian(EmitContext& ctx, const ir::Node& node) { return whole_median(ctx, node, true); }

// median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices); nanmedian.dim
RuleResult median_dim(EmitContext& ctx, const ir::Node& node, bool skip_nan) {
  ArgReader args(ctx, node);
  refuse_empty(args, "self", skip_nan ? "nanmedian" : "median");
  const int64_t rank = args.rank_of("self");
  const int64_t axis = rank == 0 ? 0 : normalize_dim(args.get_int("dim"), rank);
  const std::string x = at_least_1d(ctx, args.tensor("self"), rank);
  median_along(ctx, x, args.dtype_of("self"), axis, skip_nan, args.bool_or("keepdim", false) || rank == 0, rank, true);
  if (rank == 0) {  // back to 0-d
    ctx.set_output(0, ctx.squeeze(ctx.output_value(0), {0}));
    if (ctx.output_used(1)) ctx.set_output(1, ctx.squeeze(ctx.output_value(1), {0}));
  }
  return RuleResult::kEmitted;
}
RuleResult aten_median_dim(EmitContext& ctx, const ir::Node& node) { return median_dim(ctx, node, false); }
RuleResult aten_nanmedian_dim(EmitContext& ctx, const ir::Node& node) { return median_dim(ctx, node, true); }

// kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices):
// rank k - 1 of the sorted slice, NaN sorting last.
RuleResult aten_kthvalue(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  refuse_empty(args, "self", "kthvalue");
  const DType type = args.dtype_of("self");
  const int64_t rank = args.rank_of("self");
  const int64_t axis = rank == 0 ? 0 : normalize_dim(args.int_or("dim", -1), rank);
  const std::string x = at_least_1d(ctx, args.tensor("self"), rank);
  const Sorted sorted = sort_nan_last(ctx, x, type, axis);
  const std::string count = count_along(ctx, x, type, axis, false);
  const std::string position = ctx.emit("Expand", {ctx.const_i64(args.get_int("k") - 1), ctx.shape_of(count)});
  auto [value, index] = select_rank(ctx, sorted, position, count, type, axis);
  if (!args.bool_or("keepdim", false) || rank == 0) {
    value = ctx.squeeze(value, {axis});
    index = ctx.squeeze(index, {axis});
  }
  ctx.set_output(0, value);
  if (ctx.output_used(1)) ctx.set_output(1, index);
  return RuleResult::kEmitted;
}

// quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear')
// and .scalar (float q); nanquantile alike, skipping NaNs. As torch computes it: the slice sorted
// NaN last (moved to the last axis), ranks q * (count - 1) in self's dtype, then the interpolation
// between the entries below and above (linear by torch's lerp, midpoint, lower, higher, nearest
// half to even). quantile is NaN where the slice has a NaN; nanquantile where it is all NaN.
RuleResult quantile(EmitContext& ctx, const ir::Node& node, bool skip_nan) {
  ArgReader args(ctx, node);
  refuse_empty(args, "self", skip_nan ? "nanquantile" : "quantile");
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "quantile of a non-floating tensor");
  const int64_t rank = args.rank_of("self");
  const bool keep = args.bool_or("keepdim", false);
  const std::string interpolation = args.string_or("interpolation", "linear");
  const bool has_dim = args.has("dim") && args.optional_int("dim").has_value();
  std::string x = args.tensor("self");
  std::vector<int64_t> perm;
  int64_t axis = 0;
  if (!has_dim || rank == 0) {
    x = ctx.reshape(x, ctx.const_i64s({-1}));
  } else {
    axis = normalize_dim(args.get_int("dim"), rank);
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis) perm.push_back(i);
    perm.push_back(axis);
    x = ctx.transpose(x, perm);
  }
  const int64_t last = (has_dim && rank > 0 ? rank : 1) - 1;
  const Sorted sorted = sort_nan_last(ctx, x, type, last);
  const std::string count = count_along(ctx, x, type, last, false);
  const std::string size = count_along(ctx, x, type, last, true);
  const bool scalar_q = !args.is_tensor("q");
  const int64_t q_rank = scalar_q ? 0 : args.rank_of("q");
  std::string q = operand_as(ctx, args, "q", type);
  if (q_rank == 0) q = ctx.unsqueeze(q, {0});  // [Q], Q = 1 for a 0-d q
  const std::string usable = skip_nan ? count : size;
  std::string ranks = ctx.emit("Mul", {q, ctx.cast(ctx.emit("Sub", {usable, ctx.const_i64(1)}), type)});  // [..., Q]
  ranks = ctx.emit("Max", {ranks, ctx.const_scalar(0, type)});  // an all-NaN slice (count 0) reads rank 0, then NaN below
  auto gather = [&](const std::string& r) {
    return ctx.emit("GatherElements", {sorted.values, ctx.cast(r, DType::kInt64)}, {Attr("axis", last)});
  };
  std::string value;
  if (interpolation == "lower") value = gather(ctx.emit("Floor", {ranks}));
  else if (interpolation == "higher") value = gather(ctx.emit("Ceil", {ranks}));
  else if (interpolation == "nearest") value = gather(ctx.emit("Round", {ranks}));
  else {
    PT2ONNX_CHECK(interpolation == "linear" || interpolation == "midpoint", ErrorCode::kUnsupported,
                  "quantile interpolation '" + interpolation + "'");
    const std::string below_rank = ctx.emit("Floor", {ranks});
    const std::string below = gather(below_rank), above = gather(ctx.emit("Ceil", {ranks}));
    const std::string w = interpolation == "midpoint" ? ctx.emit("Expand", {ctx.const_scalar(0.5, type), ctx.shape_of(ranks)})
                                                      : ctx.emit("Sub", {ranks, below_rank});
    const std::string diff = ctx.emit("Sub", {above, below});
    const std::string low_form = ctx.emit("Add", {below, ctx.emit("Mul", {w, diff})});
    const std::string high_form = ctx.emit("Sub", {above, ctx.emit("Mul", {diff, ctx.emit("Sub", {ctx.const_scalar(1, type), w})})});
    value = ctx.emit("Where", {ctx.emit("Less", {w, ctx.const_scalar(0.5, type)}), low_form, high_form});
  }
  // NaN: quantile where any entry is NaN (count < size), nanquantile where none is left.
  const std::string nan = skip_nan ? ctx.emit("Equal", {count, ctx.const_i64(0)}) : ctx.emit("Less", {count, size});
  value = ctx.emit("Where", {nan, ctx.const_scalar(NAN, type), value});  // [..., Q]
  // To torch's layout: Q first (absent for a 0-d q), then the kept dims.
  const int64_t kept = has_dim && rank > 0 ? rank - 1 : 0;
  if (q_rank == 0) {
    value = ctx.squeeze(value, {kept});
  } else {
    std::vector<int64_t> to_front = {kept};
    for (int64_t i = 0; i < kept; ++i) to_front.push_back(i);
    value = ctx.transpose(value, to_front);
  }
  if (keep) {
    const int64_t offset = q_rank == 0 ? 0 : 1;
    if (has_dim && rank > 0) {
      value = ctx.unsqueeze(value, {axis + offset});
    } else if (rank > 0) {
      std::vector<int64_t> ones;
      for (int64_t i = 0; i < rank; ++i) ones.push_back(i + offset);
      value = ctx.unsqueeze(value, ones);
    }
  }
  return emitted(ctx, value);
}
RuleResult aten_quantile(EmitContext& ctx, const ir::Node& node) { return quantile(ctx, node, false); }
RuleResult aten_nanquantile(EmitContext& ctx, const ir::Node& node) { return quantile(ctx, node, true); }

// cummax(Tensor self, int dim) -> (Tensor values, Tensor indices); cummin. values[i] is the
// extreme of x[0..i] along dim, NaN from the first NaN on; indices[i] the last j <= i holding it
// (torch updates on ties and on each NaN). Built on a [.., j, i, ..] comparison of the prefix.
RuleResult running_extreme(EmitContext& ctx, const ir::Node& node, bool max) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(type != DType::kBool, ErrorCode::kUnsupported, "cummax/cummin of a bool tensor");
  const int64_t rank = args.rank_of("self");
  if (rank == 0) {
    ctx.set_output(0, args.tensor("self"));
    if (ctx.output_used(1)) ctx.set_output(1, ctx.const_i64(0));
    return RuleResult::kEmitted;
  }
  const int64_t axis = normalize_dim(args.get_int("dim"), rank);
  const std::string x = args.tensor("self");
  const std::string length = ctx.dim_of(x, axis);
  const std::string positions = ctx.emit("Range", {ctx.const_i64(0), length, ctx.const_i64(1)});
  // mask[j, i] = j <= i, shaped to broadcast at (axis, axis + 1) of the rank + 1 comparison.
  std::string mask = ctx.emit("LessOrEqual", {ctx.unsqueeze(positions, {1}), ctx.unsqueeze(positions, {0})});
  std::vector<int64_t> trailing;
  for (int64_t i = 0; i < rank - 1 - axis; ++i) trailing.push_back(2 + i);
  if (!trailing.empty()) mask = ctx.unsqueeze(mask, trailing);
  const std::string xj = ctx.unsqueeze(x, {axis + 1});  // x_j along axis, broadcast over i at axis + 1
  // Outside the prefix, x_0 (always inside it) stands in, so the reduction never sees a foreign value.
  const std::string first = ctx.emit("Gather", {x, ctx.const_i64s({0})}, {Attr("axis", axis)});
  const std::string masked = ctx.emit("Where", {mask, xj, ctx.unsqueeze(first, {axis + 1})});
  std::string value = ctx.reduce(max ? "ReduceMax" : "ReduceMin", masked, std::vector<int64_t>{axis}, false);
  std::string hit = ctx.emit("Equal", {xj, ctx.unsqueeze(value, {axis})});
  if (is_floating(type)) {
    const std::string nan_seen = ctx.emit("Greater", {ctx.emit("CumSum", {ctx.cast(ctx.emit("IsNaN", {x}), DType::kInt64), ctx.const_i64(axis)}),
                                                      ctx.const_i64(0)});
    value = ctx.emit("Where", {nan_seen, ctx.const_scalar(NAN, type), value});
    const std::string seen = ctx.unsqueeze(nan_seen, {axis});
    const std::string nan_here = ctx.emit("IsNaN", {xj});
    hit = emit_where(ctx, seen, nan_here, hit, DType::kBool);
  }
  ctx.set_output(0, value);
  if (ctx.output_used(1)) {
    std::vector<int64_t> j_shape = {-1, 1};
    j_shape.resize(static_cast<size_t>(rank - axis + 1), 1);
    const std::string j = ctx.reshape(positions, ctx.const_i64s(j_shape));
    const std::string candidates = ctx.emit("Where", {ctx.emit("And", {hit, mask}), j, ctx.const_i64(-1)});
    ctx.set_output(1, ctx.reduce("ReduceMax", candidates, std::vector<int64_t>{axis}, false));
  }
  return RuleResult::kEmitted;
}
RuleResult aten_cummax(EmitContext& ctx, const ir::Node& node) { return running_extreme(ctx, node, true); }
RuleResult aten_cummin(EmitContext& ctx, const ir::Node& node) { return running_extreme(ctx, node, false); }

// mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices): the most
// frequent value along dim, the smallest of those equally frequent, and the last index holding it
// (torch's CPU kernel scans the sorted (value, index) pairs). Counts come from a [.., i, j, ..]
// comparison (quadratic in the dim's length); NaNs count as equal to each other. Where NaN is the
// mode, torch's index is wherever its sort put a NaN; ours is the last NaN.
RuleResult aten_mode(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const int64_t rank = args.rank_of("self");
  const std::string x = args.tensor("self");
  if (rank == 0) {
    ctx.set_output(0, x);
    if (ctx.output_used(1)) ctx.set_output(1, ctx.const_i64(0));
    return RuleResult::kEmitted;
  }
  const int64_t axis = normalize_dim(args.int_or("dim", -1), rank);
  const bool keep = args.bool_or("keepdim", false);
  const std::string xi = ctx.unsqueeze(x, {axis + 1}), xj = ctx.unsqueeze(x, {axis});
  std::string same = ctx.emit("Equal", {xi, xj});
  std::string key = x;  // NaN read as +inf for the "smallest" choice
  if (is_floating(type)) {
    same = ctx.emit("Or", {same, ctx.emit("And", {ctx.emit("IsNaN", {xi}), ctx.emit("IsNaN", {xj})})});
    key = ctx.emit("Where", {ctx.emit("IsNaN", {x}), ctx.const_scalar(INFINITY, type), x});
  }
  const std::string counts = ctx.reduce("ReduceSum", ctx.cast(same, DType::kInt32), std::vector<int64_t>{axis + 1}, false);
  const std::string frequent = ctx.emit("Equal", {counts, ctx.reduce("ReduceMax", counts, std::vector<int64_t>{axis}, true)});
  // The smallest key among the most frequent (others stand in as the slice's largest key).
  const std::string filler = reduce_in(ctx, "ReduceMax", key, type, std::vector<int64_t>{axis}, true);
  const std::string best = reduce_in(ctx, "ReduceMin", emit_where(ctx, frequent, key, filler, type), type, std::vector<int64_t>{axis}, true);
  const std::string hit = ctx.emit("And", {frequent, ctx.emit("Equal", {key, best})});
  std::vector<int64_t> position_shape = {-1};
  position_shape.resize(static_cast<size_t>(rank - axis), 1);
  const std::string positions = ctx.reshape(ctx.emit("Range", {ctx.const_i64(0), ctx.dim_of(x, axis), ctx.const_i64(1)}),
                                            ctx.const_i64s(position_shape));
  const std::string index = ctx.reduce("ReduceMax", ctx.emit("Where", {hit, positions, ctx.const_i64(-1)}), std::vector<int64_t>{axis}, true);
  const std::string value = ctx.emit("GatherElements", {x, index}, {Attr("axis", axis)});
  ctx.set_output(0, keep ? value : ctx.squeeze(value, {axis}));
  if (ctx.output_used(1)) ctx.set_output(1, keep ? index : ctx.squeeze(index, {axis}));
  return RuleResult::kEmitted;
}

}  // namespace

void register_decomp_order_rules(RuleTable& t) {
  t.add("aten.median.default", aten_median);  // TopK with a K input is opset 10, Range 11
  t.add("aten.median.dim", aten_median_dim);
  t.add("aten.nanmedian.default", aten_nanmedian);
  t.add("aten.nanmedian.dim", aten_nanmedian_dim);
  t.add("aten.kthvalue.default", aten_kthvalue);
  t.add("aten.quantile.default", aten_quantile);
  t.add("aten.quantile.scalar", aten_quantile);
  t.add("aten.nanquantile.default", aten_nanquantile);
  t.add("aten.nanquantile.scalar", aten_nanquantile);
  t.add("aten.cummax.default", aten_cummax);
  t.add("aten.cummin.default", aten_cummin);
  t.add("aten.mode.default", aten_mode);
}

}  // namespace pt2onnx::translate
