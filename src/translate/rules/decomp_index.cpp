// Index forms the default IR keeps: put (into the flattened tensor), as_strided_scatter (at the
// view's flat positions), scatter with a reduce string, the masked index forms of torch's
// decompositions, repeat_interleave by a tensor of counts, nonzero as a tuple (nonzero_numpy) and
// nonzero_static (padded or cut to a fixed count).
#include <algorithm>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/typed_emit.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor: source written
// (or added) at the flat indices of self, negative ones from the end.
RuleResult aten_put(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string flat = ctx.const_i64s({-1});
  const std::string self = args.tensor("self");
  const std::string index = ctx.reshape(cast_if_needed(ctx, args.tensor("index"), args.dtype_of("index"), DType::kInt64), flat);
  const std::string source = ctx.reshape(cast_if_needed(ctx, args.tensor("source"), args.dtype_of("source"), args.dtype_of("self")), flat);
  std::vector<Attr> attrs = {Attr("axis", 0)};
  if (args.bool_or("accumulate", false)) attrs.emplace_back("reduction", "add");
  const std::string out = emit_scatter(ctx, "ScatterElements", {ctx.reshape(self, flat), index, source}, args.dtype_of("self"), attrs);
  return emitted(ctx, ctx.reshape(out, ctx.shape_of(self)));
}

// as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)
//   -> Tensor: self (read as contiguous, as exported graphs are functional) with src written at the
// flat positions offset + sum_i index_i * stride_i of its as_strided view. Static sizes and
// strides; a view that overlaps itself (two positions alike) is refused, torch's result there
// depending on its write order.
RuleResult aten_as_strided_scatter(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<int64_t> sizes = args.ints("size"), strides = args.ints("stride");
  const int64_t offset = args.has("storage_offset") ? args.get_int("storage_offset") : 0;
  PT2ONNX_CHECK(sizes.size() == strides.size(), ErrorCode::kUnsupported, "as_strided_scatter with sizes and strides of different counts");
  std::vector<int64_t> positions = {offset};
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<int64_t> next;
    for (int64_t p : positions)
      for (int64_t k = 0; k < sizes[i]; ++k) next.push_back(p + k * strides[i]);
    positions = std::move(next);
  }
  std::vector<int64_t> sorted = positions;
  std::sort(sorted.begin(), sorted.end());
  PT2ONNX_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), ErrorCode::kUnsupported,
                "as_strided_scatter into a view that overlaps itself");
  const std::string flat = ctx.const_i64s({-1});
  const std::string self = args.tensor("self");
  const DType type = args.dtype_of("self");
  const std::string src = ctx.reshape(cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), type), flat);
  const std::string out = ctx.emit("ScatterElements", {ctx.reshape(self, flat), ctx.const_i64s(positions), src}, {Attr("axis", 0)});
  return emitted(ctx, ctx.reshape(out, ctx.shape_of(self)));
}

// The coordinates [..., k] of k index tensors (every one present) into the first k dims of
// `self` (FX `self_fx`): each clamped to [low, size - 1] along its dim (low = 0, or -size with
// negatives then counted from the end), broadcast to one shape and stacked on a last axis.
std::string masked_index_coordinates(EmitContext& ctx, const ArgReader& args, bool wrap_negative) {
  const std::vector<std::optional<std::string>> indices = args.optional_tensors("indices");
  PT2ONNX_CHECK(!indices.empty() && static_cast<int64_t>(indices.size()) <= args.rank_of("self"), ErrorCode::kUnsupported,
                "a masked index with no index or more indices than dims");
  std::vector<std::string> clamped;
  std::string common;
  for (size_t i = 0; i < indices.size(); ++i) {
    PT2ONNX_CHECK(indices[i].has_value(), ErrorCode::kUnsupported, "a masked index with a None index");
    const std::string size = ctx.size_of(args.tensor_fx("self"), static_cast<int64_t>(i));
    std::string index = ctx.cast(*indices[i], DType::kInt64);
    const std::string low = wrap_negative ? ctx.emit("Neg", {size}) : ctx.const_i64(0);
    index = ctx.emit("Max", {ctx.emit("Min", {index, ctx.emit("Sub", {size, ctx.const_i64(1)})}), low});
    if (wrap_negative) index = ctx.emit("Where", {ctx.emit("Less", {index, ctx.const_i64(0)}), ctx.emit("Add", {index, size}), index});
    clamped.push_back(index);
    common = common.empty() ? index : ctx.emit("Add", {common, index});  // broadcasts to the common shape
  }
  const std::string shape = ctx.shape_of(common);
  std::vector<std::string> columns;
  for (const std::string& index : clamped) columns.push_back(ctx.unsqueeze(ctx.emit("Expand", {index, shape}), {-1}));
  return ctx.concat(columns, -1);
}

// _unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill) -> Tensor: self
// indexed at its indices clamped into range (torch's decomposition), `fill` where mask is false.
RuleResult aten_unsafe_masked_index(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string gathered = ctx.emit("GatherND", {args.tensor("self"), masked_index_coordinates(ctx, args, false)});
  return emitted(ctx, emit_where(ctx, args.tensor("mask"), gathered, args.scalar("fill", type), type));
}

// _unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices, Tensor values) -> Tensor:
// values (0 where mask is false) added into self at the indices clamped to [-size, size - 1].
RuleResult aten_unsafe_masked_index_put_accumulate(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const int64_t rank = args.rank_of("self");
  const std::string self = args.tensor("self");
  const std::string coords = masked_index_coordinates(ctx, args, true);
  const int64_t k = static_cast<int64_t>(args.optional_tensors("indices").size());
  const std::string values = cast_if_needed(ctx, args.tensor("values"), args.dtype_of("values"), type);
  const std::string kept = emit_where(ctx, args.tensor("mask"), values, ctx.const_scalar(0, type), type);
  const std::string update_shape = ctx.concat({ctx.shape_slice(coords, 0, -1), ctx.shape_slice(self, k, rank)}, 0);
  const std::string updates = ctx.emit("Expand", {kept, update_shape});
  return emitted(ctx, emit_scatter(ctx, "ScatterND", {self, coords, updates}, type, {Attr("reduction", "add")}));
}

// For 1-D int64 counts, the source index of each output position j of their repetition: the
// number of running totals at or below j (quadratic in the output length).
std::string repeat_sources(EmitContext& ctx, const std::string& repeats) {
  const std::string totals = ctx.emit("CumSum", {repeats, ctx.const_i64(0)});
  const std::string count = ctx.reduce("ReduceSum", repeats, std::vector<int64_t>{0}, false);
  const std::string positions = ctx.emit("Range", {ctx.const_i64(0), count, ctx.const_i64(1)});
  const std::string passed = ctx.emit("LessOrEqual", {ctx.unsqueeze(totals, {0}), ctx.unsqueeze(positions, {1})});
  return ctx.reduce("ReduceSum", ctx.cast(passed, DType::kInt64), std::vector<int64_t>{1}, false);
}

// repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None)
//   -> Tensor: element i along dim (of the flattened self without dim) repeated repeats[i] times
// (one count for all when repeats has one element).
RuleResult aten_repeat_interleave_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::string x = args.tensor("self");
  int64_t dim = 0;
  if (args.has("dim")) dim = normalize_dim(args.get_int("dim"), std::max<int64_t>(args.rank_of("self"), 1));
  if (!args.has("dim") || args.rank_of("self") == 0) x = ctx.reshape(x, ctx.const_i64s({-1}));
  const std::string length = ctx.unsqueeze(ctx.dim_of(x, dim), {0});
  std::string repeats = ctx.reshape(cast_if_needed(ctx, args.tensor("repeats"), args.dtype_of("repeats"), DType::kInt64), ctx.const_i64s({-1}));
  repeats = ctx.emit("Expand", {repeats, length});
  return emitted(ctx, ctx.emit("Gather", {x, repeat_sources(ctx, repeats)}, {Attr("axis", dim)}));
}

// repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor: each i repeated
// repeats[i] times (the indices the self_Tensor form gathers).
RuleResult aten_repeat_interleave_indices(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string repeats = ctx.reshape(cast_if_needed(ctx, args.tensor("repeats"), args.dtype_of("repeats"), DType::kInt64), ctx.const_i64s({-1}));
  return emitted(ctx, cast_if_needed(ctx, repeat_sources(ctx, repeats), DType::kInt64, args.out_dtype()));
}

// scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor and
// scatter.value_reduce (a Scalar value): ScatterElements with reduction add ('add') or mul
// ('multiply'); src is cut to index's shape, as torch reads only that part of it.
RuleResult aten_scatter_reduce_string(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string reduce = args.string_or("reduce", "");
  PT2ONNX_CHECK(reduce == "add" || reduce == "multiply", ErrorCode::kUnsupported, "scatter with reduce '" + reduce + "'");
  const DType type = args.dtype_of("self");
  const int64_t rank = args.rank_of("self");
  std::string self = args.tensor("self");
  std::string index = cast_if_needed(ctx, args.tensor("index"), args.dtype_of("index"), DType::kInt64);
  std::string src;
  if (args.has("src") && args.is_tensor("src")) {
    src = cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), type);
    if (args.rank_of("src") == 0) src = ctx.unsqueeze(src, {0});
  } else {
    src = args.scalar("value", type);
  }
  if (rank == 0) self = ctx.unsqueeze(self, {0});
  if (args.rank_of("index") == 0) index = ctx.unsqueeze(index, {0});
  const int64_t work_rank = std::max<int64_t>(rank, 1);
  std::vector<int64_t> zeros(static_cast<size_t>(work_rank), 0), axes;
  for (int64_t i = 0; i < work_rank; ++i) axes.push_back(i);
  const std::string updates = args.has("src") && args.is_tensor("src")
                                  ? ctx.emit("Slice", {src, ctx.const_i64s(zeros), ctx.shape_of(index), ctx.const_i64s(axes)})
                                  : ctx.emit("Expand", {src, ctx.shape_of(index)});
  const int64_t axis = rank == 0 ? 0 : normalize_dim(args.get_int("dim"), rank);
  std::string out = emit_scatter(ctx, "ScatterElements", {self, index, updates}, type,
                                {Attr("axis", axis), Attr("reduction", reduce == "add" ? "add" : "mul")});
  if (rank == 0) out = ctx.squeeze(out, {0});
  return emitted(ctx, out);
}

// nonzero_numpy(Tensor self) -> Tensor[]: the coordinates of the nonzero entries, one int64 tensor
// per dim (a 0-d input read as 1-D); where(Tensor condition) -> Tensor[] alike.
RuleResult aten_nonzero_numpy(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const char* name = args.has("self") ? "self" : "condition";
  const int64_t rank = args.rank_of(name);
  std::string x = args.tensor(name);
  if (rank == 0) x = ctx.unsqueeze(x, {0});
  const int64_t dims = std::max<int64_t>(rank, 1);
  PT2ONNX_CHECK(static_cast<int64_t>(ctx.output_count()) == dims, ErrorCode::kUnsupported, "nonzero_numpy with another result count");
  const std::string coords = ctx.emit("NonZero", {x});
  for (int64_t i = 0; i < dims; ++i) ctx.set_output(static_cast<size_t>(i), ctx.emit("Gather", {coords, ctx.const_i64(i)}, {Attr("axis", 0)}));
  return RuleResult::kEmitted;
}

// nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor: nonzero's [k, rank]
// coordinates cut to `size` rows or padded with fill_value.
RuleResult aten_nonzero_static(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t size = args.get_int("size");
  const std::string fill = ctx.emit("Expand", {ctx.const_i64(args.int_or("fill_value", -1)), ctx.const_i64s({size, rank})});
  if (rank == 0) return emitted(ctx, fill);  // [size, 0]: nothing to fill
  const std::string coords = ctx.transpose(ctx.emit("NonZero", {args.tensor("self")}), {1, 0});
  const std::string padded = ctx.concat({coords, fill}, 0);
  return emitted(ctx, ctx.emit("Slice", {padded, ctx.const_i64s({0}), ctx.const_i64s({size}), ctx.const_i64s({0})}));
}

}  // namespace

void register_decomp_index_rules(RuleTable& t) {
  t.add("aten.put.default", aten_put);
  t.add("aten.as_strided_scatter.default", aten_as_strided_scatter);
  t.add("aten._unsafe_masked_index.default", aten_unsafe_masked_index);
  t.add("aten._unsafe_masked_index_put_accumulate.default", aten_unsafe_masked_index_put_accumulate);  // ScatterND add: opset 16
  t.add("aten.repeat_interleave.self_Tensor", aten_repeat_interleave_tensor);
  t.add("aten.repeat_interleave.Tensor", aten_repeat_interleave_indices);
  t.add("aten.where.default", aten_nonzero_numpy);
  t.add("aten.scatter.reduce", aten_scatter_reduce_string);
  t.add("aten.scatter.value_reduce", aten_scatter_reduce_string);
  t.add("aten.nonzero_numpy.default", aten_nonzero_numpy);  // NonZero is opset 9
  t.add("aten.nonzero_static.default", aten_nonzero_static);
}

}  // namespace pt2onnx::translate
