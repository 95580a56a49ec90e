// Shape and small linear-algebra composites the default IR keeps: diagflat, linalg_diagonal, diagonal_scatter, linalg_vecdot, linalg_multi_dot, sum_to_size,
// take_along_dim, linalg_vander, combinations (index lists built at conversion), and the backward
// forms _softmax_backward_data and native_dropout_backward; conj_physical of a real tensor;
// _chunk_cat (padded chunks side by side), resize_/resize_as_ to as many elements.
#include <algorithm>
#include <functional>
#include <numeric>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/typed_emit.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

std::vector<int64_t> static_sizes(const ir::TensorMeta& meta, const char* what) {
  std::vector<int64_t> sizes;
  for (const ir::Dim& d : meta.sizes) {
    PT2ONNX_CHECK(d.is_static(), ErrorCode::kUnsupported, std::string(what) + " with symbolic sizes");
    sizes.push_back(d.as_int());
  }
  return sizes;
}

// diagflat(Tensor self, int offset=0) -> Tensor: the flattened input on diagonal `offset` of a
// square matrix of side n + |offset|, zeros elsewhere.
RuleResult aten_diagflat(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t offset = args.int_or("offset", 0);
  const std::vector<int64_t> sizes = static_sizes(args.meta("self"), "diagflat");
  const int64_t n = std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
  const int64_t side = n + std::abs(offset);
  const std::string v = ctx.reshape(args.tensor("self"), ctx.const_i64s({-1}));
  const std::string range = ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(side), ctx.const_i64(1)});
  const std::string rows = ctx.unsqueeze(range, {1}), cols = ctx.unsqueeze(range, {0});
  const std::string on = ctx.emit("Equal", {ctx.emit("Sub", {cols, rows}), ctx.const_i64(offset)});
  if (n == 0) return emitted(ctx, ctx.emit("Expand", {ctx.const_scalar(0, args.dtype_of("self")), ctx.const_i64s({side, side})}));
  // The entry of v a diagonal cell holds: its row (offset >= 0) or column, clipped into range elsewhere.
  const std::string which = ctx.emit("Clip", {offset >= 0 ? ctx.emit("Expand", {rows, ctx.const_i64s({side, side})})
                                                          : ctx.emit("Expand", {cols, ctx.const_i64s({side, side})}),
                                              ctx.const_i64(0), ctx.const_i64(n - 1)});
  const std::string picked = ctx.emit("Gather", {v, which});
  return emitted(ctx, emit_where(ctx, on, picked, ctx.const_scalar(0, args.dtype_of("self")), args.dtype_of("self")));
}

// The flat positions of diagonal `offset` in a rows x cols matrix (row-major), and its length.
std::vector<int64_t> diagonal_positions(int64_t rows, int64_t cols, int64_t offset) {
  std::vector<int64_t> positions;
  for (int64_t r = std::max<int64_t>(0, -offset); r < rows && r + offset < cols; ++r) positions.push_back(r * cols + r + offset);
  return positions;
}

// `x` with dims d1, d2 moved last (the others in order); `perm` receives the permutation.
std::string dims_last(EmitContext& ctx, const std::string& x, int64_t rank, int64_t d1, int64_t d2, std::vector<int64_t>& perm) {
  perm.clear();
  for (int64_t i = 0; i < rank; ++i)
    if (i != d1 && i != d2) perm.push_back(i);
  perm.push_back(d1);
  perm.push_back(d2);
  return ctx.transpose(x, perm);
}

// linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor(a): the
// diagonal as the last dim, the other dims in order (static sizes of dim1, dim2).
RuleResult aten_linalg_diagonal(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("A");
  const int64_t d1 = normalize_dim(args.int_or("dim1", -2), rank), d2 = normalize_dim(args.int_or("dim2", -1), rank);
  PT2ONNX_CHECK(d1 != d2, ErrorCode::kUnsupported, "linalg_diagonal of one dim twice");
  const std::vector<int64_t> sizes = static_sizes(args.meta("A"), "linalg_diagonal");
  std::vector<int64_t> perm;
  const std::string moved = dims_last(ctx, args.tensor("A"), rank, d1, d2, perm);
  const int64_t rows = sizes[static_cast<size_t>(d1)], cols = sizes[static_cast<size_t>(d2)];
  const std::string flat = ctx.reshape(moved, ctx.concat({ctx.shape_slice(moved, 0, rank - 2), ctx.const_i64s({rows * cols})}, 0));
  return emitted(ctx, ctx.emit("Gather", {flat, ctx.const_i64s(diagonal_positions(rows, cols, args.int_or("offset", 0)))}, {Attr("axis", rank - 2)}));
}

// diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor: self
// with its diagonal (laid out as diagonal() gives it, last) replaced by src.
RuleResult aten_diagonal_scatter(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t d1 = normalize_dim(args.int_or("dim1", 0), rank), d2 = normalize_dim(args.int_or("dim2", 1), rank);
  PT2ONNX_CHECK(d1 != d2, ErrorCode::kUnsupported, "diagonal_scatter of one dim twice");
  const std::vector<int64_t> sizes = static_sizes(args.meta("self"), "diagonal_scatter");
  std::vector<int64_t> perm;
  const std::string moved = dims_last(ctx, args.tensor("self"), rank, d1, d2, perm);
  const int64_t rows = sizes[static_cast<size_t>(d1)], cols = sizes[static_cast<size_t>(d2)];
  const std::string lead = ctx.shape_slice(moved, 0, rank - 2);
  const std::string flat = ctx.reshape(moved, ctx.concat({lead, ctx.const_i64s({rows * cols})}, 0));
  const std::vector<int64_t> positions = diagonal_positions(rows, cols, args.int_or("offset", 0));
  std::string result = flat;
  if (!positions.empty()) {
    std::vector<int64_t> index_shape(static_cast<size_t>(rank - 2), 1);
    index_shape.push_back(static_cast<int64_t>(positions.size()));
    const std::string src = cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), args.dtype_of("self"));
    const std::string index = ctx.emit("Expand", {ctx.reshape(ctx.const_i64s(positions), ctx.const_i64s(index_shape)), ctx.shape_of(src)});
    result = ctx.emit("ScatterElements", {flat, index, src}, {Attr("axis", rank - 2)});
  }
  result = ctx.reshape(result, ctx.concat({lead, ctx.const_i64s({rows, cols})}, 0));
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return emitted(ctx, ctx.transpose(result, inverse));
}

// linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor of real tensors: sum(x * y) along dim
// of the broadcast shape.
RuleResult aten_linalg_vecdot(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, torch_result_type(args, {"x", "y"}));
  const int64_t rank = std::max(args.rank_of("x"), args.rank_of("y"));
  PT2ONNX_CHECK(rank > 0, ErrorCode::kUnsupported, "linalg_vecdot of 0-d tensors");
  const std::string product = ctx.emit("Mul", {operand_as(ctx, args, "x", type), operand_as(ctx, args, "y", type)});
  return emitted(ctx, ctx.reduce("ReduceSum", product, std::vector<int64_t>{normalize_dim(args.int_or("dim", -1), rank)}, false));
}

// linalg_multi_dot(Tensor[] tensors) -> Tensor: MatMul left to right (a 1-D first operand is a row,
// a 1-D last one a column, as MatMul reads them).
RuleResult aten_linalg_multi_dot(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<std::string> values = args.tensors(args.has("tensors") ? "tensors" : "matrices");  // chain_matmul too
  PT2ONNX_CHECK(values.size() >= 2, ErrorCode::kUnsupported, "linalg_multi_dot of fewer than two tensors");
  std::string product = values[0];
  for (size_t i = 1; i < values.size(); ++i) product = ctx.emit("MatMul", {product, values[i]});
  return emitted(ctx, product);
}

// sum_to_size(Tensor self, SymInt[] size) -> Tensor: summed over the leading dims size lacks and
// over the dims where size has 1 and self not (static sizes).
RuleResult aten_sum_to_size(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<int64_t> target = args.ints("size");
  const std::vector<int64_t> sizes = static_sizes(args.meta("self"), "sum_to_size");
  const auto rank = static_cast<int64_t>(sizes.size()), lead = rank - static_cast<int64_t>(target.size());
  PT2ONNX_CHECK(lead >= 0, ErrorCode::kUnsupported, "sum_to_size to a larger rank");
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    if (i < lead || (target[static_cast<size_t>(i - lead)] == 1 && sizes[static_cast<size_t>(i)] != 1)) axes.push_back(i);
  // A sum is in the result's type (bools and small integers sum as int64).
  const DType type = args.out_dtype();
  std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  if (!axes.empty()) x = reduce_in(ctx, "ReduceSum", x, type, axes, true);
  return emitted(ctx, ctx.reshape(x, ctx.const_i64s(target)));
}

// take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor: GatherElements along dim
// after broadcasting the other dims of both; without dim, of the flattened tensors.
RuleResult aten_take_along_dim(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string self = args.tensor("self"), indices = args.tensor("indices");
  const std::optional<int64_t> dim = args.has("dim") ? args.optional_int("dim") : std::nullopt;
  if (!dim) {
    const std::string flat = ctx.const_i64s({-1});
    return emitted(ctx, ctx.emit("GatherElements", {ctx.reshape(self, flat), ctx.reshape(indices, flat)}, {Attr("axis", 0)}));
  }
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank == args.rank_of("indices") && rank > 0, ErrorCode::kUnsupported, "take_along_dim of tensors of different ranks");
  const int64_t axis = normalize_dim(*dim, rank);
  const std::string a = ctx.shape_of(self), b = ctx.shape_of(indices);
  const std::string one = ctx.const_i64(1);
  const std::string common = ctx.emit("Where", {ctx.emit("Equal", {a, one}), b, a});  // broadcast of the other dims
  auto with_own = [&](const std::string& own) {
    std::vector<std::string> parts;
    if (axis > 0) parts.push_back(ctx.emit("Slice", {common, ctx.const_i64s({0}), ctx.const_i64s({axis})}));
    parts.push_back(ctx.emit("Slice", {own, ctx.const_i64s({axis}), ctx.const_i64s({axis + 1})}));
    if (axis + 1 < rank) parts.push_back(ctx.emit("Slice", {common, ctx.const_i64s({axis + 1}), ctx.const_i64s({rank})}));
    return ctx.concat(parts, 0);
  };
  const std::string data = ctx.emit("Expand", {self, with_own(a)});
  const std::string index = ctx.emit("Expand", {indices, with_own(b)});
  return emitted(ctx, ctx.emit("GatherElements", {data, index}, {Attr("axis", axis)}));
}

// linalg_vander(Tensor x, *, SymInt? N=None) -> Tensor: [..., N] of x^0, x^1, ..., by repeated
// products as torch's cumprod forms them (static N, by default x's last size).
RuleResult aten_linalg_vander(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("x");
  const DType type = args.dtype_of("x");
  int64_t n = 0;
  if (args.has("N") && args.optional_int("N")) {
    n = args.get_int("N");
  } else {
    PT2ONNX_CHECK(rank > 0, ErrorCode::kUnsupported, "linalg_vander of a 0-d tensor without N");
    n = static_sizes(args.meta("x"), "linalg_vander").back();
  }
  PT2ONNX_CHECK(n >= 1, ErrorCode::kUnsupported, "linalg_vander with N below 1");
  // torch reads a 0-d x as [1] (its result is [1, N]).
  const std::string x = rank == 0 ? ctx.reshape(args.tensor("x"), ctx.const_i64s({1, 1})) : ctx.unsqueeze(args.tensor("x"), {-1});
  std::vector<std::string> columns = {ctx.emit("Expand", {ctx.const_scalar(1, type), ctx.shape_of(x)})};
  for (int64_t k = 1; k < n; ++k) columns.push_back(k == 1 ? x : ctx.emit("Mul", {columns.back(), x}));
  return emitted(ctx, columns.size() == 1 ? columns[0] : ctx.concat(columns, -1));
}

// combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor: the [k, r] rows of
// the 1-D input at every r-combination of positions (lexicographic, as itertools gives them).
RuleResult aten_combinations(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.rank_of("self") == 1, ErrorCode::kUnsupported, "combinations of a tensor of rank other than 1");
  const int64_t n = static_sizes(args.meta("self"), "combinations")[0];
  const int64_t r = args.int_or("r", 2);
  const bool replace = args.bool_or("with_replacement", false);
  PT2ONNX_CHECK(r >= 1, ErrorCode::kUnsupported, "combinations with r below 1");
  std::vector<int64_t> rows, current(static_cast<size_t>(r), 0);
  // Enumerate non-decreasing (with replacement) or increasing position tuples in lexicographic order.
  std::function<void(int64_t, int64_t)> walk = [&](int64_t depth, int64_t from) {
    if (depth == r) {
      rows.insert(rows.end(), current.begin(), current.end());
      return;
    }
    for (int64_t i = from; i < n; ++i) {
      current[static_cast<size_t>(depth)] = i;
      walk(depth + 1, replace ? i : i + 1);
    }
  };
  walk(0, 0);
  PT2ONNX_CHECK(rows.size() <= 1'000'000, ErrorCode::kUnsupported, "combinations with more than a million entries");
  const auto count = static_cast<int64_t>(rows.size()) / r;
  if (count == 0) return emitted(ctx, ctx.emit("Expand", {ctx.const_scalar(0, args.dtype_of("self")), ctx.const_i64s({0, r})}));
  const std::string positions = ctx.reshape(ctx.const_i64s(rows), ctx.const_i64s({count, r}));
  return emitted(ctx, ctx.emit("Gather", {args.tensor("self"), positions}));
}

// _softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) ->
// Tensor: output * (grad - sum(grad * output, dim)).
RuleResult aten_softmax_backward_data(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("output");
  const int64_t rank = args.rank_of("output");
  const std::string grad = cast_if_needed(ctx, args.tensor("grad_output"), args.dtype_of("grad_output"), type);
  const std::string out = args.tensor("output");
  std::string g = grad, y = out;
  if (rank == 0) {
    g = ctx.unsqueeze(g, {0});
    y = ctx.unsqueeze(y, {0});
  }
  const int64_t axis = rank == 0 ? 0 : normalize_dim(args.get_int("dim"), rank);
  const std::string dot = ctx.reduce("ReduceSum", ctx.emit("Mul", {g, y}), std::vector<int64_t>{axis}, true);
  std::string result = ctx.emit("Mul", {y, ctx.emit("Sub", {g, dot})});
  if (rank == 0) result = ctx.squeeze(result, {0});
  return emitted(ctx, cast_if_needed(ctx, result, type, result_dtype(args, type)));
}

// native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor: grad * mask * scale.
RuleResult aten_native_dropout_backward(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  // torch's result type: an integer gradient times the float scale is float.
  const DType type = args.out_dtype();
  const std::string mask = ctx.cast(args.tensor("mask"), type);
  const std::string grad = cast_if_needed(ctx, args.tensor("grad_output"), args.dtype_of("grad_output"), type);
  const std::string scaled = emit_in(ctx, "Mul", {grad, mask}, type);
  return emitted(ctx, emit_in(ctx, "Mul", {scaled, ctx.const_scalar(args.get_float("scale"), type)}, type));
}

// conj_physical(Tensor self) -> Tensor of a real tensor: the value itself (complex tensors have
// their own rule).
RuleResult aten_conj_physical_real(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, args.tensor("self"));
}

// _chunk_cat(Tensor[] tensors, int dim, int num_chunks) -> Tensor: each tensor zero-padded along
// dim to a multiple of num_chunks, viewed as [*leading, num_chunks, -1], and the views
// concatenated along dim + 1 (torch's decomposition). Static sizes along dim.
RuleResult aten_chunk_cat(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t chunks = args.get_int("num_chunks");
  PT2ONNX_CHECK(chunks >= 1, ErrorCode::kUnsupported, "_chunk_cat with num_chunks below 1");
  const auto* list = std::get_if<ir::TensorListArg>(&args.arg("tensors"));
  PT2ONNX_CHECK(list != nullptr && !list->names.empty(), ErrorCode::kUnsupported, "_chunk_cat without a tensor list");
  std::vector<std::string> views;
  int64_t dim = args.get_int("dim");
  for (const std::string& name : list->names) {
    const ir::TensorMeta* meta = ctx.meta(name);
    PT2ONNX_CHECK(meta != nullptr, ErrorCode::kUnsupported, "_chunk_cat of a tensor without metadata");
    const int64_t rank = static_cast<int64_t>(meta->sizes.size());
    const int64_t d = normalize_dim(dim, rank);
    const ir::Dim& size = meta->sizes[static_cast<size_t>(d)];
    PT2ONNX_CHECK(size.is_static(), ErrorCode::kUnsupported, "_chunk_cat along a symbolic size");
    const int64_t padded = (size.as_int() + chunks - 1) / chunks * chunks;
    std::string t = ctx.value_of(name);
    if (padded != size.as_int()) {
      std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
      pads[static_cast<size_t>(rank + d)] = padded - size.as_int();
      t = ctx.emit("Pad", {t, ctx.const_i64s(pads)});
    }
    views.push_back(ctx.reshape(t, ctx.concat({ctx.shape_slice(t, 0, d), ctx.const_i64s({chunks, -1})}, 0)));
    dim = d;
  }
  return emitted(ctx, ctx.concat(views, dim + 1));
}

// resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!);
// resize_as_(Tensor(a!) self, Tensor the_template, ...) to the template's shape, where the element
// count stays: self in the new shape (growing leaves elements uninitialized in torch; shrinking is
// refused too, unchecked). Static sizes; later readers of self read the resized tensor, as the op
// works in place.
RuleResult aten_resize(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<int64_t> from = static_sizes(args.meta("self"), "resize_");
  const std::vector<int64_t> to = args.has("the_template") ? static_sizes(args.meta("the_template"), "resize_as_") : args.ints("size");
  const int64_t have = std::accumulate(from.begin(), from.end(), int64_t{1}, std::multiplies<>());
  const int64_t want = std::accumulate(to.begin(), to.end(), int64_t{1}, std::multiplies<>());
  PT2ONNX_CHECK(want == have, ErrorCode::kUnsupported, "resize_ to another element count (torch leaves new elements uninitialized)");
  const std::string out = ctx.emit("Reshape", {args.tensor("self"), ctx.const_i64s(to)}, {Attr("allowzero", 1)});
  ctx.bind(args.tensor_fx("self"), out);
  return emitted(ctx, out);
}

}  // namespace

void register_decomp_shape_rules(RuleTable& t) {
  t.add("aten.diagflat.default", aten_diagflat);
  t.add("aten.linalg_diagonal.default", aten_linalg_diagonal);
  t.add("aten.diagonal_scatter.default", aten_diagonal_scatter);
  t.add("aten.linalg_vecdot.default", aten_linalg_vecdot);
  t.add("aten.linalg_multi_dot.default", aten_linalg_multi_dot);
  t.add("aten.sum_to_size.default", aten_sum_to_size);
  t.add("aten.take_along_dim.default", aten_take_along_dim);
  t.add("aten.linalg_vander.default", aten_linalg_vander);
  t.add("aten.combinations.default", aten_combinations);
  t.add("aten._softmax_backward_data.default", aten_softmax_backward_data);
  t.add("aten.native_dropout_backward.default", aten_native_dropout_backward);
  t.add("aten.conj_physical.default", aten_conj_physical_real);
  t.add("aten._chunk_cat.default", aten_chunk_cat);
  t.add("aten.resize_.default", aten_resize);
  t.add("aten.resize_as_.default", aten_resize);
}

}  // namespace pt2onnx::translate
