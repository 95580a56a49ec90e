// Shape composites the default IR keeps, written as the aten ops core IR would have (torch's
// _refs): swapaxes/swapdims/movedim/moveaxis as permute, flipud/fliplr/rot90 as flip and permute,
// atleast_1d/2d/3d as unsqueeze, hstack/vstack/row_stack/dstack/column_stack as cat, meshgrid
// and cartesian_prod as view and expand, outer/ger as a broadcast mul.
#include <algorithm>
#include <numeric>

#include "common/error.h"
#include "translate/decompositions/aten_builder.h"
#include "translate/decompositions/register_decompositions.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t{0});
  return v;
}

RuleResult result(AtenBuilder& b, const std::string& value) {
  b.set_output(0, value);
  return RuleResult::kEmitted;
}

RuleResult permuted(AtenBuilder& b, const std::string& x, const std::vector<int64_t>& perm) {
  return result(b, perm == iota(static_cast<int64_t>(perm.size())) ? x : b.permute(x, perm));
}

// swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a); swapdims(self, int dim0, int dim1)
RuleResult swap(AtenBuilder& b, const NodeArgs& args, const char* first, const char* second) {
  const int64_t rank = args.rank_of("self");
  std::vector<int64_t> perm = iota(rank);
  if (rank > 0) std::swap(perm[static_cast<size_t>(normalize_dim(args.get_int(first), rank))],
                          perm[static_cast<size_t>(normalize_dim(args.get_int(second), rank))]);
  return permuted(b, args.tensor_fx("self"), perm);
}
RuleResult swapaxes(AtenBuilder& b, const NodeArgs& args) { return swap(b, args, "axis0", "axis1"); }
RuleResult swapdims(AtenBuilder& b, const NodeArgs& args) { return swap(b, args, "dim0", "dim1"); }

// movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a); movedim.int,
// moveaxis.intlist, moveaxis.int: the source dims land at the destinations, the others keep
// their order in the places left.
RuleResult movedim(AtenBuilder& b, const NodeArgs& args) {
  const int64_t rank = args.rank_of("self");
  if (rank == 0) return result(b, args.tensor_fx("self"));
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
  return permuted(b, args.tensor_fx("self"), perm);
}

// flipud(Tensor self) -> Tensor (dim 0 reversed); fliplr (dim 1)
RuleResult flip_dim(AtenBuilder& b, const NodeArgs& args, int64_t dim) {
  PT2ONNX_CHECK(args.rank_of("self") > dim, ErrorCode::kUnsupported, "flip of a dim the tensor lacks");
  return result(b, b.flip(args.tensor_fx("self"), {dim}));
}
RuleResult flipud(AtenBuilder& b, const NodeArgs& args) { return flip_dim(b, args, 0); }
RuleResult fliplr(AtenBuilder& b, const NodeArgs& args) { return flip_dim(b, args, 1); }

// rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor: k quarter turns from dims[0] towards
// dims[1]: one turn flips dims[1] then swaps the two, three flip dims[0] then swap, two flip both.
RuleResult rot90(AtenBuilder& b, const NodeArgs& args) {
  const int64_t rank = args.rank_of("self");
  const std::vector<int64_t> dims = args.has("dims") ? normalize_dims(args.ints("dims"), rank) : std::vector<int64_t>{0, 1};
  PT2ONNX_CHECK(dims.size() == 2 && dims[0] != dims[1], ErrorCode::kUnsupported, "rot90 needs two different dims");
  const int64_t k = ((args.int_or("k", 1) % 4) + 4) % 4;
  const std::string& x = args.tensor_fx("self");
  if (k == 0) return result(b, x);
  if (k == 2) return result(b, b.flip(x, dims));
  std::vector<int64_t> perm = iota(rank);
  std::swap(perm[static_cast<size_t>(dims[0])], perm[static_cast<size_t>(dims[1])]);
  return result(b, b.permute(b.flip(x, {k == 1 ? dims[1] : dims[0]}), perm));
}

// `x` as torch's atleast_{n}d leaves it: [] -> [1]*n, [a] -> [1, a] (n = 2) or [1, a, 1] (n = 3),
// [a, b] -> [a, b, 1] (n = 3).
std::string at_least(AtenBuilder& b, const std::string& x, int64_t n) {
  const int64_t rank = b.rank(x);
  if (rank >= n) return x;
  if (rank == 0) return b.view(x, std::vector<Size>(static_cast<size_t>(n), AtenBuilder::constant(1)));
  if (rank == 1) return n == 2 ? b.unsqueeze(x, 0) : b.unsqueeze(b.unsqueeze(x, 0), 2);
  return b.unsqueeze(x, 2);
}

// atleast_1d(Tensor self) -> Tensor, and atleast_1d.Sequence(Tensor[] tensors) -> Tensor[]; 2d, 3d alike.
RuleResult atleast(AtenBuilder& b, const NodeArgs& args, int64_t n) {
  if (args.is_tensor("self")) return result(b, at_least(b, args.tensor_fx("self"), n));
  const std::vector<std::string>& list = args.tensor_list_fx("tensors");
  PT2ONNX_CHECK(list.size() == b.output_count(), ErrorCode::kUnsupported, "atleast_nd with a result list of another length");
  for (size_t i = 0; i < list.size(); ++i) b.set_output(i, at_least(b, list[i], n));
  return RuleResult::kEmitted;
}
RuleResult atleast_1d(AtenBuilder& b, const NodeArgs& args) { return atleast(b, args, 1); }
RuleResult atleast_2d(AtenBuilder& b, const NodeArgs& args) { return atleast(b, args, 2); }
RuleResult atleast_3d(AtenBuilder& b, const NodeArgs& args) { return atleast(b, args, 3); }

RuleResult concatenated(AtenBuilder& b, const std::vector<std::string>& parts, int64_t dim) {
  return result(b, parts.size() == 1 ? parts.front() : b.cat(parts, dim));
}

// hstack(Tensor[] tensors) -> Tensor: cat along 1 (0 when the operands are 1-D); vstack (row_stack):
// along 0 of atleast_2d; dstack: along 2 of atleast_3d.
RuleResult stacked(AtenBuilder& b, const NodeArgs& args, int64_t n, int64_t dim) {
  const std::vector<std::string>& list = args.tensor_list_fx("tensors");
  PT2ONNX_CHECK(!list.empty(), ErrorCode::kUnsupported, "a stack of no tensors");
  std::vector<std::string> parts;
  for (const std::string& x : list) parts.push_back(at_least(b, x, n));
  if (dim < 0) dim = std::max<int64_t>(b.rank(list.front()), 1) == 1 ? 0 : 1;
  return concatenated(b, parts, dim);
}
RuleResult hstack(AtenBuilder& b, const NodeArgs& args) { return stacked(b, args, 1, -1); }
RuleResult vstack(AtenBuilder& b, const NodeArgs& args) { return stacked(b, args, 2, 0); }
RuleResult dstack(AtenBuilder& b, const NodeArgs& args) { return stacked(b, args, 3, 2); }

// column_stack(Tensor[] tensors) -> Tensor: 0-d and 1-D operands become columns, then cat along 1.
RuleResult column_stack(AtenBuilder& b, const NodeArgs& args) {
  std::vector<std::string> parts;
  for (const std::string& x : args.tensor_list_fx("tensors"))
    parts.push_back(b.rank(x) == 0 ? b.view(x, {AtenBuilder::constant(1), AtenBuilder::constant(1)})
                    : b.rank(x) == 1 ? b.unsqueeze(x, 1)
                                     : x);
  PT2ONNX_CHECK(!parts.empty(), ErrorCode::kUnsupported, "a column_stack of no tensors");
  return concatenated(b, parts, 1);
}

// Each 1-D (or 0-d) operand placed along axis axes[i] of the n-d grid of their lengths and
// expanded to it.
std::vector<std::string> grid(AtenBuilder& b, const std::vector<std::string>& operands, const std::vector<int64_t>& axes) {
  const size_t n = operands.size();
  std::vector<Size> shape(n, AtenBuilder::constant(1));
  for (size_t i = 0; i < n; ++i) {
    PT2ONNX_CHECK(b.rank(operands[i]) <= 1, ErrorCode::kUnsupported, "meshgrid of a tensor of rank above 1");
    if (b.rank(operands[i]) == 1) shape[static_cast<size_t>(axes[i])] = b.size(operands[i], 0);
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Size> placed(n, AtenBuilder::constant(1));
    placed[static_cast<size_t>(axes[i])] = AtenBuilder::constant(-1);
    out.push_back(b.expand(b.view(operands[i], placed), shape));
  }
  return out;
}

// meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]; meshgrid.default ("ij").
// "xy" swaps the first two grid axes (Cartesian indexing).
RuleResult meshgrid(AtenBuilder& b, const NodeArgs& args) {
  const std::vector<std::string>& list = args.tensor_list_fx("tensors");
  const std::string indexing = args.string_or("indexing", "ij");
  PT2ONNX_CHECK(indexing == "ij" || indexing == "xy", ErrorCode::kUnsupported, "meshgrid indexing '" + indexing + "'");
  PT2ONNX_CHECK(list.size() == b.output_count(), ErrorCode::kUnsupported, "meshgrid with a result list of another length");
  std::vector<int64_t> axes = iota(static_cast<int64_t>(list.size()));
  if (indexing == "xy" && axes.size() >= 2) std::swap(axes[0], axes[1]);
  const std::vector<std::string> out = grid(b, list, axes);
  for (size_t i = 0; i < out.size(); ++i) b.set_output(i, out[i]);
  return RuleResult::kEmitted;
}

// cartesian_prod(Tensor[] tensors) -> Tensor: the ij grid's columns, [prod(n_i), k]; one tensor
// is itself.
RuleResult cartesian_prod(AtenBuilder& b, const NodeArgs& args) {
  const std::vector<std::string>& list = args.tensor_list_fx("tensors");
  PT2ONNX_CHECK(!list.empty(), ErrorCode::kUnsupported, "a cartesian_prod of no tensors");
  if (list.size() == 1) return result(b, b.rank(list.front()) == 1 ? list.front() : b.view(list.front(), {AtenBuilder::constant(-1)}));
  std::vector<std::string> columns;
  for (const std::string& g : grid(b, list, iota(static_cast<int64_t>(list.size()))))
    columns.push_back(b.view(g, {AtenBuilder::constant(-1), AtenBuilder::constant(1)}));
  return result(b, b.cat(columns, 1));
}

// outer(Tensor self, Tensor vec2) -> Tensor; ger: self as a column times vec2.
RuleResult outer(AtenBuilder& b, const NodeArgs& args) {
  return result(b, b.mul(b.unsqueeze(args.tensor_fx("self"), 1), args.tensor_fx("vec2")));
}

}  // namespace

void register_shape_decompositions(RuleTable& t) {
  t.add_decomposition("aten.swapaxes.default", swapaxes);
  t.add_decomposition("aten.swapdims.default", swapdims);
  for (const char* target : {"aten.movedim.intlist", "aten.movedim.int", "aten.moveaxis.intlist", "aten.moveaxis.int"})
    t.add_decomposition(target, movedim);
  t.add_decomposition("aten.flipud.default", flipud);
  t.add_decomposition("aten.fliplr.default", fliplr);
  t.add_decomposition("aten.rot90.default", rot90);
  t.add_decomposition("aten.atleast_1d.default", atleast_1d);
  t.add_decomposition("aten.atleast_2d.default", atleast_2d);
  t.add_decomposition("aten.atleast_3d.default", atleast_3d);
  t.add_decomposition("aten.atleast_1d.Sequence", atleast_1d);
  t.add_decomposition("aten.atleast_2d.Sequence", atleast_2d);
  t.add_decomposition("aten.atleast_3d.Sequence", atleast_3d);
  t.add_decomposition("aten.hstack.default", hstack);
  t.add_decomposition("aten.vstack.default", vstack);
  t.add_decomposition("aten.row_stack.default", vstack);
  t.add_decomposition("aten.dstack.default", dstack);
  t.add_decomposition("aten.column_stack.default", column_stack);
  t.add_decomposition("aten.meshgrid.default", meshgrid);
  t.add_decomposition("aten.meshgrid.indexing", meshgrid);
  t.add_decomposition("aten.cartesian_prod.default", cartesian_prod);
  t.add_decomposition("aten.outer.default", outer);
  t.add_decomposition("aten.ger.default", outer);
}

}  // namespace pt2onnx::translate
