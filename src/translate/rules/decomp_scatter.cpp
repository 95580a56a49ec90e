// Index-driven reductions and unpooling: index_reduce (prod, mean, amax, amin) as ONNX
// ScatterElements with a reduction, max_unpool2d/3d as a scatter into flattened planes, the
// max_pool2d/3d backward (gradients added at the pooled indices), and
// adaptive_max_pool1d/2d/3d (values and torch's flat per-plane indices) reduced one spatial axis
// at a time over torch's windows [floor(i L / O), ceil((i + 1) L / O)).
#include <cmath>
#include <limits>
#include <string>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/typed_emit.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// The identity of a reduction in `type`: 1 for prod, the lowest value for amax, the highest for amin.
double identity_of(const std::string& reduce, DType type) {
  if (reduce == "prod") return 1;
  const bool floating = is_floating(type);
  double highest = floating ? INFINITY : static_cast<double>(std::numeric_limits<int64_t>::max());
  if (type == DType::kInt32) highest = std::numeric_limits<int32_t>::max();
  if (type == DType::kInt16) highest = std::numeric_limits<int16_t>::max();
  if (type == DType::kInt8) highest = std::numeric_limits<int8_t>::max();
  if (type == DType::kUInt8) return reduce == "amax" ? 0 : 255;
  return reduce == "amax" ? (floating ? -INFINITY : -highest - 1) : highest;
}

// index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True)
RuleResult aten_index_reduce(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string reduce = args.string_or("reduce", "");
  const DType type = args.dtype_of("self");
  const int64_t rank = args.rank_of("self");
  const bool include_self = args.bool_or("include_self", true);
  PT2ONNX_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin", ErrorCode::kUnsupported,
                "index_reduce '" + reduce + "'");
  PT2ONNX_CHECK(ctx.opset() >= 18 || reduce == "prod" || reduce == "mean", ErrorCode::kUnsupported,
                "index_reduce amax/amin below opset 18 (ScatterElements max/min)");
  PT2ONNX_CHECK(type != DType::kBool, ErrorCode::kUnsupported, "index_reduce of a bool tensor");
  const int64_t axis = rank == 0 ? 0 : normalize_dim(args.get_int("dim"), rank);
  std::string self = args.tensor("self"), source = args.tensor("source");
  if (rank == 0) self = ctx.unsqueeze(self, {0});
  if (args.rank_of("source") == 0) source = ctx.unsqueeze(source, {0});
  const int64_t work_rank = std::max<int64_t>(rank, 1);
  // index along `axis`, broadcast over the source's other dims.
  std::vector<int64_t> index_shape(static_cast<size_t>(work_rank), 1);
  index_shape[static_cast<size_t>(axis)] = -1;
  const std::string index = ctx.emit("Expand", {ctx.reshape(args.tensor("index"), ctx.const_i64s(index_shape)), ctx.shape_of(source)});
  auto scatter = [&](const std::string& data, const std::string& updates, const char* reduction) {
    return emit_scatter(ctx, "ScatterElements", {data, index, updates}, type, {Attr("axis", axis), Attr("reduction", reduction)});
  };
  const std::string touched = ctx.emit("ScatterElements", {ctx.emit("Expand", {ctx.const_bool(false), ctx.shape_of(self)}), index,
                                                           ctx.emit("Expand", {ctx.const_bool(true), ctx.shape_of(source)})},
                                       {Attr("axis", axis)});
  auto unless_self = [&](double fill) {
    return include_self ? self : ctx.emit("Where", {touched, ctx.const_scalar(fill, type), self});
  };
  std::string result;
  if (reduce == "mean") {
    const std::string sum = scatter(unless_self(0), source, "add");
    const std::string counts_base = ctx.emit("Expand", {ctx.const_scalar(include_self ? 1 : 0, type), ctx.shape_of(self)});
    std::string counts = scatter(counts_base, ctx.emit("Expand", {ctx.const_scalar(1, type), ctx.shape_of(source)}), "add");
    counts = ctx.emit("Where", {ctx.emit("Equal", {counts, ctx.const_scalar(0, type)}), ctx.const_scalar(1, type), counts});
    result = is_floating(type) ? ctx.emit("Div", {sum, counts}) : int_floor_div(ctx, sum, counts);
  } else {
    const char* reduction = reduce == "prod" ? "mul" : reduce == "amax" ? "max" : "min";
    result = scatter(unless_self(identity_of(reduce, type)), source, reduction);
  }
  if (rank == 0) result = ctx.squeeze(result, {0});
  return emitted(ctx, result);
}

// max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor; max_unpool3d(...,
// SymInt[3] output_size, int[3] stride, int[3] padding): each value written at its flat index
// within its (N, C) plane of output_size, zeros elsewhere (the last write wins, as in torch).
RuleResult max_unpool(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<int64_t> out_size = args.ints("output_size");
  const auto spatial = static_cast<int64_t>(out_size.size());
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank == spatial + 1 || rank == spatial + 2, ErrorCode::kUnsupported, "max_unpool of an input of rank " + std::to_string(rank));
  int64_t plane = 1;
  for (int64_t s : out_size) plane *= s;
  const std::string x = args.tensor("self");
  const std::string lead = ctx.shape_slice(x, 0, rank - spatial);
  const std::string flat_shape = ctx.concat({lead, ctx.const_i64s({-1})}, 0);
  const std::string values = ctx.reshape(x, flat_shape);
  const std::string indices = ctx.reshape(args.tensor("indices"), flat_shape);
  const std::string zeros = ctx.emit("Expand", {ctx.const_scalar(0, args.dtype_of("self")), ctx.concat({lead, ctx.const_i64s({plane})}, 0)});
  const std::string out = ctx.emit("ScatterElements", {zeros, indices, values}, {Attr("axis", rank - spatial)});
  return emitted(ctx, ctx.reshape(out, ctx.concat({lead, ctx.const_i64s(out_size)}, 0)));
}

// max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride,
//     int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor; the 3d form alike:
// zeros shaped like self with each gradient added at its flat index within its plane (a window
// maximum picked by several windows gathers all their gradients, as torch accumulates).
RuleResult max_pool_backward(EmitContext& ctx, const ir::Node& node, int64_t spatial) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank == spatial + 1 || rank == spatial + 2, ErrorCode::kUnsupported,
                "max_pool backward of an input of rank " + std::to_string(rank));
  const std::string self = args.tensor("self");
  const DType type = args.dtype_of("self");
  const std::string lead = ctx.shape_slice(self, 0, rank - spatial);
  const std::string plane = ctx.reduce("ReduceProd", ctx.shape_slice(self, rank - spatial, rank), std::vector<int64_t>{0}, true);
  const std::string flat_shape = ctx.concat({lead, plane}, 0);
  const std::string out_flat = ctx.concat({lead, ctx.const_i64s({-1})}, 0);
  const std::string grad = ctx.reshape(cast_if_needed(ctx, args.tensor("grad_output"), args.dtype_of("grad_output"), type), out_flat);
  const std::string indices = ctx.reshape(cast_if_needed(ctx, args.tensor("indices"), args.dtype_of("indices"), DType::kInt64), out_flat);
  const std::string zeros = ctx.emit("Expand", {ctx.const_scalar(0, type), flat_shape});
  const std::string out = emit_scatter(ctx, "ScatterElements", {zeros, indices, grad}, type, {Attr("axis", rank - spatial), Attr("reduction", "add")});
  return emitted(ctx, ctx.reshape(out, ctx.shape_of(self)));
}
RuleResult aten_max_pool2d_backward(EmitContext& ctx, const ir::Node& node) { return max_pool_backward(ctx, node, 2); }
RuleResult aten_max_pool3d_backward(EmitContext& ctx, const ir::Node& node) { return max_pool_backward(ctx, node, 3); }

// segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, Tensor? offsets=None,
//     int axis=0, bool unsafe=False, Scalar? initial=None) -> Tensor: consecutive segments of data
// along axis (lengths, or offsets' differences; per leading index when batched) reduced by sum,
// mean, max, min or prod, `initial` taking part in each (mean divides it too); an empty segment
// gives initial, else 0, 1, -inf, +inf or NaN. Through a [..., S, N] membership mask (quadratic
// in N); NaN propagates through max and min, as torch's kernel does.
RuleResult aten_segment_reduce(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string reduce = args.string_or("reduce", "");
  PT2ONNX_CHECK(reduce == "sum" || reduce == "mean" || reduce == "max" || reduce == "min" || reduce == "prod", ErrorCode::kUnsupported,
                "segment_reduce with reduce '" + reduce + "'");
  PT2ONNX_CHECK(!args.has("indices") && (args.has("lengths") || args.has("offsets")), ErrorCode::kUnsupported,
                "segment_reduce by indices (only lengths or offsets)");
  const DType type = args.dtype_of("data");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "segment_reduce of a non-floating tensor");
  const int64_t rank = args.rank_of("data");
  const int64_t axis = normalize_dim(args.int_or("axis", 0), rank);
  const std::string data = args.tensor("data");
  auto c = [&](double v) { return ctx.const_scalar(v, type); };
  const std::string last = ctx.const_i64s({-1});
  std::string lengths, starts;
  if (args.has("lengths")) {
    lengths = cast_if_needed(ctx, args.tensor("lengths"), args.dtype_of("lengths"), DType::kInt64);
    starts = ctx.emit("CumSum", {lengths, ctx.const_i64(-1)}, {Attr("exclusive", 1)});
  } else {
    const std::string offsets = cast_if_needed(ctx, args.tensor("offsets"), args.dtype_of("offsets"), DType::kInt64);
    starts = ctx.emit("Slice", {offsets, ctx.const_i64s({0}), last, last});
    lengths = ctx.emit("Sub", {ctx.emit("Slice", {offsets, ctx.const_i64s({1}), ctx.const_i64s({std::numeric_limits<int64_t>::max()}), last}), starts});
  }
  const std::string positions = ctx.emit("Range", {ctx.const_i64(0), ctx.dim_of(data, axis), ctx.const_i64(1)});  // [N]
  const std::string start_col = ctx.unsqueeze(starts, {-1});                                                      // [..., S, 1]
  std::string member = ctx.emit("And", {ctx.emit("GreaterOrEqual", {positions, start_col}),
                                        ctx.emit("Less", {positions, ctx.emit("Add", {start_col, ctx.unsqueeze(lengths, {-1})})})});
  std::vector<int64_t> trailing;
  for (int64_t i = axis + 2; i < rank + 1; ++i) trailing.push_back(i);
  if (!trailing.empty()) member = ctx.unsqueeze(member, trailing);  // [..., S, N, 1...]
  const std::string values = ctx.unsqueeze(data, {axis});          // [..., 1, N, rest...]
  const std::vector<int64_t> over = {axis + 1};
  const double fill = reduce == "prod" ? 1 : reduce == "max" ? -INFINITY : reduce == "min" ? INFINITY : 0;
  const std::string op = reduce == "prod" ? "ReduceProd" : reduce == "max" ? "ReduceMax" : reduce == "min" ? "ReduceMin" : "ReduceSum";
  std::string out = ctx.reduce(op, ctx.emit("Where", {member, values, c(fill)}), over, false);  // [..., S, rest...]
  const bool has_initial = args.has("initial");
  const std::string initial = has_initial ? args.scalar("initial", type) : "";
  if (has_initial) {
    if (reduce == "sum" || reduce == "mean") out = ctx.emit("Add", {out, initial});
    if (reduce == "prod") out = ctx.emit("Mul", {out, initial});
    if (reduce == "max") out = ctx.emit("Max", {out, initial});
    if (reduce == "min") out = ctx.emit("Min", {out, initial});
  }
  if (reduce == "mean") {
    std::string count = ctx.cast(lengths, type);  // [..., S], shaped to broadcast over out's trailing dims
    std::vector<int64_t> rest_axes;
    for (int64_t i = axis + 1; i < rank; ++i) rest_axes.push_back(i);
    if (!rest_axes.empty()) count = ctx.unsqueeze(count, rest_axes);
    out = ctx.emit("Div", {out, count});
    if (has_initial) out = ctx.emit("Where", {ctx.emit("Equal", {count, c(0)}), initial, out});
  }
  if (reduce == "max" || reduce == "min") {
    const std::string nan = ctx.emit("And", {member, ctx.emit("IsNaN", {values})});
    const std::string any_nan = ctx.cast(ctx.reduce("ReduceMax", ctx.cast(nan, DType::kInt32), over, false), DType::kBool);
    out = ctx.emit("Where", {any_nan, c(NAN), out});
  }
  return emitted(ctx, out);
}

// adaptive_max_pool1d/2d/3d(Tensor self, int[k] output_size) -> (Tensor, Tensor): the max of each
// window and its flat index within the input plane, the first in row-major order on ties (as
// torch scans). Max and its position separate by axis: the last spatial axis is reduced first,
// each reduction carrying the flat index of the element it picked. Static spatial sizes only.
RuleResult aten_adaptive_max_pool(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<int64_t> out_size = args.ints("output_size");
  const auto spatial = static_cast<int64_t>(out_size.size());
  const int64_t rank = args.rank_of("self");
  const ir::TensorMeta& meta = args.meta("self");
  std::vector<int64_t> in_size;
  for (int64_t a = rank - spatial; a < rank; ++a) {
    const ir::Dim& d = meta.sizes[static_cast<size_t>(a)];
    PT2ONNX_CHECK(d.is_static() && d.as_int() > 0, ErrorCode::kUnsupported, "adaptive_max_pool over a dynamic or empty spatial dim");
    in_size.push_back(d.as_int());
  }
  std::string values = args.tensor("self");
  std::string index = ctx.emit("Expand", {ctx.const_i64(0), ctx.shape_of(values)});
  int64_t stride = 1;  // flat stride of the axis being reduced
  for (int64_t s = spatial - 1; s >= 0; --s) {
    const int64_t axis = rank - spatial + s, length = in_size[static_cast<size_t>(s)], count = out_size[static_cast<size_t>(s)];
    std::vector<std::string> picked_values, picked_index;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t start = i * length / count, end = ((i + 1) * length + count - 1) / count;
      auto window = [&](const std::string& v) {
        return ctx.emit("Slice", {v, ctx.const_i64s({start}), ctx.const_i64s({end}), ctx.const_i64s({axis})});
      };
      const std::string v = window(values), p = window(index);
      const std::string at = ctx.emit("ArgMax", {v}, {Attr("axis", axis), Attr("keepdims", 1)});
      picked_values.push_back(ctx.emit("GatherElements", {v, at}, {Attr("axis", axis)}));
      const std::string position = ctx.emit("Mul", {ctx.emit("Add", {at, ctx.const_i64(start)}), ctx.const_i64(stride)});
      picked_index.push_back(ctx.emit("Add", {ctx.emit("GatherElements", {p, at}, {Attr("axis", axis)}), position}));
    }
    values = ctx.concat(picked_values, axis);
    index = ctx.concat(picked_index, axis);
    stride *= length;
  }
  ctx.set_output(0, values);
  if (ctx.output_used(1)) ctx.set_output(1, index);
  return RuleResult::kEmitted;
}

}  // namespace

void register_decomp_scatter_rules(RuleTable& t) {
  t.add("aten.index_reduce.default", aten_index_reduce);
  t.add("aten.max_unpool2d.default", max_unpool);
  t.add("aten.max_unpool3d.default", max_unpool);
  t.add("aten.max_pool2d_with_indices_backward.default", aten_max_pool2d_backward);
  t.add("aten.max_pool3d_with_indices_backward.default", aten_max_pool3d_backward);
  t.add("aten.segment_reduce.default", aten_segment_reduce);
  t.add("aten.adaptive_max_pool1d.default", aten_adaptive_max_pool);
  t.add("aten.adaptive_max_pool2d.default", aten_adaptive_max_pool);
  t.add("aten.adaptive_max_pool3d.default", aten_adaptive_max_pool);
}

}  // namespace pt2onnx::translate
