// Indexing rules: embedding, index_select/gather/scatter, advanced indexing (index.Tensor), copy.
#include <algorithm>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/view_mutation.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False,
//           bool sparse=False) -> Tensor
RuleResult aten_embedding(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Gather", {args.tensor("weight"), args.tensor("indices")}, {Attr("axis", 0)}));
}

// index_select(Tensor self, int dim, Tensor index) -> Tensor
RuleResult aten_index_select(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  return emitted(ctx, ctx.emit("Gather", {args.tensor("self"), args.tensor("index")}, {Attr("axis", dim)}));
}

// gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
RuleResult aten_gather(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  return emitted(ctx, ctx.emit("GatherElements", {args.tensor("self"), args.tensor("index")}, {Attr("axis", dim)}));
}

// scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor; scatter.value(..., Scalar value)
RuleResult aten_scatter(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  const DType type = args.dtype_of("self");
  const std::string index = args.tensor("index");
  std::string updates;
  if (args.has("src")) {
    updates = cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), type);
  } else {
    updates = ctx.emit("Expand", {args.scalar("value", type), ctx.shape_of(index)});
  }
  return emitted(ctx, ctx.emit("ScatterElements", {args.tensor("self"), index, updates}, {Attr("axis", dim)}));
}

// scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
RuleResult aten_scatter_add(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  const std::string src = cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), args.dtype_of("self"));
  return emitted(ctx, ctx.emit("ScatterElements", {args.tensor("self"), args.tensor("index"), src},
                               {Attr("axis", dim), Attr("reduction", "add")}));
}

// The entries of an indices argument (Tensor?[] or Tensor[]): FX names, nullopt for None.
std::vector<std::optional<std::string>> index_list(const ArgReader& args) {
  const ir::Argument& a = args.arg("indices");
  if (const auto* list = std::get_if<ir::OptionalTensorListArg>(&a)) return list->names;
  const auto* plain = std::get_if<ir::TensorListArg>(&a);
  PT2ONNX_CHECK(plain != nullptr, ErrorCode::kUnsupported, "an indices argument that is not a tensor list");
  return {plain->names.begin(), plain->names.end()};
}

const ir::TensorMeta& index_meta(EmitContext& ctx, const std::string& fx) {
  const ir::TensorMeta* m = ctx.meta(fx);
  PT2ONNX_CHECK(m != nullptr, ErrorCode::kUnsupported, "index tensor " + fx + " without tensor_values entry");
  return *m;
}

// GatherND/ScatterND coordinates [..., k] of integer index tensors for dims `positions` of self:
// broadcast against each other (i + 0*j + ...), negative values wrapped. Sets `broadcast_rank`.
std::string index_coordinates(EmitContext& ctx, const ArgReader& args, const std::vector<std::optional<std::string>>& indices,
                              const std::vector<int64_t>& positions, size_t& broadcast_rank) {
  std::vector<std::string> values;
  broadcast_rank = 0;
  for (int64_t p : positions) {
    const std::string& fx = *indices[static_cast<size_t>(p)];
    const ir::TensorMeta& m = index_meta(ctx, fx);
    PT2ONNX_CHECK(is_integral(m.dtype), ErrorCode::kUnsupported, "indexing that mixes boolean and integer indices");
    broadcast_rank = std::max(broadcast_rank, m.sizes.size());
    values.push_back(cast_if_needed(ctx, ctx.value_of(fx), m.dtype, DType::kInt64));
  }
  std::string zeros = ctx.emit("Mul", {values.front(), ctx.const_i64(0)});
  for (size_t i = 1; i < values.size(); ++i) zeros = ctx.emit("Add", {zeros, ctx.emit("Mul", {values[i], ctx.const_i64(0)})});
  std::vector<std::string> coords;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string broadcast = values.size() == 1 ? values[i] : ctx.emit("Add", {values[i], zeros});
    const std::string size = ctx.size_of(args.tensor_fx("self"), positions[i]);
    const std::string negative = ctx.emit("Less", {broadcast, ctx.const_i64(0)});
    const std::string wrapped = ctx.emit("Where", {negative, ctx.emit("Add", {broadcast, size}), broadcast});
    coords.push_back(ctx.unsqueeze(wrapped, {-1}));
  }
  return ctx.concat(coords, -1);
}

// Coordinates [n, m] of the true elements of a bool mask over the leading m dims.
std::string mask_coordinates(EmitContext& ctx, const std::string& mask, DType mask_type) {
  return ctx.transpose(ctx.emit("NonZero", {cast_if_needed(ctx, mask, mask_type, DType::kBool)}), {1, 0});
}

std::vector<int64_t> present_positions(const std::vector<std::optional<std::string>>& indices) {
  std::vector<int64_t> positions;
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i]) positions.push_back(static_cast<int64_t>(i));
  PT2ONNX_CHECK(!positions.empty(), ErrorCode::kUnsupported, "indexing with no index tensor");
  return positions;
}

bool is_mask(EmitContext& ctx, const std::optional<std::string>& fx) {
  const DType t = index_meta(ctx, *fx).dtype;
  return t == DType::kBool || t == DType::kUInt8;
}

// index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
// One integer index: Gather on its dim. One bool mask on the leading dims: GatherND of NonZero.
// Several integer indices: they broadcast together, the indexed dims move to the front, GatherND
// picks; adjacent indices after leading full slices keep their place, as in torch.
RuleResult aten_index_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<std::optional<std::string>> indices = index_list(args);
  const std::vector<int64_t> positions = present_positions(indices);
  const int64_t rank = args.rank_of("self");
  const std::string x = args.tensor("self");

  if (is_mask(ctx, indices[static_cast<size_t>(positions.front())])) {
    PT2ONNX_CHECK(positions.size() == 1 && positions.front() == 0, ErrorCode::kUnsupported,
                  "boolean mask indexing is supported only as self[mask]");
    const std::string& fx = *indices.front();
    return emitted(ctx, ctx.emit("GatherND", {x, mask_coordinates(ctx, ctx.value_of(fx), index_meta(ctx, fx).dtype)}));
  }
  if (positions.size() == 1) {
    const std::string index = ctx.value_of(*indices[static_cast<size_t>(positions.front())]);
    return emitted(ctx, ctx.emit("Gather", {x, index}, {Attr("axis", positions.front())}));
  }

  size_t broadcast_rank = 0;
  const std::string coords = index_coordinates(ctx, args, indices, positions, broadcast_rank);
  // Indexed dims first, the rest after in order.
  std::vector<int64_t> perm = positions;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(positions.begin(), positions.end(), d) == positions.end()) perm.push_back(d);
  bool identity = true;
  for (int64_t d = 0; d < rank; ++d) identity = identity && perm[static_cast<size_t>(d)] == d;
  std::string result = ctx.emit("GatherND", {identity ? x : ctx.transpose(x, perm), coords});

  const bool adjacent = positions.back() - positions.front() + 1 == static_cast<int64_t>(positions.size());
  const int64_t lead = positions.front();
  if (adjacent && lead > 0) {
    // torch keeps adjacent indexed dims in place: [B..., lead dims, rest] -> [lead dims, B..., rest].
    const auto b = static_cast<int64_t>(broadcast_rank);
    const int64_t out_rank = b + rank - static_cast<int64_t>(positions.size());
    std::vector<int64_t> back;
    for (int64_t i = b; i < b + lead; ++i) back.push_back(i);
    for (int64_t i = 0; i < b; ++i) back.push_back(i);
    for (int64_t i = b + lead; i < out_rank; ++i) back.push_back(i);
    result = ctx.transpose(result, back);
  }
  return emitted(ctx, result);
}

// index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor; index_put_
// Leading integer indices or one leading bool mask: ScatterND of the broadcast values.
RuleResult aten_index_put(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<std::optional<std::string>> indices = index_list(args);
  const std::vector<int64_t> positions = present_positions(indices);
  for (size_t i = 0; i < positions.size(); ++i)
    PT2ONNX_CHECK(positions[i] == static_cast<int64_t>(i), ErrorCode::kUnsupported,
                  "index_put is supported with leading index tensors only");
  const std::string x = args.tensor("self");
  const int64_t rank = args.rank_of("self");
  std::string coords;
  int64_t indexed = static_cast<int64_t>(positions.size());
  if (is_mask(ctx, indices.front())) {
    PT2ONNX_CHECK(positions.size() == 1, ErrorCode::kUnsupported, "index_put with a mask and other indices");
    const ir::TensorMeta& m = index_meta(ctx, *indices.front());
    indexed = static_cast<int64_t>(m.sizes.size());
    coords = mask_coordinates(ctx, ctx.value_of(*indices.front()), m.dtype);
  } else {
    size_t broadcast_rank = 0;
    coords = index_coordinates(ctx, args, indices, positions, broadcast_rank);
  }
  // values broadcast to coords.shape[:-1] + self.shape[indexed:].
  const std::string coords_shape = ctx.shape_of(coords);
  const std::string lead = ctx.emit("Slice", {coords_shape, ctx.const_i64s({0}), ctx.const_i64s({-1})});
  const std::string update_shape = indexed < rank ? ctx.concat({lead, ctx.shape_slice(x, indexed, rank)}, 0) : lead;
  const std::string values = cast_if_needed(ctx, args.tensor("values"), args.dtype_of("values"), args.dtype_of("self"));
  const std::string updates = ctx.emit("Expand", {values, update_shape});
  std::vector<Attr> attrs;
  if (args.bool_or("accumulate", false)) attrs.emplace_back("reduction", "add");
  return emitted(ctx, ctx.emit("ScatterND", {x, coords, updates}, attrs));
}

// copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor: src broadcast to self's shape
// and cast to self's dtype
RuleResult aten_copy(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string src = cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), args.dtype_of("self"));
  return emitted(ctx, ctx.emit("Expand", {src, ctx.shape_of(args.tensor("self"))}));
}

// slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor
RuleResult aten_slice_scatter(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t dim = normalize_dim(args.int_or("dim", 0), rank);
  const std::string src = cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), args.dtype_of("self"));
  const std::string start = absolute_position(ctx, args, "start", 0, dim);
  return emitted(ctx, scatter_slice(ctx, args.tensor("self"), rank, dim, start, args.int_or("step", 1), src));
}

// select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor
RuleResult aten_select_scatter(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t dim = normalize_dim(args.get_int("dim"), rank);
  const std::string src = cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), args.dtype_of("self"));
  const std::string index = absolute_position(ctx, args, "index", 0, dim);
  return emitted(ctx, scatter_slice(ctx, args.tensor("self"), rank, dim, index, 1, ctx.unsqueeze(src, {dim})));
}

// index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor; int_Tensor, in-place
RuleResult aten_index_fill(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t dim = normalize_dim(args.get_int("dim"), rank);
  const std::string size = ctx.size_of(args.tensor_fx("self"), dim);
  // mask[i] = any(index == i), with negative indices wrapped, shaped to broadcast along dim.
  std::string index = ctx.reshape(cast_if_needed(ctx, args.tensor("index"), args.dtype_of("index"), DType::kInt64), ctx.const_i64s({-1}));
  index = ctx.emit("Where", {ctx.emit("Less", {index, ctx.const_i64(0)}), ctx.emit("Add", {index, size}), index});
  const std::string positions = ctx.emit("Range", {ctx.const_i64(0), size, ctx.const_i64(1)});
  const std::string hits = ctx.cast(ctx.emit("Equal", {ctx.unsqueeze(positions, {1}), ctx.unsqueeze(index, {0})}), DType::kInt32);
  std::string mask = ctx.cast(ctx.reduce("ReduceMax", hits, std::vector<int64_t>{1}, false), DType::kBool);
  std::vector<int64_t> others;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim) others.push_back(i);
  if (!others.empty()) mask = ctx.unsqueeze(mask, others);
  const DType type = args.dtype_of("self");
  return emitted(ctx, ctx.emit("Where", {mask, operand_as(ctx, args, "value", type), args.tensor("self")}));
}

}  // namespace

void register_indexing_rules(RuleTable& t) {
  t.add("aten.embedding.default", 1, aten_embedding);
  t.add("aten.index_select.default", 1, aten_index_select);
  t.add("aten.gather.default", 1, aten_gather);
  t.add("aten.scatter.src", 1, aten_scatter);
  t.add("aten.scatter.value", 1, aten_scatter);
  t.add("aten.scatter_add.default", 1, aten_scatter_add);
  t.add("aten.index.Tensor", 1, aten_index_tensor);
  t.add("aten.index_put.default", 1, aten_index_put);
  t.add("aten.index_put_.default", 1, aten_index_put);
  t.add("aten.slice_scatter.default", 1, aten_slice_scatter);
  t.add("aten.select_scatter.default", 1, aten_select_scatter);
  t.add("aten.index_fill.int_Scalar", 1, aten_index_fill);
  t.add("aten.index_fill.int_Tensor", 1, aten_index_fill);
  t.add("aten.index_fill_.int_Scalar", 1, aten_index_fill);
  t.add("aten.index_fill_.int_Tensor", 1, aten_index_fill);
  t.add("aten.copy.default", 1, aten_copy);
  t.add("aten.copy_.default", 1, aten_copy);
}

}  // namespace pt2onnx::translate
