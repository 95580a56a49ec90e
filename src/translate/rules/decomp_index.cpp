// Index forms the default IR keeps: put (into the flattened tensor), scatter with a reduce string,
// nonzero as a tuple (nonzero_numpy) and nonzero_static (padded or cut to a fixed count).
#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

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
  const std::string out = ctx.emit("ScatterElements", {ctx.reshape(self, flat), index, source}, attrs);
  return emitted(ctx, ctx.reshape(out, ctx.shape_of(self)));
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
  std::string out = ctx.emit("ScatterElements", {self, index, updates},
                             {Attr("axis", axis), Attr("reduction", reduce == "add" ? "add" : "mul")});
  if (rank == 0) out = ctx.squeeze(out, {0});
  return emitted(ctx, out);
}

// nonzero_numpy(Tensor self) -> Tensor[]: the coordinates of the nonzero entries, one int64 tensor
// per dim (a 0-d input read as 1-D).
RuleResult aten_nonzero_numpy(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  std::string x = args.tensor("self");
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
  t.add("aten.scatter.reduce", aten_scatter_reduce_string);
  t.add("aten.scatter.value_reduce", aten_scatter_reduce_string);
  t.add("aten.nonzero_numpy.default", aten_nonzero_numpy);  // NonZero is opset 9
  t.add("aten.nonzero_static.default", aten_nonzero_static);
}

}  // namespace pt2onnx::translate
