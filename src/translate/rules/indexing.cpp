// Indexing rules: embedding, index_select/gather/scatter (also scatter_reduce, masked_scatter),
// nonzero, advanced indexing (index.Tensor, index_put), index_copy, copy.
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/typed_emit.h"
#include "translate/constant_tensors.h"
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

// embedding_renorm(Tensor self, Tensor indices, float max_norm, float norm_type) -> Tensor, and the
// in-place embedding_renorm_ that nn.Embedding(max_norm=...) writes: the weight with each looked-up
// row whose norm_type-norm exceeds max_norm scaled by max_norm / (norm + 1e-7), as torch does. The
// rows are gathered, scaled and scattered back (a repeated index writes the same row twice).
// find_state_updates drops the weight update when the lookups are its only readers.
RuleResult aten_embedding_renorm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string w = args.tensor("self");
  const std::string idx = ctx.reshape(cast_if_needed(ctx, args.tensor("indices"), args.dtype_of("indices"), DType::kInt64),
                                      ctx.const_i64s({-1, 1}));
  const std::string rows = ctx.emit("GatherND", {w, idx});
  const double p = args.get_float("norm_type");
  const std::vector<int64_t> axis = {1};
  std::string norm;
  if (p == 2) norm = ctx.reduce("ReduceL2", rows, axis, true);
  else if (p == 1) norm = ctx.reduce("ReduceL1", rows, axis, true);
  else if (std::isinf(p) && p > 0) norm = ctx.reduce("ReduceMax", ctx.emit("Abs", {rows}), axis, true);
  else {
    PT2ONNX_CHECK(p > 0 && std::isfinite(p), ErrorCode::kUnsupported, "embedding_renorm with norm_type " + std::to_string(p));
    const std::string sum = ctx.reduce("ReduceSum", ctx.emit("Pow", {ctx.emit("Abs", {rows}), ctx.const_scalar(p, type)}), axis, true);
    norm = ctx.emit("Pow", {sum, ctx.const_scalar(1.0 / p, type)});
  }
  const std::string max_norm = ctx.const_scalar(args.get_float("max_norm"), type);
  const std::string scale = ctx.emit("Div", {max_norm, ctx.emit("Add", {norm, ctx.const_scalar(1e-7, type)})});
  const std::string factor = ctx.emit("Where", {ctx.emit("Greater", {norm, max_norm}), scale, ctx.const_scalar(1, type)});
  return emitted(ctx, ctx.emit("ScatterND", {w, idx, ctx.emit("Mul", {rows, factor})}));
}

// _embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False,
// int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False,
// int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor); _embedding_bag_forward_only and
// embedding_bag.padding_idx alike. Only the first output (the bags) is translated. Each index
// belongs to the last bag whose offset is <= its position; rows are scattered into their bag with
// add (sum, mean) or max (opset 18). Entries equal to padding_idx take no part; empty bags are 0.
RuleResult aten_embedding_bag(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  for (size_t i = 1; i < ctx.output_count(); ++i)
    PT2ONNX_CHECK(!ctx.output_used(i), ErrorCode::kUnsupported, "embedding_bag's offset2bag/bag_size/max_indices outputs are used");
  const int64_t mode = args.int_or("mode", 0);
  PT2ONNX_CHECK(mode >= 0 && mode <= 2, ErrorCode::kUnsupported, "embedding_bag mode " + std::to_string(mode));
  if (mode == 2 && ctx.opset() < 18) return RuleResult::kDeclined;
  PT2ONNX_CHECK(args.rank_of("indices") == 1 && args.has("offsets"), ErrorCode::kUnsupported,
                "embedding_bag without 1-D indices and offsets");
  const DType type = args.dtype_of("weight");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "embedding_bag of a non-float weight");

  const std::string indices = args.tensor("indices");
  std::string offsets = cast_if_needed(ctx, args.tensor("offsets"), args.dtype_of("offsets"), DType::kInt64);
  if (args.bool_or("include_last_offset", false))
    offsets = ctx.emit("Slice", {offsets, ctx.const_i64s({0}), ctx.const_i64s({-1})});
  const std::string count_shape = ctx.shape_of(offsets);  // [bags]
  const std::string positions = ctx.emit("Range", {ctx.const_i64(0), ctx.dim_of(indices, 0), ctx.const_i64(1)});
  const std::string started = ctx.emit("LessOrEqual", {ctx.unsqueeze(offsets, {0}), ctx.unsqueeze(positions, {1})});
  const std::string bag = ctx.emit("Sub", {ctx.reduce("ReduceSum", ctx.cast(started, DType::kInt64), std::vector<int64_t>{1}, false),
                                           ctx.const_i64(1)});

  std::string rows = ctx.emit("Gather", {args.tensor("weight"), indices}, {Attr("axis", 0)});
  if (const auto weights = args.optional_tensor("per_sample_weights")) {
    PT2ONNX_CHECK(mode == 0, ErrorCode::kUnsupported, "per_sample_weights outside sum mode");
    rows = ctx.emit("Mul", {rows, ctx.unsqueeze(cast_if_needed(ctx, *weights, args.dtype_of("per_sample_weights"), type), {1})});
  }
  const int64_t padding_idx = args.has("padding_idx") ? args.get_int("padding_idx") : -1;
  std::string valid;  // bool [n], empty when every entry counts
  if (padding_idx >= 0) valid = ctx.emit("Not", {ctx.emit("Equal", {indices, cast_if_needed(ctx, ctx.const_i64(padding_idx), DType::kInt64, args.dtype_of("indices"))})});

  const std::string out_shape = ctx.concat({count_shape, ctx.shape_slice(args.tensor("weight"), 1, 2)}, 0);
  const std::string scatter_index = ctx.emit("Expand", {ctx.unsqueeze(bag, {1}), ctx.shape_of(rows)});
  const std::string zero = ctx.const_scalar(0, type);
  // Entries per bag (padding excluded), for mean and for telling empty bags in max.
  auto counts = [&]() {
    const std::string one_each = valid.empty() ? ctx.emit("Expand", {ctx.const_scalar(1, type), ctx.shape_of(bag)}) : ctx.cast(valid, type);
    return emit_scatter(ctx, "ScatterElements", {ctx.emit("Expand", {zero, count_shape}), bag, one_each}, type,
                        {Attr("axis", 0), Attr("reduction", "add")});
  };
  if (mode == 2) {
    const std::string lowest = ctx.const_scalar(-std::numeric_limits<double>::infinity(), type);
    if (!valid.empty()) rows = ctx.emit("Where", {ctx.unsqueeze(valid, {1}), rows, lowest});
    const std::string maxed = emit_scatter(ctx, "ScatterElements", {ctx.emit("Expand", {lowest, out_shape}), scatter_index, rows}, type,
                                           {Attr("axis", 0), Attr("reduction", "max")});
    const std::string filled = ctx.unsqueeze(ctx.emit("Greater", {counts(), zero}), {1});
    return emitted(ctx, ctx.emit("Where", {filled, maxed, zero}));
  }
  if (!valid.empty()) rows = ctx.emit("Where", {ctx.unsqueeze(valid, {1}), rows, zero});
  const std::string summed = emit_scatter(ctx, "ScatterElements", {ctx.emit("Expand", {zero, out_shape}), scatter_index, rows}, type,
                                          {Attr("axis", 0), Attr("reduction", "add")});
  if (mode == 0) return emitted(ctx, summed);
  const std::string divisor = ctx.emit("Max", {counts(), ctx.const_scalar(1, type)});
  return emitted(ctx, ctx.emit("Div", {summed, ctx.unsqueeze(divisor, {1})}));
}

// index_select(Tensor self, int dim, Tensor index) -> Tensor. On a 0-d tensor torch takes one
// index (0 or -1) and returns the tensor itself.
RuleResult aten_index_select(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (args.rank_of("self") == 0) return emitted(ctx, args.tensor("self"));
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  return emitted(ctx, ctx.emit("Gather", {args.tensor("self"), args.tensor("index")}, {Attr("axis", dim)}));
}

// torch takes a 0-d operand of gather/scatter as one element along dim 0; GatherElements and
// ScatterElements need rank 1 or more. The value with a dim added where it is 0-d.
std::string at_least_1d(EmitContext& ctx, const ArgReader& args, const std::string& name, const std::string& value) {
  return args.rank_of(name) == 0 ? ctx.unsqueeze(value, {0}) : value;
}

// gather/scatter indices as ONNX takes them (int32 or int64; torch also takes smaller ints).
std::string element_index(EmitContext& ctx, const ArgReader& args) {
  const DType type = args.dtype_of("index");
  const std::string index = type == DType::kInt32 || type == DType::kInt64 ? args.tensor("index") : ctx.cast(args.tensor("index"), DType::kInt64);
  return at_least_1d(ctx, args, "index", index);
}

// gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
RuleResult aten_gather(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  // An empty index gives an empty result of its shape; torch then allows any rank.
  const ir::TensorMeta& index_meta = args.meta("index");
  std::vector<int64_t> index_shape;
  for (const auto& d : index_meta.sizes) index_shape.push_back(d.is_static() ? d.as_int() : -1);
  if (std::find(index_shape.begin(), index_shape.end(), 0) != index_shape.end() &&
      std::find(index_shape.begin(), index_shape.end(), -1) == index_shape.end())
    return emitted(ctx, ctx.emit("Expand", {ctx.const_scalar(0, args.dtype_of("self")), ctx.const_i64s(index_shape)}));
  const int64_t dim = args.rank_of("self") == 0 ? 0 : normalize_dim(args.get_int("dim"), args.rank_of("self"));
  const std::string out = ctx.emit("GatherElements", {at_least_1d(ctx, args, "self", args.tensor("self")), element_index(ctx, args)},
                                   {Attr("axis", dim)});
  return emitted(ctx, args.rank_of("index") == 0 ? ctx.squeeze(out, {0}) : out);
}

// scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor; scatter.value(..., Scalar value)
RuleResult aten_scatter(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const bool scalar = args.rank_of("self") == 0;
  const int64_t dim = scalar ? 0 : normalize_dim(args.get_int("dim"), args.rank_of("self"));
  const DType type = args.dtype_of("self");
  const std::string index = element_index(ctx, args);
  std::string updates;
  if (args.has("src")) {
    updates = at_least_1d(ctx, args, "src", cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), type));
  } else {
    updates = ctx.emit("Expand", {args.scalar("value", type), ctx.shape_of(index)});
  }
  const std::string out = ctx.emit("ScatterElements", {at_least_1d(ctx, args, "self", args.tensor("self")), index, updates}, {Attr("axis", dim)});
  return emitted(ctx, scalar ? ctx.squeeze(out, {0}) : out);
}

// scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
RuleResult aten_scatter_add(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const bool scalar = args.rank_of("self") == 0;
  const int64_t dim = scalar ? 0 : normalize_dim(args.get_int("dim"), args.rank_of("self"));
  const std::string src = at_least_1d(ctx, args, "src", cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), args.dtype_of("self")));
  const std::string out = emit_scatter(ctx, "ScatterElements", {at_least_1d(ctx, args, "self", args.tensor("self")), element_index(ctx, args), src},
                                       args.dtype_of("self"), {Attr("axis", dim), Attr("reduction", "add")});
  return emitted(ctx, scalar ? ctx.squeeze(out, {0}) : out);
}

// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True)
// -> Tensor, as ScatterElements with a reduction (max/min need opset 18). Without include_self the
// target elements are first overwritten with a neutral value: 0 (sum, mean), 1 (prod), or any src
// element scattered there (amax, amin: max(v, v, ...) = v). mean divides by a scattered count,
// plus one for self, flooring for ints as torch does.
RuleResult aten_scatter_reduce(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  // A 0-d self (with 0-d index and src) is one element along dim 0, as in scatter.
  const bool scalar = args.rank_of("self") == 0;
  const int64_t rank = std::max<int64_t>(args.rank_of("self"), 1);
  const int64_t dim = scalar ? 0 : normalize_dim(args.get_int("dim"), rank);
  auto finish = [&](const std::string& out) { return emitted(ctx, scalar ? ctx.squeeze(out, {0}) : out); };
  const std::string reduce = args.string_or("reduce", "");
  const bool include_self = args.bool_or("include_self", true);
  const DType type = args.dtype_of("self");
  std::string reduction;
  if (reduce == "sum" || reduce == "mean") reduction = "add";
  if (reduce == "prod") reduction = "mul";
  if (reduce == "amax") reduction = "max";
  if (reduce == "amin") reduction = "min";
  PT2ONNX_CHECK(!reduction.empty(), ErrorCode::kUnsupported, "scatter_reduce with reduce '" + reduce + "'");
  PT2ONNX_CHECK(type != DType::kBool, ErrorCode::kUnsupported, "scatter_reduce of a bool tensor");
  if ((reduction == "max" || reduction == "min") && ctx.opset() < 18) return RuleResult::kDeclined;

  const std::string index = at_least_1d(ctx, args, "index", args.tensor("index"));
  std::string src = at_least_1d(ctx, args, "src", cast_if_needed(ctx, args.tensor("src"), args.dtype_of("src"), type));
  // torch reads only the index-shaped corner of src; ScatterElements wants equal shapes.
  if (args.meta("src").sizes.size() == args.meta("index").sizes.size()) {
    bool same = true;
    for (size_t i = 0; i < args.meta("src").sizes.size(); ++i) {
      const ir::Dim& a = args.meta("src").sizes[i];
      const ir::Dim& b = args.meta("index").sizes[i];
      same = same && a.is_static() && b.is_static() && a.as_int() == b.as_int();
    }
    if (!same) {
      src = ctx.emit("Slice", {src, ctx.const_i64s(std::vector<int64_t>(static_cast<size_t>(rank), 0)), ctx.shape_of(index)});
    }
  }
  const std::vector<Attr> plain = {Attr("axis", dim)};
  const std::vector<Attr> reducing = {Attr("axis", dim), Attr("reduction", reduction)};
  const std::string index_shape = ctx.shape_of(index);
  const std::string self_in = at_least_1d(ctx, args, "self", args.tensor("self"));
  std::string self = self_in;
  if (!include_self) {
    std::string neutral = src;
    if (reduce == "sum" || reduce == "mean") neutral = ctx.emit("Expand", {ctx.const_scalar(0, type), index_shape});
    if (reduce == "prod") neutral = ctx.emit("Expand", {ctx.const_scalar(1, type), index_shape});
    self = ctx.emit("ScatterElements", {self, index, neutral}, plain);
  }
  std::string result = emit_scatter(ctx, "ScatterElements", {self, index, src}, type, reducing);
  if (reduce != "mean") return finish(result);

  const std::string zeros = ctx.emit("Expand", {ctx.const_scalar(0, type), ctx.shape_of(self_in)});
  const std::string ones = ctx.emit("Expand", {ctx.const_scalar(1, type), index_shape});
  const std::string scattered = emit_scatter(ctx, "ScatterElements", {zeros, index, ones}, type, {Attr("axis", dim), Attr("reduction", "add")});
  const std::string one = ctx.const_scalar(1, type);
  // Elements nothing lands on keep their value: divided by 1.
  const std::string count = include_self ? ctx.emit("Add", {scattered, one}) : ctx.emit("Max", {scattered, one});
  return finish(is_floating(type) ? ctx.emit("Div", {result, count}) : int_floor_div(ctx, result, count));
}

// masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor: the i-th true element of the
// (broadcast) mask, in row-major order, takes source's i-th element (flattened); the others keep self.
RuleResult aten_masked_scatter(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  // onnxruntime's Where takes no bools: bool tensors go through uint8.
  const DType type = args.dtype_of("self") == DType::kBool ? DType::kUInt8 : args.dtype_of("self");
  const std::string mask_in = cast_if_needed(ctx, args.tensor("mask"), args.dtype_of("mask"), DType::kBool);
  // Expand broadcasts both ways: self against mask's shape, then mask against the result's.
  const std::string self_in = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  const std::string self = ctx.emit("Expand", {self_in, ctx.shape_of(mask_in)});
  const std::string shape = ctx.shape_of(self);
  const std::string flat_shape = ctx.const_i64s({-1});
  const std::string mask = ctx.reshape(ctx.emit("Expand", {mask_in, shape}), flat_shape);
  const std::string taken = ctx.emit("CumSum", {ctx.cast(mask, DType::kInt64), ctx.const_i64(0)});
  // Elements before the first true one get -1; clamped, their gathered value is never used.
  const std::string position = ctx.emit("Max", {ctx.emit("Sub", {taken, ctx.const_i64(1)}), ctx.const_i64(0)});
  // One spare element, so that the clamped position 0 exists even for an empty source (all-false mask).
  const std::string source = ctx.concat({ctx.reshape(cast_if_needed(ctx, args.tensor("source"), args.dtype_of("source"), type), flat_shape),
                                         ctx.const_tensor(filled_tensor(0, type, {1}), "masked_scatter_spare")},
                                        0);
  const std::string picked = ctx.emit("Gather", {source, position}, {Attr("axis", 0)});
  const std::string merged = ctx.emit("Where", {mask, picked, ctx.reshape(self, flat_shape)});
  return emitted(ctx, cast_if_needed(ctx, ctx.reshape(merged, shape), type, args.dtype_of("self")));
}

// nonzero(Tensor self) -> Tensor   ([n, rank] int64 coordinates, row-major like ONNX NonZero's [rank, n])
// A 0-d tensor has [n, 0] coordinates (n = 0 or 1): found as a 1-element tensor, its column dropped.
RuleResult aten_nonzero(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kBool);
  if (args.rank_of("self") == 0) x = ctx.reshape(x, ctx.const_i64s({1}));
  const std::string coords = ctx.transpose(ctx.emit("NonZero", {x}), {1, 0});
  if (args.rank_of("self") > 0) return emitted(ctx, coords);
  const std::string none = ctx.const_i64s({0});
  return emitted(ctx, ctx.emit("Slice", {coords, none, none, ctx.const_i64s({1})}));
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
// Two indices broadcast as i + 0*j and j + 0*i: one node fewer than through the sum of all
// zeros, and an index shared by several index ops keeps one 0*i.
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
  std::vector<std::string> zeros;  // 0 * each index
  for (const std::string& v : values) zeros.push_back(values.size() == 1 ? "" : ctx.emit("Mul", {v, ctx.const_i64(0)}));
  std::string all_zeros = values.size() > 2 ? zeros.front() : "";
  for (size_t i = 1; i < values.size() && values.size() > 2; ++i) all_zeros = ctx.emit("Add", {all_zeros, zeros[i]});
  std::vector<std::string> coords;
  for (size_t i = 0; i < values.size(); ++i) {
    std::string broadcast = values[i];
    if (values.size() == 2) broadcast = ctx.emit("Add", {values[i], zeros[1 - i]});
    else if (values.size() > 2) broadcast = ctx.emit("Add", {values[i], all_zeros});
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
// Integer indices in any positions (None between them too) or one leading bool mask: the indexed
// dims move to the front, ScatterND writes the values broadcast to torch's indexing result (laid
// out as the moved tensor), and the dims move back. As in torch's indexing, adjacent indices after
// leading full dims keep their place in the result; others put the broadcast index dims first.
RuleResult aten_index_put(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<std::optional<std::string>> indices = index_list(args);
  const std::vector<int64_t> positions = present_positions(indices);
  const std::string x = args.tensor("self");
  const int64_t rank = args.rank_of("self");
  const std::string values = cast_if_needed(ctx, args.tensor("values"), args.dtype_of("values"), args.dtype_of("self"));
  std::vector<Attr> attrs;
  if (args.bool_or("accumulate", false)) attrs.emplace_back("reduction", "add");

  if (is_mask(ctx, indices[static_cast<size_t>(positions.front())])) {
    PT2ONNX_CHECK(positions.size() == 1 && positions.front() == 0, ErrorCode::kUnsupported,
                  "index_put with a boolean mask is supported only as self[mask] = values");
    const ir::TensorMeta& m = index_meta(ctx, *indices.front());
    const auto indexed = static_cast<int64_t>(m.sizes.size());
    const std::string coords = mask_coordinates(ctx, ctx.value_of(*indices.front()), m.dtype);
    const std::string lead = ctx.emit("Slice", {ctx.shape_of(coords), ctx.const_i64s({0}), ctx.const_i64s({-1})});
    const std::string shape = indexed < rank ? ctx.concat({lead, ctx.shape_slice(x, indexed, rank)}, 0) : lead;
    return emitted(ctx, emit_scatter(ctx, "ScatterND", {x, coords, ctx.emit("Expand", {values, shape})}, args.dtype_of("self"), attrs));
  }

  size_t broadcast_rank = 0;
  const std::string coords = index_coordinates(ctx, args, indices, positions, broadcast_rank);
  const auto b = static_cast<int64_t>(broadcast_rank);
  const auto k = static_cast<int64_t>(positions.size());
  std::vector<int64_t> perm = positions;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(positions.begin(), positions.end(), d) == positions.end()) perm.push_back(d);
  bool identity = true;
  for (int64_t d = 0; d < rank; ++d) identity = identity && perm[static_cast<size_t>(d)] == d;
  const std::string moved = identity ? x : ctx.transpose(x, perm);
  const std::string index_shape = ctx.emit("Slice", {ctx.shape_of(coords), ctx.const_i64s({0}), ctx.const_i64s({-1})});
  const std::string rest_shape = ctx.shape_slice(moved, k, rank);
  std::string updates;
  const int64_t lead = positions.front();
  const bool adjacent = positions.back() - lead + 1 == k;
  if (adjacent && lead > 0) {
    // torch's result is [self dims before, index dims, self dims after]; move the index dims first.
    const std::string torch_shape =
        ctx.concat({ctx.shape_slice(x, 0, lead), index_shape, ctx.shape_slice(x, positions.back() + 1, rank)}, 0);
    std::vector<int64_t> to_front;
    for (int64_t i = lead; i < lead + b; ++i) to_front.push_back(i);
    for (int64_t i = 0; i < lead; ++i) to_front.push_back(i);
    for (int64_t i = lead + b; i < b + rank - k; ++i) to_front.push_back(i);
    updates = ctx.transpose(ctx.emit("Expand", {values, torch_shape}), to_front);
  } else {
    updates = ctx.emit("Expand", {values, k < rank ? ctx.concat({index_shape, rest_shape}, 0) : index_shape});
  }
  const std::string scattered = emit_scatter(ctx, "ScatterND", {moved, coords, updates}, args.dtype_of("self"), attrs);
  if (identity) return emitted(ctx, scattered);
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return emitted(ctx, ctx.transpose(scattered, inverse));
}

// index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor; index_copy_ (what
// transformers' StaticCache writes its keys and values with): self[..., index[i], ...] =
// source[..., i, ...] along dim, as ScatterElements of the index broadcast to source's shape. A
// 0-D self (and source, of at most one element) reads as one element along dim 0, as torch does.
RuleResult aten_index_copy(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  std::string source = cast_if_needed(ctx, args.tensor("source"), args.dtype_of("source"), args.dtype_of("self"));
  std::string index = ctx.reshape(cast_if_needed(ctx, args.tensor("index"), args.dtype_of("index"), DType::kInt64), ctx.const_i64s({-1}));
  if (rank == 0) {
    PT2ONNX_CHECK(args.rank_of("source") <= 1, ErrorCode::kUnsupported, "index_copy into a 0-D self from a source of rank above 1");
    source = ctx.reshape(source, ctx.const_i64s({-1}));
    const std::string one = ctx.unsqueeze(args.tensor("self"), {0});
    return emitted(ctx, ctx.squeeze(ctx.emit("ScatterElements", {one, index, source}, {Attr("axis", int64_t{0})}), {0}));
  }
  PT2ONNX_CHECK(args.rank_of("source") == rank, ErrorCode::kUnsupported, "index_copy with a source of another rank");
  const int64_t dim = normalize_dim(args.get_int("dim"), rank);
  std::vector<int64_t> others;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim) others.push_back(i);
  if (!others.empty()) index = ctx.unsqueeze(index, others);
  index = ctx.emit("Expand", {index, ctx.shape_of(source)});
  return emitted(ctx, ctx.emit("ScatterElements", {args.tensor("self"), index, source}, {Attr("axis", dim)}));
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
  return emitted(ctx, scatter_select(ctx, args, dim, src));
}

// index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor; int_Tensor, in-place.
// A 0-d tensor is filled as one element along a dim of size 1, when the index names it.
RuleResult aten_index_fill(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t dim = rank == 0 ? 0 : normalize_dim(args.get_int("dim"), rank);
  const std::string size = rank == 0 ? ctx.const_i64(1) : ctx.size_of(args.tensor_fx("self"), dim);
  // mask[i] = any(index == i), with negative indices wrapped, shaped to broadcast along dim.
  std::string index = ctx.reshape(cast_if_needed(ctx, args.tensor("index"), args.dtype_of("index"), DType::kInt64), ctx.const_i64s({-1}));
  index = ctx.emit("Where", {ctx.emit("Less", {index, ctx.const_i64(0)}), ctx.emit("Add", {index, size}), index});
  const std::string positions = ctx.emit("Range", {ctx.const_i64(0), size, ctx.const_i64(1)});
  const std::string hits = ctx.cast(ctx.emit("Equal", {ctx.unsqueeze(positions, {1}), ctx.unsqueeze(index, {0})}), DType::kInt32);
  // A sum, not a max: the max of no index (an empty index) is INT_MIN, which casts to true.
  std::string mask = ctx.emit("Greater", {ctx.reduce("ReduceSum", hits, std::vector<int64_t>{1}, false), ctx.const_scalar(0, DType::kInt32)});
  std::vector<int64_t> others;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim) others.push_back(i);
  if (!others.empty()) mask = ctx.unsqueeze(mask, others);
  if (rank == 0) mask = ctx.reshape(mask, ctx.const_i64s({}));
  const DType type = args.dtype_of("self");
  return emitted(ctx, emit_where(ctx, mask, operand_as(ctx, args, "value", type), args.tensor("self"), type));
}

}  // namespace

void register_indexing_rules(RuleTable& t) {
  t.add("aten.embedding.default", aten_embedding);
  t.add("aten.embedding_renorm.default", aten_embedding_renorm);
  t.add("aten.embedding_renorm_.default", aten_embedding_renorm);
  t.add("aten._embedding_bag.default", aten_embedding_bag, "embedding_bag max mode needs opset 18");
  t.add("aten._embedding_bag_forward_only.default", aten_embedding_bag, "embedding_bag max mode needs opset 18");
  t.add("aten.embedding_bag.padding_idx", aten_embedding_bag, "embedding_bag max mode needs opset 18");
  t.add("aten.index_select.default", aten_index_select);
  t.add("aten.gather.default", aten_gather);
  t.add("aten.nonzero.default", aten_nonzero);
  t.add("aten.scatter.src", aten_scatter);
  t.add("aten.scatter.value", aten_scatter);
  t.add("aten.scatter_.src", aten_scatter);
  t.add("aten.scatter_.value", aten_scatter);
  t.add("aten.scatter_add.default", aten_scatter_add);
  t.add("aten.scatter_add_.default", aten_scatter_add);
  t.add("aten.scatter_reduce.two", aten_scatter_reduce, "scatter_reduce amax/amin need opset 18");
  t.add("aten.masked_scatter.default", aten_masked_scatter);
  t.add("aten.index.Tensor", aten_index_tensor);
  t.add("aten.index_put.default", aten_index_put);
  t.add("aten.index_put_.default", aten_index_put);
  t.add("aten.index_copy.default", aten_index_copy);
  t.add("aten.index_copy_.default", aten_index_copy);
  t.add("aten.slice_scatter.default", aten_slice_scatter);
  t.add("aten.select_scatter.default", aten_select_scatter);
  t.add("aten.index_fill.int_Scalar", aten_index_fill);
  t.add("aten.index_fill.int_Tensor", aten_index_fill);
  t.add("aten.index_fill_.int_Scalar", aten_index_fill);
  t.add("aten.index_fill_.int_Tensor", aten_index_fill);
  t.add("aten.copy.default", aten_copy);
  t.add("aten.copy_.default", aten_copy);
}

}  // namespace pt2onnx::translate
