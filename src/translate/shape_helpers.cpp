// EmitContext's shape helpers: cached Shape/dimension values and the small reshaping ops that
// every family uses, with the opset differences (Reduce* axes) handled in one place.
#include <limits>

#include "common/error.h"
#include "translate/emit_context.h"

namespace pt2onnx::translate {

std::string EmitContext::shape_of(const std::string& x) {
  auto it = shapes_.find(x);
  if (it != shapes_.end() && visible_here(it->second)) return it->second;
  const std::string name = fresh_name(x + "_shape");
  append_node("Shape", {x}, std::span(&name, 1), {});
  pin(name);
  shapes_[x] = name;
  return name;
}

std::string EmitContext::dim_of(const std::string& x, int64_t axis) {
  const auto key = std::make_pair(x, axis);
  auto it = dims_.find(key);
  if (it != dims_.end() && visible_here(it->second)) return it->second;
  const std::string shape = shape_of(x);
  const std::string index = const_i64(axis);
  const std::string name = fresh_name(x + "_dim" + (axis < 0 ? "neg" + std::to_string(-axis) : std::to_string(axis)));
  append_node("Gather", {shape, index}, std::span(&name, 1), {Attr("axis", 0)});
  pin(name);
  dims_[key] = name;
  return name;
}

std::string EmitContext::size_of(const std::string& fx_name, int64_t axis) {
  const ir::TensorMeta* m = meta(fx_name);
  if (m) {
    const auto rank = static_cast<int64_t>(m->sizes.size());
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (a >= 0 && a < rank && m->sizes[a].is_static()) return const_i64(m->sizes[a].as_int());
  }
  return dim_of(value_of(fx_name), axis);
}

std::string EmitContext::shape_slice(const std::string& x, int64_t start, int64_t end) {
  return emit("Slice", {shape_of(x), const_i64s({start}), const_i64s({end})});
}

std::string EmitContext::unsqueeze(const std::string& x, const std::vector<int64_t>& axes) {
  return emit("Unsqueeze", {x, const_i64s(axes)});
}

std::string EmitContext::squeeze(const std::string& x, const std::vector<int64_t>& axes) {
  if (axes.empty()) return emit("Squeeze", {x});
  return emit("Squeeze", {x, const_i64s(axes)});
}

std::string EmitContext::reshape(const std::string& x, const std::string& shape) {
  return emit("Reshape", {x, shape});
}

std::string EmitContext::concat(const std::vector<std::string>& xs, int64_t axis) {
  if (xs.size() == 1) return xs.front();
  return emit("Concat", xs, {Attr("axis", axis)});
}

std::string EmitContext::transpose(const std::string& x, const std::vector<int64_t>& perm) {
  return emit("Transpose", {x}, {Attr("perm", perm)});
}

std::string EmitContext::reduce(std::string_view op_type, const std::string& x,
                                const std::optional<std::vector<int64_t>>& axes, bool keepdims) {
  const int64_t keep = keepdims ? 1 : 0;
  if (!axes || axes->empty()) return emit(op_type, {x}, {Attr("keepdims", keep)});
  // ReduceSum took axes as an input at opset 13, the other Reduce ops at opset 18.
  const bool axes_as_input = op_type == "ReduceSum" || opset_ >= 18;
  if (axes_as_input) return emit(op_type, {x, const_i64s(*axes)}, {Attr("keepdims", keep)});
  return emit(op_type, {x}, {Attr("axes", *axes), Attr("keepdims", keep)});
}

}  // namespace pt2onnx::translate
