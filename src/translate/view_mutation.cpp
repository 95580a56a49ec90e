// Writing an in-place update through views back to the base tensor.
#include "translate/view_mutation.h"

#include <limits>
#include <set>

#include "common/error.h"
#include "translate/arg_reader.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
// The longest dim a select write turns into a constant one-hot mask (one bool per element).
constexpr int64_t kMaxSelectMask = 4096;

// The element types onnxruntime's CPU Where takes (not bool, int16 or bfloat16).
bool where_kernel(ir::DType type) {
  switch (type) {
    case ir::DType::kFloat32: case ir::DType::kFloat64: case ir::DType::kFloat16: case ir::DType::kInt8:
    case ir::DType::kUInt8: case ir::DType::kInt32: case ir::DType::kInt64: return true;
    default: return false;
  }
}

}  // namespace

std::string absolute_position(EmitContext& ctx, const ArgReader& args, const std::string& name, int64_t fallback, int64_t dim) {
  if (!args.has(name)) return ctx.const_i64(fallback);
  if (args.is_static_int(name) && args.get_int(name) >= 0) {
    const ir::Dim& size = args.meta("self").sizes[static_cast<size_t>(dim)];
    if (!size.is_static()) return ctx.const_i64(args.get_int(name));
    return ctx.const_i64(std::min(args.get_int(name), size.as_int()));
  }
  const std::string raw = args.int_value(name);
  const std::string size = ctx.size_of(args.tensor_fx("self"), dim);
  const std::string wrapped = ctx.emit("Where", {ctx.emit("Less", {raw, ctx.const_i64(0)}), ctx.emit("Add", {raw, size}), raw});
  return ctx.emit("Min", {ctx.emit("Max", {wrapped, ctx.const_i64(0)}), size});
}

std::string scatter_slice(EmitContext& ctx, const std::string& base, int64_t rank, int64_t dim, const std::string& start,
                          int64_t step, const std::string& src, const std::string& known_count) {
  const std::string count = known_count.empty() ? ctx.dim_of(src, dim) : known_count;
  if (step == 1) {
    // base[:start] ++ src ++ base[start + len(src):] along dim.
    const std::string axes = ctx.const_i64s({dim});
    const std::string end = ctx.emit("Add", {start, count});
    const std::string before = ctx.emit("Slice", {base, ctx.const_i64s({0}), ctx.unsqueeze(start, {0}), axes});
    const std::string after = ctx.emit("Slice", {base, ctx.unsqueeze(end, {0}), ctx.const_i64s({kInt64Max}), axes});
    return ctx.concat({before, src, after}, dim);
  }
  // Strided: ScatterND rows start + i*step of the base with `dim` moved to the front.
  std::vector<int64_t> perm = {dim};
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim) perm.push_back(i);
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  const bool moved = dim != 0;
  const std::string rows = ctx.emit("Add", {start, ctx.emit("Mul", {ctx.emit("Range", {ctx.const_i64(0), count, ctx.const_i64(1)}),
                                                                    ctx.const_i64(step)})});
  const std::string scattered = ctx.emit("ScatterND", {moved ? ctx.transpose(base, perm) : base, ctx.unsqueeze(rows, {1}),
                                                       moved ? ctx.transpose(src, perm) : src});
  return moved ? ctx.transpose(scattered, inverse) : scattered;
}

std::string scatter_select(EmitContext& ctx, const ArgReader& args, int64_t dim, const std::string& src) {
  const std::string base = args.tensor("self");
  const int64_t rank = args.rank_of("self");
  const ir::Dim& size = args.meta("self").sizes[static_cast<size_t>(dim)];
  const std::string placed = ctx.unsqueeze(src, {dim});
  if (args.has("index") && args.is_static_int("index") && size.is_static() && size.as_int() <= kMaxSelectMask &&
      where_kernel(args.dtype_of("self"))) {
    const int64_t index = args.get_int("index") < 0 ? args.get_int("index") + size.as_int() : args.get_int("index");
    if (index >= 0 && index < size.as_int()) {
      // A one-hot mask along dim: Where takes `placed` (broadcast along dim) at the index only.
      onnx::TensorProto mask;
      mask.set_data_type(onnx::TensorProto_DataType_BOOL);
      for (int64_t d = 0; d < rank; ++d) mask.add_dims(d == dim ? size.as_int() : 1);
      for (int64_t i = 0; i < size.as_int(); ++i) mask.add_int32_data(i == index ? 1 : 0);
      return ctx.emit("Where", {ctx.const_tensor(std::move(mask), "select_mask"), placed, base});
    }
  }
  const std::string index = absolute_position(ctx, args, "index", 0, dim);
  return scatter_slice(ctx, base, rank, dim, index, 1, placed, ctx.const_i64(1));
}

namespace {

// The source of `view_node` with the part the view shows replaced by `new_view`.
std::string updated_source(EmitContext& ctx, const ir::Node& view_node, const std::string& new_view) {
  ArgReader args(ctx, view_node);
  const std::string base = args.tensor("self");
  const int64_t rank = args.rank_of("self");
  const std::string& target = view_node.target;
  if (target == "aten.select.int") {
    const int64_t dim = normalize_dim(args.get_int("dim"), rank);
    return scatter_select(ctx, args, dim, new_view);
  }
  if (target == "aten.slice.Tensor") {
    const int64_t dim = normalize_dim(args.int_or("dim", 0), rank);
    const std::string start = absolute_position(ctx, args, "start", 0, dim);
    return scatter_slice(ctx, base, rank, dim, start, args.int_or("step", 1), new_view);
  }
  if (target == "aten.transpose.int") {
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
    if (rank >= 2) std::swap(perm[static_cast<size_t>(normalize_dim(args.get_int("dim0"), rank))],
                             perm[static_cast<size_t>(normalize_dim(args.get_int("dim1"), rank))]);
    return ctx.transpose(new_view, perm);
  }
  if (target == "aten.permute.default") {
    const std::vector<int64_t> perm = normalize_dims(args.ints("dims"), rank);
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    return ctx.transpose(new_view, inverse);
  }
  if (target == "aten.t.default") return rank < 2 ? new_view : ctx.transpose(new_view, {1, 0});
  // view, _unsafe_view, (un)squeeze, alias, detach: same elements, the source's shape.
  return ctx.reshape(new_view, ctx.shape_of(base));
}

}  // namespace

std::vector<Rebinding> write_back_views(EmitContext& ctx, const ir::Graph& graph, const ir::Node& node,
                                        size_t index, const Liveness& liveness) {
  const ir::Argument* self = node.input("self");
  const auto* self_tensor = self ? std::get_if<ir::TensorArg>(self) : nullptr;
  if (!self_tensor || ctx.output_value(0).empty()) return {};

  // Walk up the chain of views, rebuilding each source from the updated view.
  std::vector<Rebinding> rebindings;
  std::set<std::string> chain = {self_tensor->name};
  std::string view = self_tensor->name, value = ctx.output_value(0);
  for (auto it = liveness.views.find(view); it != liveness.views.end(); it = liveness.views.find(view)) {
    const std::string source = view_source(*it->second);
    value = updated_source(ctx, *it->second, value);
    rebindings.push_back({source, value});
    chain.insert(source);
    view = source;
  }

  // Other views of the same base, made before the write and read after it, would be stale.
  const std::string& root = view;
  for (const auto& [other, view_node] : liveness.views) {
    if (chain.count(other)) continue;
    std::string source = other;
    for (auto it = liveness.views.find(source); it != liveness.views.end(); it = liveness.views.find(source))
      source = view_source(*it->second);
    const auto made_at = static_cast<size_t>(view_node - graph.nodes.data());
    auto last = liveness.last_use.find(other);
    const bool read_later = last != liveness.last_use.end() && last->second > index;
    PT2ONNX_CHECK(!(source == root && made_at < index && read_later), ErrorCode::kUnsupported,
                  "view " + other + " of " + root + " is read after " + root + " was updated in place");
  }
  return rebindings;
}

}  // namespace pt2onnx::translate
