// Shape and view rules: reshapes, permutations, (un)squeeze, expand, concatenation and splitting,
// slicing, padding, and the ops that only alias or copy (clone, contiguous, dropout in eval...).
// Sizes may be symbolic: they arrive as SymInt lists and become int64 shape values, never constants.
#include <algorithm>
#include <limits>
#include <optional>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

std::vector<int64_t> range(int64_t begin, int64_t end) {
  std::vector<int64_t> out;
  for (int64_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

// ---- pass-through -----------------------------------------------------------------------------

// clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor; contiguous, alias, detach,
// lift_fresh_copy: the value is unchanged
RuleResult aten_passthrough(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, args.tensor("self"));
}

// dropout(Tensor input, float p, bool? train) -> Tensor; feature/alpha dropout alike: identity in
// eval. The in-place forms (dropout_(Tensor(a!) self, float p, bool train)) name the tensor `self`.
// In training mode with p = 1 torch drops everything, deterministically: x * 0 (NaN stays NaN).
RuleResult aten_dropout(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string x = args.tensor(args.has("input") ? "input" : "self");
  const bool train = args.bool_or("train", false);
  if (train && args.float_or("p", 0) >= 1) return emitted(ctx, ctx.emit("Mul", {x, ctx.const_scalar(0, args.dtype_of(args.has("input") ? "input" : "self"))}));
  if (train && args.float_or("p", 0) > 0) ctx.warn(describe_node(node) + ": dropout in training mode is exported as identity");
  return emitted(ctx, x);
}

// native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)
RuleResult aten_native_dropout(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const bool drop_all = args.bool_or("train", false) && args.float_or("p", 0) >= 1;  // as in aten_dropout
  if (args.bool_or("train", false) && args.float_or("p", 0) > 0 && !drop_all)
    ctx.warn(describe_node(node) + ": dropout in training mode is exported as identity");
  const std::string x = args.tensor("input");
  ctx.set_output(0, drop_all ? ctx.emit("Mul", {x, ctx.const_scalar(0, args.dtype_of("input"))}) : x);
  if (ctx.output_used(1))  // the keep-mask: everything kept, or nothing
    ctx.set_output(1, ctx.emit("Expand", {ctx.const_bool(!drop_all), ctx.shape_of(x)}));
  return RuleResult::kEmitted;
}

// ---- reshapes ---------------------------------------------------------------------------------

// ---- expands that only feed a matmul ----------------------------------------------------------
// Core IR writes x[B, M, K] @ w[K, N] as bmm(view(x), view(expand(w, [B, K, N]), [B, K, N])).
// ONNX MatMul broadcasts, so such an Expand, B copies of a weight (1.4 GB per layer in
// vit_b_16), is skipped: the expand and its same-shape views pass the low-rank value through,
// and MatMul broadcasts it. Only when every reader ends in a bmm/matmul whose other operand has
// the full rank, so the product's shape is unchanged.

bool is_view_target(const std::string& target) {
  return target == "aten.view.default" || target == "aten.reshape.default" || target == "aten._unsafe_view.default";
}

bool same_sym_ints(const std::vector<ir::SymIntArg>& a, const std::vector<ir::SymIntArg>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].v != b[i].v) return false;
  return true;
}

const std::vector<ir::SymIntArg>* sym_int_list(const ir::Node& node, const char* name) {
  const ir::Argument* arg = node.input(name);
  const auto* list = arg ? std::get_if<ir::SymIntListArg>(arg) : nullptr;
  return list ? &list->items : nullptr;
}

const std::string* tensor_input(const ir::Node& node, const char* name) {
  const ir::Argument* arg = node.input(name);
  const auto* t = arg ? std::get_if<ir::TensorArg>(arg) : nullptr;
  return t ? &t->name : nullptr;
}

const ir::Node* producer_of(const ir::Graph& graph, const std::string& fx) {
  for (const ir::Node& node : graph.nodes)
    for (const ir::Argument& out : node.outputs)
      if (const auto* t = std::get_if<ir::TensorArg>(&out); t && t->name == fx) return &node;
  return nullptr;
}

std::vector<const ir::Node*> readers_of(const ir::Graph& graph, const std::string& fx, bool& escapes) {
  std::vector<const ir::Node*> readers;
  for (const ir::Argument& out : graph.outputs)
    if (const auto* t = std::get_if<ir::TensorArg>(&out); t && t->name == fx) escapes = true;
  for (const ir::Node& node : graph.nodes) {
    for (const ir::NamedArgument& in : node.inputs) {
      if (const auto* t = std::get_if<ir::TensorArg>(&in.arg); t && t->name == fx) {
        readers.push_back(&node);
        break;
      }
      if (const auto* l = std::get_if<ir::TensorListArg>(&in.arg))
        for (const auto& n : l->names)
          if (n == fx) escapes = true;
    }
  }
  return readers;
}

// The value at the end of a chain of same-shape views, and the expand node it starts from (or
// nullptr when `fx` does not come from an expand adding leading dims).
const ir::Node* leading_expand(const ir::Graph& graph, const std::string& fx) {
  const ir::Node* node = producer_of(graph, fx);
  const std::vector<ir::SymIntArg>* shape = nullptr;
  while (node && is_view_target(node->target)) {
    const auto* size = sym_int_list(*node, node->input("size") ? "size" : "shape");
    const std::string* in = tensor_input(*node, "self");
    if (!size || !in || (shape && !same_sym_ints(*size, *shape))) return nullptr;
    shape = size;
    node = producer_of(graph, *in);
  }
  if (!node || node->target != "aten.expand.default") return nullptr;
  const auto* size = sym_int_list(*node, "size");
  const std::string* in = tensor_input(*node, "self");
  if (!size || !in || (shape && !same_sym_ints(*size, *shape))) return nullptr;
  auto it = graph.tensor_values.find(*in);
  if (it == graph.tensor_values.end()) return nullptr;
  const std::vector<ir::Dim>& dims = it->second.sizes;
  if (dims.size() >= size->size()) return nullptr;
  const size_t lead = size->size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {  // the input's own dims are kept, never broadcast
    const auto* v = std::get_if<int64_t>(&(*size)[lead + i].v);
    if (!v) return nullptr;
    if (*v != -1 && !(dims[i].is_static() && dims[i].as_int() == *v)) return nullptr;
  }
  return node;
}

// Whether every reader of `fx` (through same-shape views) is a bmm/matmul whose other operand is
// of full rank and not itself such an expand.
bool only_feeds_matmul(const ir::Graph& graph, const std::string& fx, size_t rank, int depth = 0) {
  bool escapes = false;
  const std::vector<const ir::Node*> readers = readers_of(graph, fx, escapes);
  if (escapes || readers.empty() || depth > 4) return false;
  for (const ir::Node* reader : readers) {
    if (is_view_target(reader->target)) {
      if (reader->outputs.empty()) return false;
      const auto* out = std::get_if<ir::TensorArg>(&reader->outputs.front());
      if (!out || !only_feeds_matmul(graph, out->name, rank, depth + 1)) return false;
      continue;
    }
    if (reader->target != "aten.bmm.default" && reader->target != "aten.matmul.default") return false;
    const std::string* a = tensor_input(*reader, "self");
    const std::string* b = tensor_input(*reader, reader->target == "aten.bmm.default" ? "mat2" : "other");
    if (!a || !b || *a == *b) return false;
    const std::string& other = *a == fx ? *b : *a;
    auto it = graph.tensor_values.find(other);
    if (it == graph.tensor_values.end() || it->second.sizes.size() != rank) return false;
    if (leading_expand(graph, other) != nullptr) return false;
  }
  return true;
}

// Whether the expand (or same-shape view of one) producing FX value `fx` is skipped.
bool skipped_expand(const ir::Graph& graph, const std::string& fx) {
  const ir::Node* expand = leading_expand(graph, fx);
  if (!expand) return false;
  const auto* out = std::get_if<ir::TensorArg>(&expand->outputs.front());
  return out && only_feeds_matmul(graph, out->name, sym_int_list(*expand, "size")->size());
}

// view(Tensor(a) self, SymInt[] size) -> Tensor(a); reshape(self, shape), _unsafe_view, view_copy
RuleResult aten_view(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!node.outputs.empty())
    if (const auto* out = std::get_if<ir::TensorArg>(&node.outputs.front()); out && skipped_expand(ctx.fx_graph(), out->name))
      return emitted(ctx, args.tensor("self"));
  const std::string name = args.has("size") ? "size" : "shape";
  bool has_zero = false;  // torch's 0 is an empty dim, not ONNX's "copy this dim"
  for (const auto& item : args.sym_ints(name))
    if (const auto* v = std::get_if<int64_t>(&item.v); v && *v == 0) has_zero = true;
  std::vector<Attr> attrs;
  if (has_zero) attrs.emplace_back("allowzero", 1);
  return emitted(ctx, ctx.emit("Reshape", {args.tensor("self"), args.ints_value(name)}, attrs));
}

// as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)
// Exported graphs are functional, so `self` reads as a contiguous tensor of its sizes. A restride
// that keeps the sizes and contiguous strides (size-1 dims may carry any stride: core IR's
// adaptive pooling makes these) is the identity; otherwise, with static strides, the result is
// the flat input gathered at offset + sum_i arange(size_i) * stride_i.
bool dims_equal(const ir::Dim& a, const ir::Dim& b) {
  if (a.is_static() != b.is_static()) return false;
  return a.is_static() ? a.as_int() == b.as_int() : ir::to_string(a.as_expr()) == ir::to_string(b.as_expr());
}

RuleResult aten_as_strided(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const ir::TensorMeta& in = args.meta("self");
  const ir::TensorMeta* out = args.out_meta();
  if (out == nullptr) return RuleResult::kDeclined;
  const std::vector<int64_t> strides = args.ints("stride");
  const int64_t offset = args.has("storage_offset") ? args.get_int("storage_offset") : 0;
  const size_t rank = out->sizes.size();
  if (strides.size() != rank) return RuleResult::kDeclined;
  bool same = offset == 0 && in.sizes.size() == rank;
  for (size_t i = 0; same && i < rank; ++i) same = dims_equal(in.sizes[i], out->sizes[i]);
  std::optional<int64_t> expected = 1;  // contiguous stride of dim i; nullopt once a symbolic size is passed
  for (size_t i = rank; same && i-- > 0;) {
    const ir::Dim& size = out->sizes[i];
    const bool unit = size.is_static() && size.as_int() == 1;
    if (!unit && (!expected || *expected != strides[i])) same = false;
    if (expected && size.is_static()) *expected *= size.as_int();
    else expected.reset();
  }
  if (same) return emitted(ctx, args.tensor("self"));
  // General form: indices broadcast over the output rank, one Range per dim.
  const std::string flat = ctx.reshape(args.tensor("self"), ctx.const_i64s({-1}));
  const std::vector<ir::SymIntArg> sizes = args.sym_ints("size");
  std::string index = ctx.const_i64(offset);
  for (size_t i = 0; i < rank; ++i) {
    std::string r = ctx.emit("Range", {ctx.const_i64(0), ctx.sym_int(sizes[i]), ctx.const_i64(1)});
    r = ctx.emit("Mul", {r, ctx.const_i64(strides[i])});
    std::vector<int64_t> axes;
    for (size_t j = 0; j < rank; ++j)
      if (j != i) axes.push_back(static_cast<int64_t>(j));
    if (!axes.empty()) r = ctx.unsqueeze(r, axes);
    index = ctx.emit("Add", {index, r});
  }
  return emitted(ctx, ctx.emit("Gather", {flat, index}, {Attr("axis", int64_t{0})}));
}

// flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)
RuleResult aten_flatten(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  if (rank == 0) return emitted(ctx, ctx.reshape(args.tensor("self"), ctx.const_i64s({1})));
  const int64_t start = normalize_dim(args.int_or("start_dim", 0), rank);
  const int64_t end = normalize_dim(args.int_or("end_dim", -1), rank);
  if (start == end) return emitted(ctx, args.tensor("self"));
  const std::string& fx = args.tensor_fx("self");
  std::vector<std::string> pieces;
  if (start > 0) pieces.push_back(sizes_value(ctx, fx, range(0, start)));
  pieces.push_back(ctx.const_i64s({-1}));
  if (end + 1 < rank) pieces.push_back(sizes_value(ctx, fx, range(end + 1, rank)));
  return emitted(ctx, ctx.reshape(args.tensor("self"), ctx.concat(pieces, 0)));
}

// unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)
RuleResult aten_unflatten(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t dim = normalize_dim(args.get_int("dim"), rank);
  const std::string& fx = args.tensor_fx("self");
  std::vector<std::string> pieces;
  if (dim > 0) pieces.push_back(sizes_value(ctx, fx, range(0, dim)));
  pieces.push_back(args.ints_value("sizes"));
  if (dim + 1 < rank) pieces.push_back(sizes_value(ctx, fx, range(dim + 1, rank)));
  return emitted(ctx, ctx.reshape(args.tensor("self"), ctx.concat(pieces, 0)));
}

// ---- permutations -----------------------------------------------------------------------------

// permute(Tensor(a) self, int[] dims) -> Tensor(a)
RuleResult aten_permute(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<int64_t> perm = normalize_dims(args.ints("dims"), args.rank_of("self"));
  if (perm == range(0, static_cast<int64_t>(perm.size()))) return emitted(ctx, args.tensor("self"));
  return emitted(ctx, ctx.transpose(args.tensor("self"), perm));
}

// transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
RuleResult aten_transpose(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t a = normalize_dim(args.get_int("dim0"), rank), b = normalize_dim(args.get_int("dim1"), rank);
  if (rank < 2 || a == b) return emitted(ctx, args.tensor("self"));
  std::vector<int64_t> perm = range(0, rank);
  std::swap(perm[a], perm[b]);
  return emitted(ctx, ctx.transpose(args.tensor("self"), perm));
}

// ---- (un)squeeze ------------------------------------------------------------------------------

// unsqueeze(Tensor(a) self, int dim) -> Tensor(a)
RuleResult aten_unsqueeze(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self") + 1);
  return emitted(ctx, ctx.unsqueeze(args.tensor("self"), {dim}));
}

// torch drops a squeezed dim only when its size is 1. Static sizes decide here; symbolic ones at
// run time, by keeping the shape entries that are not (a requested dim of size 1).
std::string squeeze_dims(EmitContext& ctx, const ArgReader& args, const std::vector<int64_t>& dims) {
  const ir::TensorMeta& meta = args.meta("self");
  const std::string x = args.tensor("self");
  std::vector<int64_t> drop;
  bool dynamic = false;
  for (int64_t d : dims) {
    const ir::Dim& size = meta.sizes[d];
    if (!size.is_static()) dynamic = true;
    else if (size.as_int() == 1) drop.push_back(d);
  }
  if (!dynamic) return drop.empty() ? x : ctx.squeeze(x, drop);
  const int64_t rank = static_cast<int64_t>(meta.sizes.size());
  std::vector<bool> requested(rank, false);
  for (int64_t d : dims) requested[d] = true;
  std::vector<int64_t> requested_flags;
  for (bool r : requested) requested_flags.push_back(r ? 1 : 0);
  const std::string shape = ctx.shape_of(x);
  const std::string is_one = ctx.emit("Equal", {shape, ctx.const_i64(1)});
  const std::string is_requested = ctx.cast(ctx.const_i64s(requested_flags), DType::kBool);
  const std::string keep = ctx.emit("Not", {ctx.emit("And", {is_one, is_requested})});
  return ctx.reshape(x, ctx.emit("Compress", {shape, keep}, {Attr("axis", 0)}));
}

// squeeze.dim(Tensor(a) self, int dim) -> Tensor(a); squeeze.dims(self, int[] dim); squeeze.default(self)
RuleResult aten_squeeze(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  if (rank == 0) return emitted(ctx, args.tensor("self"));
  const std::vector<int64_t> dims = args.has("dim") ? normalize_dims(args.ints("dim"), rank) : range(0, rank);
  return emitted(ctx, squeeze_dims(ctx, args, dims));
}

// ---- expand -----------------------------------------------------------------------------------

// expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)
RuleResult aten_expand(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!node.outputs.empty())
    if (const auto* out = std::get_if<ir::TensorArg>(&node.outputs.front()); out && skipped_expand(ctx.fx_graph(), out->name))
      return emitted(ctx, args.tensor("self"));
  if (const ir::TensorMeta* out = args.out_meta(); out && out->sizes.size() == args.meta("self").sizes.size()) {
    bool same = true;  // an expand to the input's own shape (core IR writes these before bmm) copies nothing
    for (size_t i = 0; same && i < out->sizes.size(); ++i) same = dims_equal(out->sizes[i], args.meta("self").sizes[i]);
    if (same) return emitted(ctx, args.tensor("self"));
  }
  // torch's -1 keeps a dim; ONNX Expand broadcasts both ways, so 1 does the same.
  std::vector<ir::SymIntArg> items = args.sym_ints("size");
  for (auto& item : items)
    if (const auto* v = std::get_if<int64_t>(&item.v); v && *v == -1) item.v = int64_t{1};
  return emitted(ctx, ctx.emit("Expand", {args.tensor("self"), ctx.sym_ints(items)}));
}

// expand_as(Tensor(a) self, Tensor other) -> Tensor(a)
RuleResult aten_expand_as(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Expand", {args.tensor("self"), ctx.shape_of(args.tensor("other"))}));
}

// repeat(Tensor self, SymInt[] repeats) -> Tensor
RuleResult aten_repeat(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const auto count = static_cast<int64_t>(args.sym_ints("repeats").size());
  std::string x = args.tensor("self");
  if (count > rank) x = ctx.unsqueeze(x, range(0, count - rank));  // repeat adds leading dims
  return emitted(ctx, ctx.emit("Tile", {x, args.ints_value("repeats")}));
}

// ---- concatenation and splitting --------------------------------------------------------------

// cat(Tensor[] tensors, int dim=0) -> Tensor
RuleResult aten_cat(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto* list = std::get_if<ir::TensorListArg>(&args.arg("tensors"));
  PT2ONNX_CHECK(list != nullptr, ErrorCode::kUnsupported, "cat of something other than a tensor list");
  const DType type = result_dtype(args, DType::kUnknown);
  std::vector<std::string> inputs;
  int64_t rank = -1;
  for (const auto& fx : list->names) {
    const ir::TensorMeta* meta = ctx.meta(fx);
    // torch skips 1-D empty tensors in cat (legacy behaviour); ONNX would reject their rank.
    if (meta && meta->sizes.size() == 1 && meta->sizes[0].is_static() && meta->sizes[0].as_int() == 0 && list->names.size() > 1)
      continue;
    if (meta) rank = std::max<int64_t>(rank, static_cast<int64_t>(meta->sizes.size()));
    inputs.push_back(cast_if_needed(ctx, ctx.value_of(fx), meta ? meta->dtype : DType::kUnknown, type));
  }
  PT2ONNX_CHECK(!inputs.empty(), ErrorCode::kUnsupported, "cat of only empty tensors");
  const int64_t dim = normalize_dim(args.int_or("dim", 0), rank < 0 ? 1 : rank);
  return emitted(ctx, ctx.concat(inputs, dim));
}

// stack(Tensor[] tensors, int dim=0) -> Tensor
RuleResult aten_stack(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto* list = std::get_if<ir::TensorListArg>(&args.arg("tensors"));
  PT2ONNX_CHECK(list != nullptr && !list->names.empty(), ErrorCode::kUnsupported, "stack of something other than a tensor list");
  const ir::TensorMeta* first = ctx.meta(list->names.front());
  PT2ONNX_CHECK(first != nullptr, ErrorCode::kUnsupported, "stack input without tensor_values entry");
  const int64_t dim = normalize_dim(args.int_or("dim", 0), static_cast<int64_t>(first->sizes.size()) + 1);
  const DType type = result_dtype(args, first->dtype);
  std::vector<std::string> inputs;
  for (const auto& fx : list->names) {
    const ir::TensorMeta* meta = ctx.meta(fx);
    inputs.push_back(ctx.unsqueeze(cast_if_needed(ctx, ctx.value_of(fx), meta ? meta->dtype : DType::kUnknown, type), {dim}));
  }
  if (inputs.size() == 1) return emitted(ctx, inputs.front());
  return emitted(ctx, ctx.concat(inputs, dim));
}

// Splits `x` along `dim` into the node's outputs with the given 1-D sizes value.
RuleResult emit_split(EmitContext& ctx, const std::string& x, int64_t dim, const std::string& sizes) {
  const int count = static_cast<int>(ctx.output_count());
  if (count == 1) return emitted(ctx, x);
  const std::vector<std::string> parts = ctx.emit("Split", {x, sizes}, {Attr("axis", dim)}, count);
  for (int i = 0; i < count; ++i) ctx.set_output(static_cast<size_t>(i), parts[static_cast<size_t>(i)]);
  return RuleResult::kEmitted;
}

// Sizes of `count` chunks of `chunk` each, the last one taking what is left of the dim.
std::string chunk_sizes(EmitContext& ctx, const ArgReader& args, int64_t dim, int64_t count, int64_t chunk) {
  const ir::Dim& size = args.meta("self").sizes[dim];
  if (size.is_static()) {
    std::vector<int64_t> sizes(count, chunk);
    sizes.back() = size.as_int() - chunk * (count - 1);
    return ctx.const_i64s(sizes);
  }
  const std::string total = ctx.dim_of(args.tensor("self"), dim);
  const std::string last = ctx.emit("Sub", {total, ctx.const_i64(chunk * (count - 1))});
  return ctx.concat({ctx.const_i64s(std::vector<int64_t>(count - 1, chunk)), ctx.unsqueeze(last, {0})}, 0);
}

// split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
RuleResult aten_split(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", 0), args.rank_of("self"));
  const auto count = static_cast<int64_t>(ctx.output_count());
  const std::string sizes = chunk_sizes(ctx, args, dim, count, args.get_int("split_size"));
  return emit_split(ctx, args.tensor("self"), dim, sizes);
}

// split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]; split.sizes (split_size)
RuleResult aten_split_with_sizes(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", 0), args.rank_of("self"));
  return emit_split(ctx, args.tensor("self"), dim, args.ints_value(args.has("split_sizes") ? "split_sizes" : "split_size"));
}

// chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
RuleResult aten_chunk(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", 0), args.rank_of("self"));
  const auto count = static_cast<int64_t>(ctx.output_count());
  const ir::Dim& size = args.meta("self").sizes[dim];
  if (size.is_static()) {
    const int64_t chunks = args.get_int("chunks");
    const int64_t chunk = (size.as_int() + chunks - 1) / chunks;
    return emit_split(ctx, args.tensor("self"), dim, chunk_sizes(ctx, args, dim, count, chunk));
  }
  // Symbolic size: chunk = ceil(size / chunks), the last part takes the rest.
  const std::string total = ctx.dim_of(args.tensor("self"), dim);
  const int64_t chunks = args.get_int("chunks");
  const std::string chunk = ctx.emit("Div", {ctx.emit("Add", {total, ctx.const_i64(chunks - 1)}), ctx.const_i64(chunks)});
  const std::string chunk_1d = ctx.unsqueeze(chunk, {0});
  std::vector<std::string> pieces(static_cast<size_t>(count - 1), chunk_1d);
  const std::string used = ctx.emit("Mul", {chunk, ctx.const_i64(count - 1)});
  pieces.push_back(ctx.unsqueeze(ctx.emit("Sub", {total, used}), {0}));
  return emit_split(ctx, args.tensor("self"), dim, ctx.concat(pieces, 0));
}

// unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]
RuleResult aten_unbind(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.int_or("dim", 0), args.rank_of("self"));
  const auto count = static_cast<int64_t>(ctx.output_count());
  const std::string x = args.tensor("self");
  for (int64_t i = 0; i < count; ++i)
    if (ctx.output_used(static_cast<size_t>(i)))
      ctx.set_output(static_cast<size_t>(i), ctx.emit("Gather", {x, ctx.const_i64(i)}, {Attr("axis", dim)}));
  return RuleResult::kEmitted;
}

// ---- slicing ----------------------------------------------------------------------------------

// slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)
RuleResult aten_slice(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t dim = normalize_dim(args.int_or("dim", 0), rank);
  const bool start_static = !args.has("start") || args.is_static_int("start");
  const bool end_static = !args.has("end") || args.is_static_int("end");
  const int64_t step = args.int_or("step", 1);
  if (start_static && end_static) {
    const int64_t start = args.int_or("start", 0);
    const int64_t end = args.int_or("end", kInt64Max);
    const ir::Dim& size = args.meta("self").sizes[dim];
    const bool to_the_end = end == kInt64Max || (size.is_static() && end >= size.as_int());
    if (start == 0 && to_the_end && step == 1) return emitted(ctx, args.tensor("self"));
  }
  auto bound = [&](const std::string& name, int64_t fallback) {
    if (!args.has(name)) return ctx.const_i64s({fallback});
    if (args.is_static_int(name)) return ctx.const_i64s({args.get_int(name)});
    return ctx.unsqueeze(args.int_value(name), {0});
  };
  return emitted(ctx, ctx.emit("Slice", {args.tensor("self"), bound("start", 0), bound("end", kInt64Max),
                                         ctx.const_i64s({dim}), ctx.const_i64s({step})}));
}

// narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)
// narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a): start a 0-d
// integer tensor (the default IR keeps this overload; core IR writes slice).
RuleResult aten_narrow(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  std::string start = args.is_tensor("start") ? ctx.reshape(cast_if_needed(ctx, args.tensor("start"), args.dtype_of("start"), ir::DType::kInt64),
                                                             ctx.const_i64s({}))
                                              : args.int_value("start");
  // A negative start counts from the end; made non-negative first, since start + length is 0
  // when the slice reaches the end, and a Slice ending at 0 would be empty.
  if (!args.is_static_int("start") || args.get_int("start") < 0) {
    const std::string wrapped = ctx.emit("Add", {start, ctx.size_of(args.tensor_fx("self"), dim)});
    start = args.is_static_int("start") ? wrapped
                                        : ctx.emit("Where", {ctx.emit("Less", {start, ctx.const_i64(0)}), wrapped, start});
  }
  const std::string end = ctx.emit("Add", {start, args.int_value("length")});
  return emitted(ctx, ctx.emit("Slice", {args.tensor("self"), ctx.unsqueeze(start, {0}), ctx.unsqueeze(end, {0}),
                                         ctx.const_i64s({dim})}));
}

// resize(Tensor self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor; resize_as(Tensor
// self, Tensor the_template, *, MemoryFormat? memory_format=None) -> Tensor: resize_'s functional
// forms, self's first elements (row-major) in the new shape. Where the result is larger, torch's new
// elements are uninitialized memory, so only a result no larger than self converts (static sizes).
RuleResult aten_resize(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  auto static_numel = [](const ir::TensorMeta* meta) -> std::optional<int64_t> {
    if (meta == nullptr) return std::nullopt;
    int64_t n = 1;
    for (const ir::Dim& d : meta->sizes) {
      if (!d.is_static()) return std::nullopt;
      n *= d.as_int();
    }
    return n;
  };
  const auto have = static_numel(&args.meta("self")), want = static_numel(args.out_meta());
  PT2ONNX_CHECK(have && want && *want <= *have, ErrorCode::kUnsupported,
                "resize that grows the tensor (torch's new elements are uninitialized memory) or has symbolic sizes");
  std::vector<int64_t> sizes;
  for (const ir::Dim& d : args.out_meta()->sizes) sizes.push_back(d.as_int());
  const std::string flat = ctx.reshape(args.tensor("self"), ctx.const_i64s({-1}));
  const std::string prefix = ctx.emit("Slice", {flat, ctx.const_i64s({0}), ctx.const_i64s({*want})});
  std::vector<Attr> attrs;
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) attrs.emplace_back("allowzero", 1);
  return emitted(ctx, ctx.emit("Reshape", {prefix, ctx.const_i64s(sizes)}, attrs));
}

// select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)
RuleResult aten_select(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  return emitted(ctx, ctx.emit("Gather", {args.tensor("self"), args.int_value("index")}, {Attr("axis", dim)}));
}

// flip(Tensor self, int[] dims) -> Tensor
RuleResult aten_flip(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<int64_t> dims = normalize_dims(args.ints("dims"), args.rank_of("self"));
  if (dims.empty()) return emitted(ctx, args.tensor("self"));
  const std::vector<int64_t> starts(dims.size(), -1), ends(dims.size(), kInt64Min), steps(dims.size(), -1);
  return emitted(ctx, ctx.emit("Slice", {args.tensor("self"), ctx.const_i64s(starts), ctx.const_i64s(ends),
                                         ctx.const_i64s(dims), ctx.const_i64s(steps)}));
}

// diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a): dim1 and dim2 are
// moved last and flattened; the diagonal is every (cols + 1)-th element from its first one, and
// becomes the last dim of the result as in torch. Sizes may be symbolic.
RuleResult aten_diagonal(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t dim1 = normalize_dim(args.int_or("dim1", 0), rank), dim2 = normalize_dim(args.int_or("dim2", 1), rank);
  PT2ONNX_CHECK(dim1 != dim2, ErrorCode::kUnsupported, "diagonal with dim1 == dim2");
  const int64_t offset = args.int_or("offset", 0);
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim1 && i != dim2) perm.push_back(i);
  perm.push_back(dim1);
  perm.push_back(dim2);
  std::string x = args.tensor("self");
  if (perm != range(0, rank)) x = ctx.transpose(x, perm);
  const std::string& fx = args.tensor_fx("self");
  const std::string rows = ctx.size_of(fx, dim1), cols = ctx.size_of(fx, dim2);
  const std::string off = ctx.const_i64(offset < 0 ? -offset : offset);
  // Length min(rows, cols - offset) above the main diagonal, min(rows + offset, cols) below; >= 0.
  const std::string length =
      offset >= 0 ? ctx.emit("Min", {rows, ctx.emit("Sub", {cols, off})}) : ctx.emit("Min", {ctx.emit("Sub", {rows, off}), cols});
  const std::string count = ctx.emit("Max", {length, ctx.const_i64(0)});
  const std::string first = offset >= 0 ? off : ctx.emit("Mul", {off, cols});
  const std::string step = ctx.emit("Add", {cols, ctx.const_i64(1)});
  const std::string index = ctx.emit("Range", {first, ctx.emit("Add", {first, ctx.emit("Mul", {count, step})}), step});
  const std::string flat_size = ctx.unsqueeze(ctx.emit("Mul", {rows, cols}), {0});
  const std::string flat = ctx.reshape(x, ctx.concat({ctx.shape_slice(x, 0, rank - 2), flat_size}, 0));
  return emitted(ctx, ctx.emit("Gather", {flat, index}, {Attr("axis", rank - 2)}));
}

// roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor: Slice + Concat per dim
RuleResult aten_roll(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const std::vector<int64_t> shifts = args.ints("shifts");
  std::vector<int64_t> dims = args.has("dims") ? normalize_dims(args.ints("dims"), rank) : std::vector<int64_t>{};
  const bool flat = dims.empty();  // no dims: roll the flattened tensor, then restore the shape
  std::string x = flat ? ctx.reshape(args.tensor("self"), ctx.const_i64s({-1})) : args.tensor("self");
  if (flat) dims = {0};
  PT2ONNX_CHECK(dims.size() == shifts.size(), ErrorCode::kUnsupported, "roll with different numbers of shifts and dims");
  for (size_t i = 0; i < dims.size(); ++i) {
    // The last (shift mod size) elements move to the front. An empty axis has nothing to move:
    // the divisor is kept at 1 or more (onnxruntime refuses a Mod by a constant 0).
    const std::string size = flat ? ctx.dim_of(x, 0) : ctx.size_of(args.tensor_fx("self"), dims[i]);
    const std::string divisor = ctx.emit("Max", {size, ctx.const_i64(1)});
    const std::string shift = ctx.emit("Mod", {ctx.const_i64(shifts[i]), divisor}, {Attr("fmod", 0)});
    const std::string split = ctx.unsqueeze(ctx.emit("Sub", {size, shift}), {0});
    const std::string axes = ctx.const_i64s({dims[i]});
    const std::string tail = ctx.emit("Slice", {x, split, ctx.const_i64s({kInt64Max}), axes});
    const std::string head = ctx.emit("Slice", {x, ctx.const_i64s({0}), split, axes});
    x = ctx.concat({tail, head}, dims[i]);
  }
  return emitted(ctx, flat ? ctx.reshape(x, ctx.shape_of(args.tensor("self"))) : x);
}

// repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor
RuleResult aten_repeat_interleave(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::string x = args.tensor("self");
  const std::string& fx = args.tensor_fx("self");
  int64_t rank = args.rank_of("self");
  int64_t dim = 0;
  if (args.has("dim")) {
    dim = normalize_dim(args.get_int("dim"), rank);
  } else {
    x = ctx.reshape(x, ctx.const_i64s({-1}));  // no dim: over the flattened tensor
    rank = 1;
  }
  // [..., n, ...] -> [..., n, r, ...] -> [..., n*r, ...]
  const std::string repeats = ctx.unsqueeze(args.int_value("repeats"), {0});
  const std::string shape = args.has("dim") ? sizes_value(ctx, fx, range(0, rank)) : ctx.shape_of(x);
  const std::string before = ctx.emit("Slice", {shape, ctx.const_i64s({0}), ctx.const_i64s({dim + 1})});
  const std::string after = ctx.emit("Slice", {shape, ctx.const_i64s({dim + 1}), ctx.const_i64s({kInt64Max})});
  const std::string expanded = ctx.emit("Expand", {ctx.unsqueeze(x, {dim + 1}), ctx.concat({before, repeats, after}, 0)});
  const std::string merged = ctx.emit("Mul", {ctx.emit("Slice", {shape, ctx.const_i64s({dim}), ctx.const_i64s({dim + 1})}), repeats});
  const std::string lead = ctx.emit("Slice", {shape, ctx.const_i64s({0}), ctx.const_i64s({dim})});
  return emitted(ctx, ctx.reshape(expanded, ctx.concat({lead, merged, after}, 0)));
}

// pixel_shuffle(Tensor self, int upscale_factor) -> Tensor: DepthToSpace in CRD order; for other
// types than float, double and uint8, which onnxruntime's CPU DepthToSpace lacks, its reshapes:
// [N, C*r*r, H, W] -> [N, C, r, r, H, W] -> [N, C, H, r, W, r] -> [N, C, H*r, W*r].
RuleResult aten_pixel_shuffle(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.rank_of("self") == 4, ErrorCode::kUnsupported, "pixel_shuffle of a tensor that is not 4-D");
  const int64_t r = args.get_int("upscale_factor");
  const DType type = args.dtype_of("self");
  if (type == DType::kFloat32 || type == DType::kFloat64 || type == DType::kUInt8)
    return emitted(ctx, ctx.emit("DepthToSpace", {args.tensor("self")}, {Attr("blocksize", r), Attr("mode", "CRD")}));
  const std::string& fx = args.tensor_fx("self");
  const std::string n = ctx.unsqueeze(ctx.size_of(fx, 0), {0});
  const std::string c = ctx.unsqueeze(ctx.emit("Div", {ctx.size_of(fx, 1), ctx.const_i64(r * r)}), {0});
  const std::string h = ctx.unsqueeze(ctx.size_of(fx, 2), {0}), w = ctx.unsqueeze(ctx.size_of(fx, 3), {0});
  const std::string rr = ctx.const_i64s({r});
  const std::string split = ctx.reshape(args.tensor("self"), ctx.concat({n, c, rr, rr, h, w}, 0));
  const std::string moved = ctx.transpose(split, {0, 1, 4, 2, 5, 3});
  return emitted(ctx, ctx.reshape(moved, ctx.concat({n, c, ctx.emit("Mul", {h, rr}), ctx.emit("Mul", {w, rr})}, 0)));
}

// pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor: SpaceToDepth matches torch's order
RuleResult aten_pixel_unshuffle(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.rank_of("self") == 4, ErrorCode::kUnsupported, "pixel_unshuffle of a tensor that is not 4-D");
  const int64_t r = args.get_int("downscale_factor");
  // [N, C, H*r, W*r] -> [N, C, H, r, W, r] -> [N, C, r, r, H, W] -> [N, C*r*r, H, W]
  const std::string& fx = args.tensor_fx("self");
  const std::string x = args.tensor("self");
  const std::string n = ctx.unsqueeze(ctx.size_of(fx, 0), {0}), c = ctx.unsqueeze(ctx.size_of(fx, 1), {0});
  const std::string h = ctx.unsqueeze(ctx.emit("Div", {ctx.size_of(fx, 2), ctx.const_i64(r)}), {0});
  const std::string w = ctx.unsqueeze(ctx.emit("Div", {ctx.size_of(fx, 3), ctx.const_i64(r)}), {0});
  const std::string rr = ctx.const_i64s({r});
  const std::string split = ctx.reshape(x, ctx.concat({n, c, h, rr, w, rr}, 0));
  const std::string moved = ctx.transpose(split, {0, 1, 3, 5, 2, 4});
  const std::string channels = ctx.emit("Mul", {c, ctx.const_i64s({r * r})});
  return emitted(ctx, ctx.reshape(moved, ctx.concat({n, channels, h, w}, 0)));
}

// ---- padding ----------------------------------------------------------------------------------

// ONNX pads (all begins, then all ends) from torch's pad list (last dim first, begin/end pairs).
std::vector<int64_t> onnx_pads(const std::vector<int64_t>& pad, int64_t rank) {
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
  for (size_t j = 0; j * 2 + 1 < pad.size(); ++j) {
    const int64_t axis = rank - 1 - static_cast<int64_t>(j);
    pads[static_cast<size_t>(axis)] = pad[2 * j];
    pads[static_cast<size_t>(rank + axis)] = pad[2 * j + 1];
  }
  return pads;
}

// Circular padding by slices (Pad's "wrap" mode is opset 19, and crops differently): per axis,
// negative amounts cropped first, as torch does, then the last `begin` elements of the cropped
// tensor before and its first `end` after, the periodic extension torch computes.
std::string circular_pad_by_concat(EmitContext& ctx, std::string x, const std::vector<int64_t>& pads, int64_t rank) {
  for (int64_t axis = 0; axis < rank; ++axis) {
    int64_t begin = pads[static_cast<size_t>(axis)], end = pads[static_cast<size_t>(rank + axis)];
    if (begin < 0 || end < 0) {
      const int64_t from = std::max<int64_t>(-begin, 0), to = end < 0 ? end : kInt64Max;
      x = ctx.emit("Slice", {x, ctx.const_i64s({from}), ctx.const_i64s({to}), ctx.const_i64s({axis})});
      begin = std::max<int64_t>(begin, 0);
      end = std::max<int64_t>(end, 0);
    }
    if (begin == 0 && end == 0) continue;
    const std::string axes = ctx.const_i64s({axis});
    std::vector<std::string> parts;
    if (begin > 0) parts.push_back(ctx.emit("Slice", {x, ctx.const_i64s({-begin}), ctx.const_i64s({kInt64Max}), axes}));
    parts.push_back(x);
    if (end > 0) parts.push_back(ctx.emit("Slice", {x, ctx.const_i64s({0}), ctx.const_i64s({end}), axes}));
    x = ctx.concat(parts, axis);
  }
  return x;
}

// Replicate padding with a negative amount: torch reads the uncropped input for every output
// element, out[o] = x[clamp(o - begin, 0, n - 1)] along each axis, which one Gather per axis gives.
std::string replicate_pad_by_gather(EmitContext& ctx, const ArgReader& args, std::string x, const std::vector<int64_t>& pads) {
  const int64_t rank = args.rank_of("self");
  for (int64_t axis = 0; axis < rank; ++axis) {
    const int64_t begin = pads[static_cast<size_t>(axis)], end = pads[static_cast<size_t>(rank + axis)];
    if (begin == 0 && end == 0) continue;
    const std::string n = ctx.size_of(args.tensor_fx("self"), axis);
    const std::string count = ctx.emit("Add", {n, ctx.const_i64(begin + end)});
    const std::string out = ctx.emit("Range", {ctx.const_i64(0), ctx.emit("Max", {count, ctx.const_i64(0)}), ctx.const_i64(1)});
    const std::string last = ctx.emit("Sub", {n, ctx.const_i64(1)});
    const std::string source = ctx.emit("Max", {ctx.emit("Min", {ctx.emit("Sub", {out, ctx.const_i64(begin)}), last}), ctx.const_i64(0)});
    x = ctx.emit("Gather", {x, source}, {Attr("axis", axis)});
  }
  return x;
}

RuleResult emit_pad(EmitContext& ctx, const ArgReader& args, const std::string& mode, double value,
                    const std::string& pad_arg = "pad") {
  const std::vector<int64_t> pads = onnx_pads(args.ints(pad_arg), args.rank_of("self"));
  const bool negative = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; });
  std::string onnx_mode = mode;
  if (mode == "replicate") {
    if (negative) return emitted(ctx, replicate_pad_by_gather(ctx, args, args.tensor("self"), pads));
    onnx_mode = "edge";
  }
  if (mode == "circular") {
    if (ctx.opset() < 19 || negative) return emitted(ctx, circular_pad_by_concat(ctx, args.tensor("self"), pads, args.rank_of("self")));
    onnx_mode = "wrap";
  }
  PT2ONNX_CHECK(onnx_mode == "constant" || onnx_mode == "reflect" || onnx_mode == "edge" || onnx_mode == "wrap",
                ErrorCode::kUnsupported, "padding mode '" + mode + "'");
  // torch indexes the uncropped input for the padded part (replicate of (-4, 5) on 4 elements
  // repeats the last one); ONNX leaves negative pads of these modes to the runtime, which crops
  // first or refuses. Only constant padding crops the same way in both.
  for (int64_t p : pads)
    PT2ONNX_CHECK(p >= 0 || onnx_mode == "constant", ErrorCode::kUnsupported, "negative " + mode + " padding (cropping)");
  std::vector<std::string> inputs = {args.tensor("self"), ctx.const_i64s(pads)};
  if (onnx_mode == "constant") inputs.push_back(ctx.const_scalar(value, args.dtype_of("self")));
  return emitted(ctx, ctx.emit("Pad", inputs, {Attr("mode", onnx_mode)}));
}

// constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor
RuleResult aten_constant_pad_nd(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emit_pad(ctx, args, "constant", args.float_or("value", 0));
}

// pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor
RuleResult aten_pad(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emit_pad(ctx, args, args.string_or("mode", "constant"), args.float_or("value", 0));
}

// reflection_pad{1,2,3}d(Tensor self, SymInt[2|4|6] padding) -> Tensor; replication_pad*d with
// mode "replicate". Negative reflect amounts (torch crops) are refused by emit_pad.
RuleResult mode_pad(EmitContext& ctx, const ir::Node& node, const std::string& mode) {
  ArgReader args(ctx, node);
  return emit_pad(ctx, args, mode, 0, "padding");
}
// _pad_circular(Tensor self, SymInt[] pad) -> Tensor
RuleResult aten_pad_circular(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emit_pad(ctx, args, "circular", 0);
}
// _pad_enum(Tensor self, SymInt[] pad, int mode, float? value=None) -> Tensor: mode numbered as
// torch's padding_mode enum (0 reflect, 1 replicate, 2 circular, 3 constant).
RuleResult aten_pad_enum(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  static const char* const kModes[] = {"reflect", "replicate", "circular", "constant"};
  const int64_t mode = args.get_int("mode");
  PT2ONNX_CHECK(mode >= 0 && mode < 4, ErrorCode::kUnsupported, "_pad_enum with mode " + std::to_string(mode));
  return emit_pad(ctx, args, kModes[mode], args.float_or("value", 0));
}
RuleResult aten_reflection_pad(EmitContext& ctx, const ir::Node& node) { return mode_pad(ctx, node, "reflect"); }
RuleResult aten_replication_pad(EmitContext& ctx, const ir::Node& node) { return mode_pad(ctx, node, "replicate"); }


// ---- views torch spells several ways ------------------------------------------------------------

// `self` with its axes permuted by `perm` (the identity is no node).
RuleResult permuted(EmitContext& ctx, const ArgReader& args, const std::vector<int64_t>& perm) {
  if (perm == range(0, static_cast<int64_t>(perm.size()))) return emitted(ctx, args.tensor("self"));
  return emitted(ctx, ctx.transpose(args.tensor("self"), perm));
}

// numpy_T(Tensor(a) self) -> Tensor(a)   (every axis reversed)
RuleResult aten_numpy_t(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::vector<int64_t> perm = range(0, args.rank_of("self"));
  std::reverse(perm.begin(), perm.end());
  return permuted(ctx, args, perm);
}

// mT(Tensor(a) self) -> Tensor(a); mH alike (real tensors: the adjoint is the transpose)
RuleResult aten_mt(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank >= 2, ErrorCode::kUnsupported, "mT/mH of a tensor of rank below 2");
  PT2ONNX_CHECK(!is_complex(args.dtype_of("self")), ErrorCode::kUnsupported, "mH of a complex tensor");
  std::vector<int64_t> perm = range(0, rank);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return permuted(ctx, args, perm);
}

// view_as(Tensor(a) self, Tensor other) -> Tensor(a)
RuleResult aten_view_as(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.reshape(args.tensor("self"), ctx.shape_of(args.tensor("other"))));
}

// tile(Tensor self, SymInt[] dims) -> Tensor   (repeat, with fewer dims than the rank meaning leading 1s)
RuleResult aten_tile(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  std::vector<ir::SymIntArg> dims = args.sym_ints("dims");
  std::string x = args.tensor("self");
  const auto count = static_cast<int64_t>(dims.size());
  if (count > rank) x = ctx.unsqueeze(x, range(0, count - rank));
  if (count < rank) dims.insert(dims.begin(), static_cast<size_t>(rank - count), ir::SymIntArg{int64_t{1}});
  return emitted(ctx, ctx.emit("Tile", {x, ctx.sym_ints(dims)}));
}

// unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)   (windows of `size` every
// `step` along `dimension`, which becomes the window count; the window is a new last axis)
RuleResult aten_unfold(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t size = args.get_int("size"), step = args.get_int("step");
  PT2ONNX_CHECK(size >= 0 && step > 0, ErrorCode::kUnsupported, "unfold with a negative size or a step below 1");
  const std::string x = args.tensor("self");
  if (rank == 0) {
    // torch reads a 0-d tensor as one element: one window of `size` (0 or 1) elements, [size].
    PT2ONNX_CHECK(size <= 1, ErrorCode::kUnsupported, "unfold of a 0-d tensor with a size above 1");
    const std::string one = ctx.unsqueeze(x, {0});
    return emitted(ctx, size == 1 ? one : ctx.emit("Slice", {one, ctx.const_i64s({0}), ctx.const_i64s({0}), ctx.const_i64s({0})}));
  }
  const int64_t dim = normalize_dim(args.get_int("dimension"), rank);
  // starts = range(0, L - size + 1, step); indices[w, j] = starts[w] + j
  const std::string end = ctx.emit("Add", {ctx.emit("Sub", {ctx.size_of(args.tensor_fx("self"), dim), ctx.const_i64(size)}), ctx.const_i64(1)});
  const std::string starts = ctx.emit("Range", {ctx.const_i64(0), end, ctx.const_i64(step)});
  const std::string indices = ctx.emit("Add", {ctx.unsqueeze(starts, {1}), ctx.const_i64s(range(0, size))});
  const std::string windows = ctx.emit("Gather", {x, indices}, {Attr("axis", dim)});  // [..., W, size, ...]
  if (dim == rank - 1) return emitted(ctx, windows);
  std::vector<int64_t> perm = range(0, rank + 1);
  perm.erase(perm.begin() + dim + 1);
  perm.push_back(dim + 1);
  return emitted(ctx, ctx.transpose(windows, perm));
}


// broadcast_tensors(Tensor[] tensors) -> Tensor[]   (each expanded to the common shape: Expand
// broadcasts both ways, so expanding by every other operand's shape in turn reaches it)
RuleResult aten_broadcast_tensors(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<std::string> xs = args.tensors("tensors");
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!ctx.output_used(i)) continue;
    std::string y = xs[i];
    for (size_t j = 0; j < xs.size(); ++j)
      if (j != i) y = ctx.emit("Expand", {y, ctx.shape_of(xs[j])});
    ctx.set_output(i, y);
  }
  return RuleResult::kEmitted;
}


// Window indices along one axis of size `size` (an int64 0-D value): [starts, kernel] with
// starts = range(0, size - dilation * (kernel - 1), stride), entry = start + j * dilation.
std::string window_indices(EmitContext& ctx, const std::string& size, int64_t kernel, int64_t dilation, int64_t stride) {
  const std::string end = ctx.emit("Sub", {size, ctx.const_i64(dilation * (kernel - 1))});
  const std::string starts = ctx.emit("Range", {ctx.const_i64(0), end, ctx.const_i64(stride)});
  std::vector<int64_t> offsets;
  for (int64_t j = 0; j < kernel; ++j) offsets.push_back(j * dilation);
  return ctx.emit("Add", {ctx.unsqueeze(starts, {1}), ctx.const_i64s(offsets)});
}

// im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor
//   (F.unfold: [N, C, H, W] -> [N, C * kh * kw, oh * ow], the padded input's sliding windows)
RuleResult aten_im2col(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank == 3 || rank == 4, ErrorCode::kUnsupported, "im2col of a tensor of rank " + std::to_string(rank));
  auto pair = [&](const char* name) {
    std::vector<int64_t> v = args.ints(name);
    if (v.size() == 1) v.push_back(v[0]);
    PT2ONNX_CHECK(v.size() == 2, ErrorCode::kUnsupported, std::string("im2col ") + name + " is not two ints");
    return v;
  };
  const std::vector<int64_t> kernel = pair("kernel_size"), dilation = pair("dilation"), padding = pair("padding"),
                             stride = pair("stride");
  std::string x = rank == 3 ? ctx.unsqueeze(args.tensor("self"), {0}) : args.tensor("self");
  if (padding[0] || padding[1])
    x = ctx.emit("Pad", {x, ctx.const_i64s({0, 0, padding[0], padding[1], 0, 0, padding[0], padding[1]})});
  const std::string rows = window_indices(ctx, ctx.dim_of(x, 2), kernel[0], dilation[0], stride[0]);
  const std::string cols = window_indices(ctx, ctx.dim_of(x, 3), kernel[1], dilation[1], stride[1]);
  // [N, C, oh, kh, W] -> [N, C, oh, kh, ow, kw] -> [N, C, kh, kw, oh, ow] -> [N, C*kh*kw, oh*ow]
  const std::string windows = ctx.emit("Gather", {ctx.emit("Gather", {x, rows}, {Attr("axis", 2)}), cols}, {Attr("axis", 4)});
  const std::string ordered = ctx.transpose(windows, {0, 1, 3, 5, 2, 4});
  // The shape is spelled out: with a batch of 0, Reshape cannot infer a -1.
  const std::string channels = ctx.emit("Mul", {ctx.dim_of(x, 1), ctx.const_i64(kernel[0] * kernel[1])});
  const std::string blocks = ctx.emit("Mul", {ctx.dim_of(rows, 0), ctx.dim_of(cols, 0)});
  const std::string y = ctx.reshape(ordered, ctx.concat({ctx.shape_slice(x, 0, 1), ctx.unsqueeze(channels, {0}), ctx.unsqueeze(blocks, {0})}, 0));
  return emitted(ctx, rank == 3 ? ctx.squeeze(y, {0}) : y);
}

}  // namespace

void register_shape_rules(RuleTable& t) {
  t.add("aten.clone.default", aten_passthrough);
  t.add("aten.contiguous.default", aten_passthrough);
  t.add("aten.alias.default", aten_passthrough);
  t.add("aten.detach.default", aten_passthrough);
  t.add("aten.detach_.default", aten_passthrough);
  t.add("aten.lift_fresh_copy.default", aten_passthrough);
  t.add("aten.dropout.default", aten_dropout);
  t.add("aten.dropout_.default", aten_dropout);
  t.add("aten.feature_dropout.default", aten_dropout);
  t.add("aten.as_strided.default", aten_as_strided, "needs static strides and storage offset");
  t.add("aten.as_strided_copy.default", aten_as_strided, "needs static strides and storage offset");
  t.add("aten.feature_dropout_.default", aten_dropout);
  t.add("aten.alpha_dropout_.default", aten_dropout);
  t.add("aten.feature_alpha_dropout.default", aten_dropout);
  t.add("aten.feature_alpha_dropout_.default", aten_dropout);
  t.add("aten.alpha_dropout.default", aten_dropout);
  t.add("aten.native_dropout.default", aten_native_dropout);

  t.add("aten.view.default", aten_view);
  t.add("aten._unsafe_view.default", aten_view);
  t.add("aten.view_copy.default", aten_view);
  t.add("aten.reshape.default", aten_view);
  t.add("aten._reshape_alias.default", aten_view);
  t.add("aten.flatten.using_ints", aten_flatten);
  t.add("aten.unflatten.int", aten_unflatten);
  t.add("aten.permute.default", aten_permute);
  t.add("aten.transpose.int", aten_transpose);
  t.add("aten.unsqueeze.default", aten_unsqueeze);
  t.add("aten.unsqueeze_.default", aten_unsqueeze);
  t.add("aten.squeeze.dim", aten_squeeze);
  t.add("aten.squeeze.dims", aten_squeeze);
  t.add("aten.squeeze.default", aten_squeeze);
  t.add("aten.expand.default", aten_expand);
  t.add("aten.expand_as.default", aten_expand_as);
  t.add("aten.repeat.default", aten_repeat);

  t.add("aten.cat.default", aten_cat);
  t.add("aten.concat.default", aten_cat);
  t.add("aten.stack.default", aten_stack);
  t.add("aten.split.Tensor", aten_split);
  t.add("aten.split_with_sizes.default", aten_split_with_sizes);
  t.add("aten.split.sizes", aten_split_with_sizes);  // split_size, a SymInt[] there
  t.add("aten.chunk.default", aten_chunk);
  t.add("aten.unbind.int", aten_unbind);

  t.add("aten.slice.Tensor", aten_slice);
  t.add("aten.narrow.default", aten_narrow);
  t.add("aten.narrow.Tensor", aten_narrow);
  t.add("aten.resize.default", aten_resize);
  t.add("aten.resize_as.default", aten_resize);
  t.add("aten.select.int", aten_select);
  t.add("aten.flip.default", aten_flip);
  t.add("aten.diagonal.default", aten_diagonal);
  t.add("aten.diagonal_copy.default", aten_diagonal);
  t.add("aten.roll.default", aten_roll);
  t.add("aten.repeat_interleave.self_int", aten_repeat_interleave);
  t.add("aten.pixel_shuffle.default", aten_pixel_shuffle);
  t.add("aten.pixel_unshuffle.default", aten_pixel_unshuffle);

  t.add("aten.constant_pad_nd.default", aten_constant_pad_nd);
  t.add("aten.pad.default", aten_pad);
  t.add("aten._pad_circular.default", aten_pad_circular);
  t.add("aten._pad_enum.default", aten_pad_enum);
  t.add("aten.reflection_pad1d.default", aten_reflection_pad);
  t.add("aten.reflection_pad2d.default", aten_reflection_pad);
  t.add("aten.reflection_pad3d.default", aten_reflection_pad);
  t.add("aten.replication_pad1d.default", aten_replication_pad);
  t.add("aten.replication_pad2d.default", aten_replication_pad);
  t.add("aten.replication_pad3d.default", aten_replication_pad);
  t.add("aten.numpy_T.default", aten_numpy_t);
  t.add("aten.mT.default", aten_mt);
  t.add("aten.mH.default", aten_mt);
  t.add("aten.adjoint.default", aten_mt);
  t.add("aten.view_as.default", aten_view_as);
  t.add("aten.reshape_as.default", aten_view_as);
  t.add("aten.broadcast_to.default", aten_expand);
  t.add("aten.tile.default", aten_tile);
  t.add("aten.unfold.default", aten_unfold);
  t.add("aten.broadcast_tensors.default", aten_broadcast_tensors);
  t.add("aten.im2col.default", aten_im2col);
}

}  // namespace pt2onnx::translate
