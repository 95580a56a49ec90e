// torch.histogram and torch.histogramdd (and the _histogramdd_* ops their composite splits into), as
// torch's CPU kernel defines them: the samples are the input's last dim (histogram: one dim of the
// flattened input); per dim, bin edges are the given tensor or linspace(left, right, bins + 1) in the
// input's dtype, where [left, right] is `range` or the samples' own min and max ([0, 1] when there are
// none; widened by 0.5 either way when empty). A sample falls in bin upper_bound(edges, x) - 1, the
// rightmost bin closed on both sides; samples outside the edges (or NaN) are not counted. Counts (or
// weights) are scatter-added into the flattened bins; density divides by their total and the bin
// volumes.
#include "translate/rules/register_all.h"

#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "common/error.h"
#include "translate/arg_reader.h"
#include "translate/onnx_types.h"
#include "translate/rule_helpers.h"
#include "translate/typed_emit.h"

namespace pt2onnx::translate {
namespace {

using ir::DType;

// The samples as [M, N] and, when given, their weights as [M].
struct Samples {
  std::string points;
  int64_t dims = 0;
  std::optional<std::string> weights;
  DType type = DType::kUnknown;
};

// histogramdd's input (..., N) as [M, N]; histogram's (any shape) as [M, 1].
Samples read_samples(EmitContext& ctx, const ArgReader& args, bool one_dim) {
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "histogram of a non-float tensor");
  Samples s;
  s.type = type;
  if (one_dim) {
    s.dims = 1;
    s.points = ctx.reshape(args.tensor("self"), ctx.const_i64s({-1, 1}));
  } else {
    const int64_t rank = args.rank_of("self");
    PT2ONNX_CHECK(rank >= 2, ErrorCode::kUnsupported, "histogramdd of a tensor with fewer than 2 dims");
    const ir::Dim& last = args.meta("self").sizes.back();
    PT2ONNX_CHECK(last.is_static(), ErrorCode::kUnsupported, "histogramdd over a symbolic number of dims");
    s.dims = last.as_int();
    s.points = ctx.reshape(args.tensor("self"), ctx.const_i64s({-1, s.dims}));
  }
  if (auto w = args.optional_tensor("weight")) s.weights = ctx.reshape(*w, ctx.const_i64s({-1}));
  return s;
}

// Column d of the samples, [M].
std::string column(EmitContext& ctx, const Samples& s, int64_t d) {
  return ctx.squeeze(ctx.emit("Slice", {s.points, ctx.const_i64s({d}), ctx.const_i64s({d + 1}), ctx.const_i64s({1})}), {1});
}

// The samples' min (or max) of column `x`: `empty_value` when there are none (a +-inf sentinel, as
// torch refuses an infinite range anyway), widened by 0.5 when min == max, as 0-D values.
std::pair<std::string, std::string> data_range(EmitContext& ctx, const std::string& x, DType type) {
  const double inf = std::numeric_limits<double>::infinity();
  auto extreme = [&](const char* op, double sentinel, double empty_value) {
    const std::string padded = ctx.concat({x, ctx.unsqueeze(ctx.const_scalar(sentinel, type), {0})}, 0);
    const std::string v = ctx.reduce(op, padded, std::vector<int64_t>{0}, false);
    return ctx.emit("Where", {ctx.emit("Equal", {v, ctx.const_scalar(sentinel, type)}), ctx.const_scalar(empty_value, type), v});
  };
  std::string low = extreme("ReduceMin", inf, 0.0), high = extreme("ReduceMax", -inf, 1.0);
  const std::string same = ctx.emit("Equal", {low, high});
  const std::string half = ctx.const_scalar(0.5, type);
  low = ctx.emit("Where", {same, ctx.emit("Sub", {low, half}), low});
  high = ctx.emit("Where", {same, ctx.emit("Add", {high, half}), high});
  return {low, high};
}

// Per dim, bins + 1 edges from `range` (2 per dim) or the data.
std::vector<std::string> edges_from_counts(EmitContext& ctx, const ArgReader& args, const Samples& s, const std::vector<int64_t>& bins) {
  PT2ONNX_CHECK(static_cast<int64_t>(bins.size()) == s.dims, ErrorCode::kUnsupported, "histogramdd with a bin count list that is not one per dim");
  const std::vector<double> range = args.has("range") ? args.floats("range") : std::vector<double>{};
  PT2ONNX_CHECK(range.empty() || static_cast<int64_t>(range.size()) == 2 * s.dims, ErrorCode::kUnsupported, "histogram range that is not 2 values per dim");
  std::vector<std::string> edges;
  for (int64_t d = 0; d < s.dims; ++d) {
    PT2ONNX_CHECK(bins[static_cast<size_t>(d)] > 0, ErrorCode::kUnsupported, "histogram with bins < 1");
    std::string low, high;
    if (!range.empty()) {
      double lo = range[static_cast<size_t>(2 * d)], hi = range[static_cast<size_t>(2 * d + 1)];
      PT2ONNX_CHECK(lo <= hi, ErrorCode::kUnsupported, "histogram range whose min exceeds its max");
      if (lo == hi) lo -= 0.5, hi += 0.5;
      low = ctx.const_scalar(lo, s.type), high = ctx.const_scalar(hi, s.type);
    } else {
      std::tie(low, high) = data_range(ctx, column(ctx, s, d), s.type);
    }
    edges.push_back(linspace_between(ctx, low, high, bins[static_cast<size_t>(d)] + 1, s.type));
  }
  return edges;
}

// The length of a bin-edges tensor: 1-D, static and non-zero.
int64_t edge_count(const ir::TensorMeta& meta) {
  PT2ONNX_CHECK(meta.sizes.size() == 1 && meta.sizes[0].is_static() && meta.sizes[0].as_int() > 0, ErrorCode::kUnsupported,
                "histogram bins tensor that is not 1-D with a static, non-zero length");
  return meta.sizes[0].as_int();
}

// Static edge counts of given bin tensors (1-D each, one per dim).
std::vector<int64_t> edge_tensor_bins(EmitContext& ctx, const ArgReader& args, const std::string& name, int64_t dims) {
  std::vector<int64_t> bins;
  const std::vector<std::string> values = args.tensors(name);
  PT2ONNX_CHECK(static_cast<int64_t>(values.size()) == dims, ErrorCode::kUnsupported, "histogramdd with bin tensors that are not one per dim");
  const auto* list = std::get_if<ir::TensorListArg>(&args.arg(name));
  PT2ONNX_CHECK(list != nullptr, ErrorCode::kUnsupported, "histogramdd bins that are not a Tensor[]");
  for (const std::string& fx : list->names) {
    const ir::TensorMeta* meta = ctx.meta(fx);
    PT2ONNX_CHECK(meta != nullptr, ErrorCode::kUnsupported, "histogram bins tensor without metadata");
    bins.push_back(edge_count(*meta) - 1);
  }
  return bins;
}

// The histogram over `edges` (bins[d] + 1 each), shaped as bins; divided by total and volume with density.
std::string count_samples(EmitContext& ctx, const Samples& s, const std::vector<std::string>& edges, const std::vector<int64_t>& bins,
                          bool density) {
  std::string flat, inside;
  int64_t total = 1;
  for (int64_t d = s.dims - 1; d >= 0; --d) {
    const std::string x = column(ctx, s, d), e = edges[static_cast<size_t>(d)];
    const int64_t n = bins[static_cast<size_t>(d)];
    // upper_bound(edges, x) - 1: the edges at or below x, less one; the right edge closes the last bin.
    const std::string at_or_below = ctx.cast(ctx.emit("LessOrEqual", {ctx.unsqueeze(e, {0}), ctx.unsqueeze(x, {1})}), DType::kInt64);
    std::string pos = ctx.emit("Sub", {ctx.reduce("ReduceSum", at_or_below, std::vector<int64_t>{1}, false), ctx.const_i64(1)});
    pos = ctx.emit("Min", {pos, ctx.const_i64(n - 1)});
    const std::string first = ctx.emit("Gather", {e, ctx.const_i64(0)}), last = ctx.emit("Gather", {e, ctx.const_i64(n)});
    const std::string in_d = ctx.emit("And", {ctx.emit("GreaterOrEqual", {x, first}), ctx.emit("LessOrEqual", {x, last})});
    const std::string term = total == 1 ? pos : ctx.emit("Mul", {pos, ctx.const_i64(total)});
    flat = flat.empty() ? term : ctx.emit("Add", {flat, term});
    inside = inside.empty() ? in_d : ctx.emit("And", {inside, in_d});
    total *= n;
  }
  const std::string index = ctx.emit("Where", {inside, flat, ctx.const_i64(0)});
  const std::string zero = ctx.const_scalar(0, s.type);
  const std::string amount = s.weights ? ctx.emit("Where", {inside, *s.weights, zero}) : ctx.cast(inside, s.type);
  const std::string empty = ctx.emit("Expand", {zero, ctx.const_i64s({total})});
  std::string hist = emit_scatter(ctx, "ScatterElements", {empty, index, amount}, s.type, {Attr("axis", int64_t{0}), Attr("reduction", "add")});
  hist = ctx.reshape(hist, ctx.const_i64s(bins));
  if (!density) return hist;
  hist = ctx.emit("Div", {hist, ctx.reduce("ReduceSum", hist, std::nullopt, false)});
  for (int64_t d = 0; d < s.dims; ++d) {
    const std::string e = edges[static_cast<size_t>(d)];
    const int64_t n = bins[static_cast<size_t>(d)];
    std::string width = ctx.emit("Sub", {ctx.emit("Slice", {e, ctx.const_i64s({1}), ctx.const_i64s({n + 1}), ctx.const_i64s({0})}),
                                         ctx.emit("Slice", {e, ctx.const_i64s({0}), ctx.const_i64s({n}), ctx.const_i64s({0})})});
    std::vector<int64_t> shape(static_cast<size_t>(s.dims), 1);
    shape[static_cast<size_t>(d)] = n;
    hist = ctx.emit("Div", {hist, ctx.reshape(width, ctx.const_i64s(shape))});
  }
  return hist;
}

void set_edges(EmitContext& ctx, size_t first_output, const std::vector<std::string>& edges) {
  for (size_t d = 0; d < edges.size(); ++d)
    if (first_output + d < ctx.output_count() && ctx.output_used(first_output + d)) ctx.set_output(first_output + d, edges[d]);
}

// Binds the histogram over `edges` to output 0 and the edges to the outputs from 1 on.
RuleResult bind_histogram(EmitContext& ctx, const ArgReader& args, const Samples& s, const std::vector<std::string>& edges,
                          const std::vector<int64_t>& bins) {
  ctx.set_output(0, count_samples(ctx, s, edges, bins, args.bool_or("density", false)));
  set_edges(ctx, 1, edges);
  return RuleResult::kEmitted;
}

// histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False)
//   -> (Tensor hist, Tensor bin_edges)
RuleResult aten_histogram_bin_ct(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Samples s = read_samples(ctx, args, true);
  const std::vector<int64_t> bins = {args.int_or("bins", 100)};
  const std::vector<std::string> edges = edges_from_counts(ctx, args, s, bins);
  return bind_histogram(ctx, args, s, edges, bins);
}

// histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False)
//   -> (Tensor hist, Tensor bin_edges)
RuleResult aten_histogram_bins_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Samples s = read_samples(ctx, args, true);
  const std::vector<int64_t> bins = {edge_count(args.meta("bins")) - 1};
  const std::vector<std::string> edges = {args.tensor("bins")};
  return bind_histogram(ctx, args, s, edges, bins);
}

// histogramdd(Tensor self, int[] bins, float[]? range=None, Tensor? weight=None, bool density=False)
//   -> (Tensor hist, Tensor[] bin_edges); also histogramdd.int_bins (one count for every dim).
RuleResult aten_histogramdd_counts(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Samples s = read_samples(ctx, args, false);
  std::vector<int64_t> bins = args.ints("bins");
  if (bins.size() == 1 && s.dims != 1) bins.assign(static_cast<size_t>(s.dims), bins[0]);
  const std::vector<std::string> edges = edges_from_counts(ctx, args, s, bins);
  return bind_histogram(ctx, args, s, edges, bins);
}

// histogramdd.TensorList_bins(Tensor self, Tensor[] bins, float[]? range=None, Tensor? weight=None,
//   bool density=False) -> (Tensor hist, Tensor[] bin_edges)   (range is ignored with given edges)
RuleResult aten_histogramdd_tensors(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Samples s = read_samples(ctx, args, false);
  const std::vector<int64_t> bins = edge_tensor_bins(ctx, args, "bins", s.dims);
  const std::vector<std::string> edges = args.tensors("bins");
  return bind_histogram(ctx, args, s, edges, bins);
}

// _histogramdd_bin_edges(Tensor self, int[] bins, *, float[]? range=None, Tensor? weight=None, bool density=False) -> Tensor[]
RuleResult aten_histogramdd_bin_edges(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Samples s = read_samples(ctx, args, false);
  set_edges(ctx, 0, edges_from_counts(ctx, args, s, args.ints("bins")));
  return RuleResult::kEmitted;
}

// _histogramdd_from_bin_cts(Tensor self, int[] bins, *, float[]? range=None, Tensor? weight=None, bool density=False) -> Tensor
RuleResult aten_histogramdd_from_bin_cts(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Samples s = read_samples(ctx, args, false);
  const std::vector<int64_t> bins = args.ints("bins");
  return emitted(ctx, count_samples(ctx, s, edges_from_counts(ctx, args, s, bins), bins, args.bool_or("density", false)));
}

// _histogramdd_from_bin_tensors(Tensor self, Tensor[] bins, *, Tensor? weight=None, bool density=False) -> Tensor
RuleResult aten_histogramdd_from_bin_tensors(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Samples s = read_samples(ctx, args, false);
  const std::vector<int64_t> bins = edge_tensor_bins(ctx, args, "bins", s.dims);
  return emitted(ctx, count_samples(ctx, s, args.tensors("bins"), bins, args.bool_or("density", false)));
}

}  // namespace

void register_histogram_rules(RuleTable& t) {
  t.add_since(16, "aten.histogram.bin_ct", aten_histogram_bin_ct);
  t.add_since(16, "aten.histogram.bins_tensor", aten_histogram_bins_tensor);
  t.add_since(16, "aten.histogramdd.default", aten_histogramdd_counts);
  t.add_since(16, "aten.histogramdd.int_bins", aten_histogramdd_counts);
  t.add_since(16, "aten.histogramdd.TensorList_bins", aten_histogramdd_tensors);
  t.add_since(16, "aten._histogramdd_bin_edges.default", aten_histogramdd_bin_edges);
  t.add_since(16, "aten._histogramdd_from_bin_cts.default", aten_histogramdd_from_bin_cts);
  t.add_since(16, "aten._histogramdd_from_bin_tensors.default", aten_histogramdd_from_bin_tensors);
}

}  // namespace pt2onnx::translate
