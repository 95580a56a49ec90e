// Composite shape ops that the default IR keeps and core IR decomposes (torch's _refs, done here):
// swapaxes/moveaxis/movedim as one Transpose, meshgrid and cartesian_prod as Expands,
// tensor_split/hsplit/vsplit/dsplit as Split or Slices, hstack/vstack/dstack/column_stack as
// Concat of atleast_Nd operands, flipud/fliplr, kron. Each expands straight into ONNX ops: an
// aten-to-aten rewrite would need shapes and dtypes for every intermediate value, which the program
// only records for the values torch traced.
#include <algorithm>
#include <limits>

#include "common/error.h"
#include "translate/register_all.h"
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

RuleResult permuted(EmitContext& ctx, const std::string& x, const std::vector<int64_t>& perm) {
  if (perm == iota(static_cast<int64_t>(perm.size()))) return emitted(ctx, x);
  return emitted(ctx, ctx.transpose(x, perm));
}

// swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a); swapdims(self, int dim0, int dim1)
RuleResult swap(EmitContext& ctx, const ir::Node& node, const char* first, const char* second) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  std::vector<int64_t> perm = iota(rank);
  if (rank > 0) std::swap(perm[normalize_dim(args.get_int(first), rank)], perm[normalize_dim(args.get_int(second), rank)]);
  return permuted(ctx, args.tensor("self"), perm);
}
RuleResult aten_swapaxes(EmitContext& ctx, const ir::Node& node) { return swap(ctx, node, "axis0", "axis1"); }
RuleResult aten_swapdims(EmitContext& ctx, const ir::Node& node) { return swap(ctx, node, "dim0", "dim1"); }

// movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a); movedim.int,
// moveaxis.intlist, moveaxis.int: the source dims land at the destinations, the others keep
// their order in the places left.
RuleResult aten_movedim(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  if (rank == 0) return emitted(ctx, args.tensor("self"));
  const std::vector<int64_t> source = normalize_dims(args.ints("source"), rank);
  const std::vector<int64_t> destination = normalize_dims(args.ints("destination"), rank);
  PT2ONNX_CHECK(source.size() == destination.size(), ErrorCode::kUnsupported, "movedim with different numbers of source and destination dims");
  std::vector<int64_t> perm(static_cast<size_t>(rank), -1);
  for (size_t k = 0; k < source.size(); ++k) perm[static_cast<size_t>(destination[k])] = source[k];
  auto next = perm.begin();
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(source.begin(), source.end(), d) != source.end()) continue;
    next = std::find(next, perm.end(), -1);
    *next = d;
  }
  return permuted(ctx, args.tensor("self"), perm);
}

// The 1-D sizes of each tensor of a list (a 0-d one counts as one element), and the values.
struct ListOperands {
  std::vector<std::string> values, sizes;
  std::vector<int64_t> ranks;
};
ListOperands list_operands(EmitContext& ctx, const ArgReader& args, DType type) {
  const auto* list = std::get_if<ir::TensorListArg>(&args.arg("tensors"));
  PT2ONNX_CHECK(list != nullptr && !list->names.empty(), ErrorCode::kUnsupported, "an empty or non-tensor list");
  ListOperands out;
  for (const std::string& fx : list->names) {
    const ir::TensorMeta* meta = ctx.meta(fx);
    PT2ONNX_CHECK(meta != nullptr, ErrorCode::kUnsupported, "list tensor " + fx + " without tensor_values entry");
    const auto rank = static_cast<int64_t>(meta->sizes.size());
    out.values.push_back(cast_if_needed(ctx, ctx.value_of(fx), meta->dtype, type));
    out.sizes.push_back(rank == 0 ? ctx.const_i64s({1}) : sizes_value(ctx, fx, iota(rank)));
    out.ranks.push_back(rank);
  }
  return out;
}

// Each 1-D (or 0-d) operand placed along axis `axes[i]` of an n-d grid and expanded to it.
std::vector<std::string> grid(EmitContext& ctx, const ListOperands& in, const std::vector<int64_t>& axes) {
  const auto n = static_cast<int64_t>(in.values.size());
  std::vector<std::string> shape_parts(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) shape_parts[static_cast<size_t>(axes[static_cast<size_t>(i)])] = in.sizes[static_cast<size_t>(i)];
  const std::string shape = ctx.concat(shape_parts, 0);
  std::vector<std::string> out;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> placed(static_cast<size_t>(n), 1);
    placed[static_cast<size_t>(axes[static_cast<size_t>(i)])] = -1;
    out.push_back(ctx.emit("Expand", {ctx.reshape(in.values[static_cast<size_t>(i)], ctx.const_i64s(placed)), shape}));
  }
  return out;
}

// meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]; meshgrid.default ("ij").
// "xy" swaps the first two grid axes (Cartesian indexing).
RuleResult aten_meshgrid(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const ListOperands in = list_operands(ctx, args, args.out_dtype());
  const std::string indexing = args.string_or("indexing", "ij");
  PT2ONNX_CHECK(indexing == "ij" || indexing == "xy", ErrorCode::kUnsupported, "meshgrid indexing '" + indexing + "'");
  std::vector<int64_t> axes = iota(static_cast<int64_t>(in.values.size()));
  if (indexing == "xy" && axes.size() >= 2) std::swap(axes[0], axes[1]);
  const std::vector<std::string> out = grid(ctx, in, axes);
  for (size_t i = 0; i < out.size(); ++i)
    if (ctx.output_used(i)) ctx.set_output(i, out[i]);
  return RuleResult::kEmitted;
}

// cartesian_prod(Tensor[] tensors) -> Tensor: the ij grid's columns, [prod(n_i), k]
RuleResult aten_cartesian_prod(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const ListOperands in = list_operands(ctx, args, args.out_dtype());
  if (in.values.size() == 1) return emitted(ctx, ctx.reshape(in.values.front(), ctx.const_i64s({-1})));
  std::vector<std::string> columns;
  for (const std::string& g : grid(ctx, in, iota(static_cast<int64_t>(in.values.size()))))
    columns.push_back(ctx.reshape(g, ctx.const_i64s({-1, 1})));
  return emitted(ctx, ctx.concat(columns, 1));
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

// ---- stacking ----------------------------------------------------------------------------------

// `x` of rank `rank` reshaped as torch's atleast_{n}d does: [] -> [1]*n, [a] -> [1, a] (n = 2) or
// [1, a, 1] (n = 3), [a, b] -> [a, b, 1] (n = 3).
std::string at_least(EmitContext& ctx, const std::string& x, int64_t rank, int64_t n) {
  if (rank >= n) return x;
  if (rank == 0) return ctx.reshape(x, ctx.const_i64s(std::vector<int64_t>(static_cast<size_t>(n), 1)));
  if (rank == 1) return ctx.unsqueeze(x, n == 2 ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 2});
  return ctx.unsqueeze(x, {2});
}

// hstack(Tensor[] tensors) -> Tensor: cat along 1 (0 when the operands are 1-D); vstack: along
// 0 of atleast_2d; dstack: along 2 of atleast_3d; column_stack: 0-d and 1-D operands as columns.
RuleResult stacked(EmitContext& ctx, const ir::Node& node, int64_t n, int64_t dim) {
  ArgReader args(ctx, node);
  const ListOperands in = list_operands(ctx, args, args.out_dtype());
  std::vector<std::string> parts;
  for (size_t i = 0; i < in.values.size(); ++i) parts.push_back(at_least(ctx, in.values[i], in.ranks[i], n));
  if (dim < 0) dim = std::max<int64_t>(in.ranks.front(), 1) == 1 ? 0 : 1;
  return emitted(ctx, parts.size() == 1 ? parts.front() : ctx.concat(parts, dim));
}
RuleResult aten_hstack(EmitContext& ctx, const ir::Node& node) { return stacked(ctx, node, 1, -1); }
RuleResult aten_vstack(EmitContext& ctx, const ir::Node& node) { return stacked(ctx, node, 2, 0); }
RuleResult aten_dstack(EmitContext& ctx, const ir::Node& node) { return stacked(ctx, node, 3, 2); }
RuleResult aten_column_stack(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const ListOperands in = list_operands(ctx, args, args.out_dtype());
  std::vector<std::string> parts;
  for (size_t i = 0; i < in.values.size(); ++i)
    parts.push_back(in.ranks[i] <= 1 ? ctx.reshape(in.values[i], ctx.const_i64s({-1, 1})) : in.values[i]);
  return emitted(ctx, parts.size() == 1 ? parts.front() : ctx.concat(parts, 1));
}

// flipud(Tensor self) -> Tensor (dim 0 reversed); fliplr (dim 1)
RuleResult flip_dim(EmitContext& ctx, const ir::Node& node, int64_t dim) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.rank_of("self") > dim, ErrorCode::kUnsupported, "flip of a dim the tensor lacks");
  return emitted(ctx, ctx.emit("Slice", {args.tensor("self"), ctx.const_i64s({-1}), ctx.const_i64s({std::numeric_limits<int64_t>::min()}),
                                         ctx.const_i64s({dim}), ctx.const_i64s({-1})}));
}
RuleResult aten_flipud(EmitContext& ctx, const ir::Node& node) { return flip_dim(ctx, node, 0); }
RuleResult aten_fliplr(EmitContext& ctx, const ir::Node& node) { return flip_dim(ctx, node, 1); }

// kron(Tensor self, Tensor other) -> Tensor: both padded to one rank r with leading ones, a as
// [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...], then merged to [a0*b0, a1*b1, ...].
RuleResult aten_kron(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.out_dtype();
  const int64_t ra = args.rank_of("self"), rb = args.rank_of("other"), r = std::max(ra, rb);
  std::string a = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  std::string b = cast_if_needed(ctx, args.tensor("other"), args.dtype_of("other"), type);
  if (r == 0) return emitted(ctx, ctx.emit("Mul", {a, b}));
  if (ra < r) a = ctx.unsqueeze(a, iota(r - ra));
  if (rb < r) b = ctx.unsqueeze(b, iota(r - rb));
  std::vector<int64_t> odd, even;
  for (int64_t i = 0; i < r; ++i) {
    odd.push_back(2 * i + 1);
    even.push_back(2 * i);
  }
  const std::string product = ctx.emit("Mul", {ctx.unsqueeze(a, odd), ctx.unsqueeze(b, even)});
  return emitted(ctx, ctx.reshape(product, ctx.emit("Mul", {ctx.shape_of(a), ctx.shape_of(b)})));
}

}  // namespace

void register_composite_shape_rules(RuleTable& t) {
  t.add("aten.swapaxes.default", 1, aten_swapaxes);
  t.add("aten.swapdims.default", 1, aten_swapdims);
  t.add("aten.movedim.intlist", 1, aten_movedim);
  t.add("aten.movedim.int", 1, aten_movedim);
  t.add("aten.moveaxis.intlist", 1, aten_movedim);
  t.add("aten.moveaxis.int", 1, aten_movedim);
  t.add("aten.meshgrid.indexing", 1, aten_meshgrid);
  t.add("aten.meshgrid.default", 1, aten_meshgrid);
  t.add("aten.cartesian_prod.default", 1, aten_cartesian_prod);
  t.add("aten.tensor_split.sections", 13, aten_tensor_split_sections);  // Split takes its sizes as an input from 13
  t.add("aten.tensor_split.indices", 1, aten_tensor_split_indices);
  t.add("aten.hsplit.int", 13, aten_hsplit);
  t.add("aten.hsplit.array", 1, aten_hsplit);
  t.add("aten.vsplit.int", 13, aten_vsplit);
  t.add("aten.vsplit.array", 1, aten_vsplit);
  t.add("aten.dsplit.int", 13, aten_dsplit);
  t.add("aten.dsplit.array", 1, aten_dsplit);
  t.add("aten.hstack.default", 1, aten_hstack);
  t.add("aten.vstack.default", 1, aten_vstack);
  t.add("aten.row_stack.default", 1, aten_vstack);
  t.add("aten.dstack.default", 1, aten_dstack);
  t.add("aten.column_stack.default", 1, aten_column_stack);
  t.add("aten.flipud.default", 1, aten_flipud);
  t.add("aten.fliplr.default", 1, aten_fliplr);
  t.add("aten.kron.default", 1, aten_kron);
}

}  // namespace pt2onnx::translate
