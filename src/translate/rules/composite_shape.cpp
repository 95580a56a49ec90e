// Composite shape ops that the default IR keeps and core IR decomposes, expanded straight into
// ONNX ops where that is smaller than their aten decomposition (decompositions/ holds those that
// are not): tensor_split/hsplit/vsplit/dsplit as Split or Slices, kron, diag/diag_embed (EyeLike
// masks), vander, tril/triu_indices (constants), channel_shuffle, masked_select (Compress), take,
// index_add (ScatterElements add), msort (TopK), block_diag (Pad and Concat).
#include <algorithm>
#include <limits>

#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/typed_emit.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::vector<int64_t> iota(int64_t n, int64_t first = 0) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = first + i;
  return v;
}

// ---- splitting ---------------------------------------------------------------------------------

// The node's outputs as pieces of `x` between consecutive bounds (0-D int64 values, Python slice
// semantics: negative from the end, clamped), the first from 0 and the last to the end.
RuleResult slices_between(EmitContext& ctx, const std::string& x, int64_t dim, const std::vector<std::string>& bounds) {
  const size_t count = ctx.output_count();
  PT2ONNX_CHECK(count == bounds.size() + 1, ErrorCode::kUnsupported, "a split with " + std::to_string(count) +
                " outputs for " + std::to_string(bounds.size()) + " indices");
  const std::string axes = ctx.const_i64s({dim});
  for (size_t j = 0; j < count; ++j) {
    if (!ctx.output_used(j)) continue;
    const std::string start = j == 0 ? ctx.const_i64s({0}) : ctx.unsqueeze(bounds[j - 1], {0});
    const std::string end = j + 1 == count ? ctx.const_i64s({kInt64Max}) : ctx.unsqueeze(bounds[j], {0});
    ctx.set_output(j, ctx.emit("Slice", {x, start, end, axes}));
  }
  return RuleResult::kEmitted;
}

// `sections` pieces along dim: the first size % sections hold one element more (torch's rule).
RuleResult split_sections(EmitContext& ctx, const ArgReader& args, int64_t dim, const std::string& sections) {
  const std::string x = args.tensor("self");
  const size_t count = ctx.output_count();
  if (count == 1) return emitted(ctx, x);
  const std::string size = ctx.size_of(args.tensor_fx("self"), dim);
  const std::string base = ctx.emit("Div", {size, sections});
  const std::string extra = ctx.emit("Mod", {size, sections});
  const std::string longer = ctx.cast(ctx.emit("Less", {ctx.const_i64s(iota(static_cast<int64_t>(count))), extra}), DType::kInt64);
  const std::string sizes = ctx.emit("Add", {longer, base});
  const std::vector<std::string> parts = ctx.emit("Split", {x, sizes}, {Attr("axis", dim)}, static_cast<int>(count));
  for (size_t i = 0; i < count; ++i) ctx.set_output(i, parts[i]);
  return RuleResult::kEmitted;
}

// tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]
RuleResult aten_tensor_split_sections(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", 0), args.rank_of("self"));
  return split_sections(ctx, args, dim, args.int_value("sections"));
}

// tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]
RuleResult aten_tensor_split_indices(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", 0), args.rank_of("self"));
  std::vector<std::string> bounds;
  for (const ir::SymIntArg& i : args.sym_ints("indices")) bounds.push_back(ctx.sym_int(i));
  return slices_between(ctx, args.tensor("self"), dim, bounds);
}

// tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor tensor_indices_or_sections, int dim=0)
//   -> Tensor(a)[]: a 0-D integer tensor is the section count, a 1-D one the indices, read at run time.
RuleResult aten_tensor_split_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", 0), args.rank_of("self"));
  const std::string name = "tensor_indices_or_sections";
  const std::string t = cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kInt64);
  if (args.rank_of(name) == 0) return split_sections(ctx, args, dim, t);
  PT2ONNX_CHECK(args.rank_of(name) == 1, ErrorCode::kUnsupported, "tensor_split by a tensor of rank above 1");
  std::vector<std::string> bounds;
  for (size_t i = 0; i + 1 < ctx.output_count(); ++i)
    bounds.push_back(ctx.emit("Gather", {t, ctx.const_i64(static_cast<int64_t>(i))}, {Attr("axis", 0)}));
  return slices_between(ctx, args.tensor("self"), dim, bounds);
}

// hsplit/vsplit/dsplit: tensor_split along dim 1 (dim 0 for 1-D hsplit), 0 and 2.
// hsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]; hsplit.array(Tensor(a -> *) self, int[] indices)
int64_t hsplit_dim(const ArgReader& args) { return args.rank_of("self") == 1 ? 0 : 1; }
RuleResult along(EmitContext& ctx, const ir::Node& node, int64_t dim) {
  ArgReader args(ctx, node);
  if (dim < 0) dim = hsplit_dim(args);
  PT2ONNX_CHECK(dim < args.rank_of("self"), ErrorCode::kUnsupported, "a split along a dim the tensor lacks");
  if (args.has("sections")) return split_sections(ctx, args, dim, args.int_value("sections"));
  std::vector<std::string> bounds;
  for (int64_t i : args.ints("indices")) bounds.push_back(ctx.const_i64(i));
  return slices_between(ctx, args.tensor("self"), dim, bounds);
}
RuleResult aten_hsplit(EmitContext& ctx, const ir::Node& node) { return along(ctx, node, -1); }
RuleResult aten_vsplit(EmitContext& ctx, const ir::Node& node) { return along(ctx, node, 0); }
RuleResult aten_dsplit(EmitContext& ctx, const ir::Node& node) { return along(ctx, node, 2); }

// kron(Tensor self, Tensor other) -> Tensor: both padded to one rank r with leading ones, a as
// [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...], then merged to [a0*b0, a1*b1, ...].
RuleResult aten_kron(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.out_dtype();
  const int64_t ra = args.rank_of("self"), rb = args.rank_of("other"), r = std::max(ra, rb);
  std::string a = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  std::string b = cast_if_needed(ctx, args.tensor("other"), args.dtype_of("other"), type);
  if (r == 0) return emitted(ctx, emit_in(ctx, "Mul", {a, b}, type));
  if (ra < r) a = ctx.unsqueeze(a, iota(r - ra));
  if (rb < r) b = ctx.unsqueeze(b, iota(r - rb));
  std::vector<int64_t> odd, even;
  for (int64_t i = 0; i < r; ++i) {
    odd.push_back(2 * i + 1);
    even.push_back(2 * i);
  }
  const std::string product = emit_in(ctx, "Mul", {ctx.unsqueeze(a, odd), ctx.unsqueeze(b, even)}, type);
  return emitted(ctx, ctx.reshape(product, ctx.emit("Mul", {ctx.shape_of(a), ctx.shape_of(b)})));
}

// ---- rotations, diagonals, index tables -------------------------------------------------------

// rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor: k quarter turns from dims[0] towards
// dims[1]: one turn flips dims[1] then swaps the two, three flip dims[0] then swap.

// A bool [m, m] mask of the k-th diagonal (m a 0-D int64 value).
std::string diagonal_mask(EmitContext& ctx, const std::string& m, int64_t k) {
  const std::string square = ctx.concat({ctx.unsqueeze(m, {0}), ctx.unsqueeze(m, {0})}, 0);
  const std::string zeros = ctx.emit("ConstantOfShape", {square});  // float zeros
  return ctx.cast(ctx.emit("EyeLike", {zeros}, {Attr("k", k)}), DType::kBool);
}

// `v` ([..., n]) on the k-th diagonal of [..., m, m] zeros, m = n + |k|: v padded by |k| at the end of
// its last axis is read along rows (k >= 0) or columns (k < 0).
std::string embed_diagonal(EmitContext& ctx, const std::string& v, int64_t rank, int64_t k, DType type) {
  const int64_t pad = std::abs(k);
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
  pads.back() = pad;
  const std::string padded = pad ? ctx.emit("Pad", {v, ctx.const_i64s(pads)}) : v;
  const std::string m = ctx.dim_of(padded, rank - 1);
  const std::string along = ctx.unsqueeze(padded, {k >= 0 ? rank : rank - 1});
  const std::string mask = diagonal_mask(ctx, m, k);
  return emit_where(ctx, mask, along, ctx.const_scalar(0, type), type);
}

// diag(Tensor self, int diagonal=0) -> Tensor: a 1-D tensor onto the diagonal of a square matrix;
// a matrix's diagonal as a 1-D tensor (the masked matrix summed along rows or columns, then cut to
// the diagonal's length max(0, min(r, c - k)) or max(0, min(r + k, c))).
RuleResult aten_diag(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self"), k = args.int_or("diagonal", 0);
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(rank == 1 || rank == 2, ErrorCode::kUnsupported, "diag of a tensor of rank " + std::to_string(rank));
  const std::string x = args.tensor("self");
  if (rank == 1) return emitted(ctx, embed_diagonal(ctx, x, 1, k, type));
  const std::string mask = ctx.cast(ctx.emit("EyeLike", {ctx.cast(x, DType::kFloat32)}, {Attr("k", k)}), DType::kBool);
  const std::string on = emit_where(ctx, mask, x, ctx.const_scalar(0, type), type);
  const std::string r = ctx.dim_of(x, 0), c = ctx.dim_of(x, 1);
  const std::string shift = ctx.const_i64(std::abs(k));
  const std::string length = k >= 0 ? ctx.emit("Min", {r, ctx.emit("Sub", {c, shift})}) : ctx.emit("Min", {ctx.emit("Sub", {r, shift}), c});
  const std::string end = ctx.unsqueeze(ctx.emit("Max", {length, ctx.const_i64(0)}), {0});
  const std::string sums = reduce_in(ctx, "ReduceSum", on, type, std::vector<int64_t>{k >= 0 ? 1 : 0}, false);
  return emitted(ctx, ctx.emit("Slice", {sums, ctx.const_i64s({0}), end, ctx.const_i64s({0})}));
}

// diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor: the matrices built in
// the result's last two dims (rows, then columns), then moved to dim1 (rows) and dim2 (columns).
RuleResult aten_diag_embed(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank >= 1, ErrorCode::kUnsupported, "diag_embed of a 0-d tensor");
  const int64_t dim1 = normalize_dim(args.int_or("dim1", -2), rank + 1), dim2 = normalize_dim(args.int_or("dim2", -1), rank + 1);
  PT2ONNX_CHECK(dim1 != dim2, ErrorCode::kUnsupported, "diag_embed with dim1 equal to dim2");
  const std::string embedded = embed_diagonal(ctx, args.tensor("self"), rank, args.int_or("offset", 0), args.dtype_of("self"));
  if (dim1 == rank - 1 && dim2 == rank) return emitted(ctx, embedded);
  std::vector<int64_t> perm(static_cast<size_t>(rank + 1), -1);
  perm[static_cast<size_t>(dim1)] = rank - 1;
  perm[static_cast<size_t>(dim2)] = rank;
  int64_t next = 0;
  for (int64_t& p : perm)
    if (p < 0) p = next++;
  return emitted(ctx, ctx.transpose(embedded, perm));
}

// vander(Tensor x, int? N=None, bool increasing=False) -> Tensor: columns x^(N-1) ... x^0 (or rising)
RuleResult aten_vander(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.out_dtype();
  const std::string x = cast_if_needed(ctx, args.tensor("x"), args.dtype_of("x"), type);
  const std::string n = args.has("N") ? args.int_value("N") : ctx.size_of(args.tensor_fx("x"), 0);
  const bool increasing = args.bool_or("increasing", false);
  std::string powers = increasing ? ctx.emit("Range", {ctx.const_i64(0), n, ctx.const_i64(1)})
                                  : ctx.emit("Range", {ctx.emit("Sub", {n, ctx.const_i64(1)}), ctx.const_i64(-1), ctx.const_i64(-1)});
  return emitted(ctx, ctx.emit("Pow", {ctx.unsqueeze(x, {1}), cast_if_needed(ctx, powers, DType::kInt64, type)}));
}

// tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=long, ...) -> Tensor; triu_indices:
// the [2, n] coordinates of the lower (upper) triangle in row-major order, a constant.
RuleResult triangle_indices(EmitContext& ctx, const ir::Node& node, bool upper) {
  ArgReader args(ctx, node);
  const int64_t rows = args.get_int("row"), cols = args.get_int("col"), offset = args.int_or("offset", 0);
  std::vector<int64_t> r, c;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (upper ? j - i >= offset : j - i <= offset) {
        r.push_back(i);
        c.push_back(j);
      }
  const auto n = static_cast<int64_t>(r.size());
  r.insert(r.end(), c.begin(), c.end());
  const std::string table = ctx.reshape(ctx.const_i64s(r), ctx.const_i64s({2, n}));
  return emitted(ctx, cast_if_needed(ctx, table, DType::kInt64, args.out_dtype()));
}
RuleResult aten_tril_indices(EmitContext& ctx, const ir::Node& node) { return triangle_indices(ctx, node, false); }
RuleResult aten_triu_indices(EmitContext& ctx, const ir::Node& node) { return triangle_indices(ctx, node, true); }

// channel_shuffle(Tensor self, SymInt groups) -> Tensor: [N, g, C/g, *] with the two group axes swapped
RuleResult aten_channel_shuffle(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank >= 3, ErrorCode::kUnsupported, "channel_shuffle of a tensor of rank below 3");
  const std::string x = args.tensor("self");
  const std::string groups = ctx.unsqueeze(args.int_value("groups"), {0});
  const std::string per_group = ctx.emit("Div", {ctx.shape_slice(x, 1, 2), groups});
  const std::string split = ctx.reshape(x, ctx.concat({ctx.shape_slice(x, 0, 1), groups, per_group, ctx.shape_slice(x, 2, rank)}, 0));
  std::vector<int64_t> perm = iota(rank + 1);
  std::swap(perm[1], perm[2]);
  return emitted(ctx, ctx.reshape(ctx.transpose(split, perm), ctx.shape_of(x)));
}

// masked_select(Tensor self, Tensor mask) -> Tensor: the broadcast operands flattened, then Compress
RuleResult aten_masked_select(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string mask = cast_if_needed(ctx, args.tensor("mask"), args.dtype_of("mask"), DType::kBool);
  const std::string x = emit_where(ctx, mask, args.tensor("self"), args.tensor("self"), args.dtype_of("self"));  // self, broadcast
  const std::string flat_mask = ctx.reshape(ctx.emit("Expand", {mask, ctx.shape_of(x)}), ctx.const_i64s({-1}));
  return emitted(ctx, ctx.emit("Compress", {ctx.reshape(x, ctx.const_i64s({-1})), flat_mask}, {Attr("axis", 0)}));
}

// take(Tensor self, Tensor index) -> Tensor: the flattened self gathered at index (negative
// indices count from the end, as Gather's do).
RuleResult aten_take(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string index = cast_if_needed(ctx, args.tensor("index"), args.dtype_of("index"), DType::kInt64);
  return emitted(ctx, ctx.emit("Gather", {ctx.reshape(args.tensor("self"), ctx.const_i64s({-1})), index}, {Attr("axis", 0)}));
}

// index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor: source's
// slices along dim added into self at index, as ScatterElements(add) with the index spread over
// source's shape. A 0-d self (and source) is one element along dim 0.
RuleResult aten_index_add(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const bool scalar = args.rank_of("self") == 0;
  const int64_t rank = std::max<int64_t>(args.rank_of("self"), 1);
  const int64_t dim = scalar ? 0 : normalize_dim(args.get_int("dim"), rank);
  std::string self = args.tensor("self");
  std::string source = cast_if_needed(ctx, args.tensor("source"), args.dtype_of("source"), type);
  if (args.has("alpha")) source = emit_in(ctx, "Mul", {source, args.scalar("alpha", type)}, type);
  if (scalar) self = ctx.unsqueeze(self, {0});
  if (args.rank_of("source") == 0) source = ctx.unsqueeze(source, {0});
  std::vector<int64_t> along(static_cast<size_t>(rank), 1);
  along[static_cast<size_t>(dim)] = -1;
  const std::string index = ctx.reshape(cast_if_needed(ctx, args.tensor("index"), args.dtype_of("index"), DType::kInt64), ctx.const_i64s(along));
  const std::string spread = ctx.emit("Expand", {index, ctx.shape_of(source)});
  const std::string out = emit_scatter(ctx, "ScatterElements", {self, spread, source}, type, {Attr("axis", dim), Attr("reduction", "add")});
  return emitted(ctx, scalar ? ctx.squeeze(out, {0}) : out);
}

// msort(Tensor self) -> Tensor: the values sorted along dim 0 (TopK of every element, ascending).
RuleResult aten_msort(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (args.rank_of("self") == 0) return emitted(ctx, args.tensor("self"));
  const std::string k = ctx.unsqueeze(ctx.size_of(args.tensor_fx("self"), 0), {0});
  return emitted(ctx, emit_in(ctx, "TopK", {args.tensor("self"), k}, args.dtype_of("self"),
                              {Attr("axis", int64_t{0}), Attr("largest", int64_t{0}), Attr("sorted", int64_t{1})}, 2)[0]);
}

// block_diag(Tensor[] tensors) -> Tensor: each operand (0-d as 1x1, 1-d as one row) padded with
// zeros to the result's width at its column offset, the rows concatenated. Static shapes only.
RuleResult aten_block_diag(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto* list = std::get_if<ir::TensorListArg>(&args.arg("tensors"));
  PT2ONNX_CHECK(list != nullptr && !list->names.empty(), ErrorCode::kUnsupported, "block_diag of something other than a tensor list");
  const DType type = args.out_dtype();
  const std::vector<std::string> values = args.tensors("tensors");
  std::vector<std::string> blocks;
  std::vector<int64_t> cols;
  for (size_t i = 0; i < values.size(); ++i) {
    const ir::TensorMeta* meta = ctx.meta(list->names[i]);
    PT2ONNX_CHECK(meta != nullptr && meta->sizes.size() <= 2, ErrorCode::kUnsupported, "block_diag of a tensor of rank above 2");
    std::vector<int64_t> shape;
    for (const auto& d : meta->sizes) {
      PT2ONNX_CHECK(d.is_static(), ErrorCode::kUnsupported, "block_diag with symbolic sizes");
      shape.push_back(d.as_int());
    }
    while (shape.size() < 2) shape.insert(shape.begin(), 1);
    blocks.push_back(ctx.reshape(cast_if_needed(ctx, values[i], meta->dtype, type), ctx.const_i64s(shape)));
    cols.push_back(shape[1]);
  }
  int64_t width = 0;
  for (int64_t c : cols) width += c;
  int64_t offset = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    blocks[i] = ctx.emit("Pad", {blocks[i], ctx.const_i64s({0, offset, 0, width - offset - cols[i]})});
    offset += cols[i];
  }
  return emitted(ctx, ctx.concat(blocks, 0));
}

// pad_sequence(Tensor[] sequences, bool batch_first=False, float padding_value=0., str
// padding_side="right") -> Tensor: each sequence padded along dim 0 to the longest (after its
// items, or before them for "left"), stacked at dim 1 (dim 0 when batch_first).
RuleResult aten_pad_sequence(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<std::string> sequences = args.tensors("sequences");
  const ir::TensorMeta* out = args.out_meta();
  PT2ONNX_CHECK(out != nullptr && !sequences.empty(), ErrorCode::kUnsupported, "pad_sequence without sequences or result meta");
  const auto rank = static_cast<int64_t>(out->sizes.size()) - 1;  // of each sequence
  const bool batch_first = args.bool_or("batch_first", false), left = args.string_or("padding_side", "right") == "left";
  std::vector<std::string> lengths;
  for (const std::string& s : sequences) lengths.push_back(ctx.dim_of(s, 0));
  const std::string longest = lengths.size() == 1 ? lengths.front() : ctx.emit("Max", lengths);
  const std::string value = ctx.const_scalar(args.float_or("padding_value", 0), out->dtype);
  const std::string zeros = ctx.const_i64s(std::vector<int64_t>(static_cast<size_t>(rank - 1), 0));
  const int64_t stack_axis = batch_first ? 0 : 1;
  std::vector<std::string> padded;
  for (size_t i = 0; i < sequences.size(); ++i) {
    const std::string extra = ctx.unsqueeze(ctx.emit("Sub", {longest, lengths[i]}), {0}), none = ctx.const_i64s({0});
    const std::string pads = rank == 1 ? ctx.concat({left ? extra : none, left ? none : extra}, 0)
                                       : ctx.concat({left ? extra : none, zeros, left ? none : extra, zeros}, 0);
    padded.push_back(ctx.unsqueeze(ctx.emit("Pad", {sequences[i], pads, value}), {stack_axis}));
  }
  return emitted(ctx, padded.size() == 1 ? padded.front() : ctx.concat(padded, stack_axis));
}

}  // namespace

void register_composite_shape_rules(RuleTable& t) {
  t.add("aten.tensor_split.sections", aten_tensor_split_sections);
  t.add("aten.tensor_split.indices", aten_tensor_split_indices);
  t.add("aten.tensor_split.tensor_indices_or_sections", aten_tensor_split_tensor);
  t.add("aten.hsplit.int", aten_hsplit);
  t.add("aten.hsplit.array", aten_hsplit);
  t.add("aten.vsplit.int", aten_vsplit);
  t.add("aten.vsplit.array", aten_vsplit);
  t.add("aten.dsplit.int", aten_dsplit);
  t.add("aten.dsplit.array", aten_dsplit);
  t.add("aten.kron.default", aten_kron);
  t.add("aten.diag.default", aten_diag);
  t.add("aten.diag_embed.default", aten_diag_embed, "only into the result's last two dims");
  t.add("aten.vander.default", aten_vander);
  t.add("aten.tril_indices.default", aten_tril_indices);
  t.add("aten.triu_indices.default", aten_triu_indices);
  t.add("aten.channel_shuffle.default", aten_channel_shuffle);
  t.add("aten.native_channel_shuffle.default", aten_channel_shuffle);
  t.add("aten.masked_select.default", aten_masked_select);
  t.add("aten.take.default", aten_take);
  t.add("aten.index_add.default", aten_index_add);
  t.add("aten.msort.default", aten_msort);
  t.add("aten.block_diag.default", aten_block_diag);
  t.add("aten.pad_sequence.default", aten_pad_sequence);
}

}  // namespace pt2onnx::translate
