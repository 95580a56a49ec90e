// Types a scope declares about its own values, with the caller's oracle as fallback.
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

std::optional<ValueType> from_value_info(const onnx::ValueInfoProto& info) {
  if (!info.type().has_tensor_type()) return std::nullopt;
  const onnx::TypeProto_Tensor& tensor = info.type().tensor_type();
  ValueType t;
  t.elem_type = tensor.elem_type();
  if (tensor.has_shape()) {
    t.shape_known = true;
    for (const onnx::TensorShapeProto_Dimension& d : tensor.shape().dim()) {
      t.dims.push_back(d.has_dim_value() ? std::optional<int64_t>(d.dim_value()) : std::nullopt);
      t.symbols.push_back(d.has_dim_param() ? d.dim_param() : "");
    }
  }
  return t;
}

ValueType from_dims(int32_t elem_type, const std::vector<int64_t>& dims) {
  ValueType t;
  t.elem_type = elem_type;
  t.shape_known = true;
  for (int64_t d : dims) t.dims.emplace_back(d);
  t.symbols.assign(dims.size(), "");
  return t;
}

}  // namespace

bool same_dims(const ValueType& a, size_t a_from, const ValueType& b, size_t b_from, size_t count) {
  if (!a.shape_known || !b.shape_known || a.symbols.size() != a.dims.size() || b.symbols.size() != b.dims.size() ||
      a_from + count > a.dims.size() || b_from + count > b.dims.size())
    return false;
  for (size_t k = 0; k < count; ++k) {
    const std::optional<int64_t>& da = a.dims[a_from + k];
    const std::optional<int64_t>& db = b.dims[b_from + k];
    if (da || db) {
      if (!da || !db || *da != *db) return false;
      continue;
    }
    const std::string& sa = a.symbols[a_from + k];
    if (sa.empty() || sa != b.symbols[b_from + k]) return false;
  }
  return true;
}

bool same_shape(const ValueType& a, const ValueType& b) {
  return a.shape_known && b.shape_known && a.dims.size() == b.dims.size() && same_dims(a, 0, b, 0, a.dims.size());
}

std::optional<ValueType> KnownTypes::lookup(const std::string& name) const {
  auto found = declared_.find(name);
  if (found != declared_.end()) return found->second;
  if (oracle_) return oracle_(name);
  return std::nullopt;
}

KnownTypes known_types(const Body& body) {
  KnownTypes known;
  known.oracle_ = body.types;
  if (body.graph) {
    auto add = [&known](const onnx::ValueInfoProto& info) {
      if (std::optional<ValueType> t = from_value_info(info)) known.declared_[info.name()] = *t;
    };
    for (const auto& v : body.graph->input()) add(v);
    for (const auto& v : body.graph->output()) add(v);
    for (const auto& v : body.graph->value_info()) add(v);
    for (const auto& t : body.graph->initializer())
      known.declared_[t.name()] = from_dims(t.data_type(), {t.dims().begin(), t.dims().end()});
  }
  for (const onnx::NodeProto& node : *body.nodes) {
    if (node.op_type() != "Constant" || !node.domain().empty() || node.output_size() != 1) continue;
    if (node.attribute_size() == 1 && node.attribute(0).name() == "value") {
      const onnx::TensorProto& t = node.attribute(0).t();
      known.declared_[node.output(0)] = from_dims(t.data_type(), {t.dims().begin(), t.dims().end()});
    } else if (std::optional<ConstTensor> c = constant_node_value(node)) {
      known.declared_[node.output(0)] = from_dims(c->elem_type, c->dims);
    }
  }
  return known;
}

}  // namespace pt2onnx::clean
