// Weight normalisation of two parameters (the convolutional position embedding of wav2vec2,
// HuBERT, WavLM and SEW: aten._weight_norm(v, g, dim), translated as Mul(v, Div(g, ReduceL2(v,
// every axis but dim, keepdims)))), or Abs(v) for a 1-D v, gives the same weight every run: v
// scaled per channel of `dim` by g / ||v||. It becomes one derived weight
// (model::DerivedWeight::Scaled) that emit computes tile by tile while it writes it. The norms
// are sums of squares read here tile by tile in double precision (WeightAccess), so memory stays
// bounded whatever v's size (wav2vec2-base's v is 19 MB). Only with folding on (--no-fold keeps
// v and g as in the archive), and not where the three nodes are all of a --hiera instance (the
// function asked for would be left empty).
#include <cmath>

#include "clean/clean.h"
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

// The scaling of a weight norm: factor c applies to elements i with (i / inner) % channels == c.
struct ChannelLayout {
  int64_t channels = 1;
  int64_t inner = 1;
  int64_t axis = -1;  // the kept axis; -1: every axis is reduced (one channel)
};

// The reduced axes of a ReduceL2 (an attribute before opset 18, from it a Constant or
// initializer input), or nullopt; empty: all of them.
std::optional<std::vector<int64_t>> reduced_axes(const onnx::NodeProto& reduce, const ValueUses& uses,
                                                 const Nodes& nodes, const onnx::GraphProto& graph,
                                                 const std::set<std::string>& graph_inputs) {
  if (const onnx::AttributeProto* a = find_attribute(reduce, "axes"))
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  if (reduce.input_size() < 2 || reduce.input(1).empty()) return std::vector<int64_t>{};
  std::optional<ConstTensor> axes;
  if (auto made = uses.producer.find(reduce.input(1)); made != uses.producer.end())
    axes = constant_node_value(nodes.Get(made->second));
  else if (const onnx::TensorProto* t = find_initializer(graph, reduce.input(1)); t && !graph_inputs.count(t->name()))
    axes = read_const(*t);
  if (!axes || !axes->is_integer()) return std::nullopt;
  return axes->ints;
}

// Which channels the norm `r` of v (dims `dims`) keeps, or nullopt when it is not the norm of a
// weight norm (kept dims, every axis but at most one reduced).
std::optional<ChannelLayout> norm_layout(const onnx::NodeProto& r, const std::vector<int64_t>& dims,
                                         const ValueUses& uses, const Body& body,
                                         const std::set<std::string>& graph_inputs) {
  const auto rank = static_cast<int64_t>(dims.size());
  ChannelLayout layout;
  if (r.op_type() == "Abs") {
    if (rank != 1) return std::nullopt;
    layout = {dims[0], 1, 0};
    return layout;
  }
  if (r.op_type() != "ReduceL2" || int_attribute(r, "keepdims", 1) != 1) return std::nullopt;
  std::optional<std::vector<int64_t>> axes = reduced_axes(r, uses, *body.nodes, *body.graph, graph_inputs);
  if (!axes) return std::nullopt;
  std::vector<bool> reduced(dims.size(), axes->empty() && int_attribute(r, "noop_with_empty_axes", 0) == 0);
  for (int64_t a : *axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[static_cast<size_t>(d)]) continue;
    if (layout.axis >= 0) return std::nullopt;  // two kept axes
    layout.axis = d;
  }
  int64_t numel = 1;
  for (int64_t d : dims) numel *= d;
  if (layout.axis < 0) {
    layout.inner = std::max<int64_t>(numel, 1);
    return layout;
  }
  layout.channels = dims[static_cast<size_t>(layout.axis)];
  for (int64_t d = layout.axis + 1; d < rank; ++d) layout.inner *= dims[static_cast<size_t>(d)];
  if (layout.channels <= 0 || layout.inner <= 0) return std::nullopt;
  return layout;
}

// Whether g (dims `g_dims`) broadcasts against v's dims as one value per channel of the layout,
// so that Mul(v, Div(g, norm)) has v's shape.
bool per_channel(const std::vector<int64_t>& g_dims, const std::vector<int64_t>& v_dims, const ChannelLayout& layout) {
  if (g_dims.size() > v_dims.size()) return false;
  const size_t offset = v_dims.size() - g_dims.size();
  int64_t numel = 1;
  for (size_t i = 0; i < g_dims.size(); ++i) {
    const auto axis = static_cast<int64_t>(offset + i);
    if (g_dims[i] != 1 && !(axis == layout.axis && g_dims[i] == v_dims[offset + i])) return false;
    numel *= g_dims[i];
  }
  return numel == layout.channels;
}

struct Folder {
  Body& body;
  WeightAccess& weights;
  const ValueUses& uses;
  const std::set<std::string>& graph_inputs;
  FreshNames& fresh;

  int reads(const std::string& name) const {
    auto r = uses.reads.find(name);
    return r == uses.reads.end() ? 0 : r->second;
  }
  const onnx::NodeProto* producer(const std::string& name) const {
    auto made = uses.producer.find(name);
    return made == uses.producer.end() ? nullptr : &body.nodes->Get(made->second);
  }
  // How many nodes other than Constants lie in the --hiera instance keyed `instance`.
  int nodes_in_instance(const std::string& instance) const {
    int n = 0;
    for (int i = 0; i < body.nodes->size(); ++i)
      n += body.nodes->Get(i).op_type() != "Constant" && instance_key(body, i) == instance ? 1 : 0;
    return n;
  }
  // A float32 archive weight no graph input overrides, or null.
  const onnx::TensorProto* weight(const std::string& name) const {
    const onnx::TensorProto* t = find_initializer(*body.graph, name);
    if (!t || t->data_type() != onnx::TensorProto_DataType_FLOAT || graph_inputs.count(name) ||
        !weights.archived(name))
      return nullptr;
    return t;
  }

  // Folds Mul node `index` when it is Mul(v, Div(g, norm(v))); false (nothing changed) otherwise.
  bool fold(int index) {
    onnx::NodeProto& mul = *body.nodes->Mutable(index);
    for (int k = 0; k < 2; ++k)
      if (fold(index, mul, mul.input(k), mul.input(1 - k))) return true;
    return false;
  }

  // v and q are copies: the Mul's inputs are cleared when it folds.
  bool fold(int index, onnx::NodeProto& mul, std::string v, std::string q) {
    const onnx::NodeProto* div = producer(q);
    if (!div || div->op_type() != "Div" || !div->domain().empty() || div->input_size() != 2 || reads(q) != 1) return false;
    const std::string& g = div->input(0);
    const onnx::NodeProto* norm = producer(div->input(1));
    if (!norm || !norm->domain().empty() || norm->input_size() < 1 || norm->input(0) != v || reads(div->input(1)) != 1) return false;
    const onnx::TensorProto* v_weight = weight(v);
    const onnx::TensorProto* g_weight = weight(g);
    if (!v_weight || !g_weight || reads(v) != 2 || reads(g) != 1) return false;
    const int mul_at = index, div_at = uses.producer.at(q), norm_at = uses.producer.at(div->input(1));
    const std::string instance = instance_key(body, mul_at);
    if (instance != instance_key(body, div_at) || instance != instance_key(body, norm_at)) return false;
    if (inside_instance(body, mul_at) && nodes_in_instance(instance) == 3) return false;  // --hiera asked for it

    const std::vector<int64_t> v_dims(v_weight->dims().begin(), v_weight->dims().end());
    const std::vector<int64_t> g_dims(g_weight->dims().begin(), g_weight->dims().end());
    std::optional<ChannelLayout> layout = norm_layout(*norm, v_dims, uses, body, graph_inputs);
    if (!layout || !per_channel(g_dims, v_dims, *layout)) return false;
    std::optional<std::vector<float>> gains = weights.read_floats(g);
    if (!gains || static_cast<int64_t>(gains->size()) != layout->channels) return false;
    std::optional<std::vector<double>> sums = weights.channel_sums_of_squares(v, layout->channels, layout->inner);
    if (!sums || static_cast<int64_t>(sums->size()) != layout->channels) return false;
    std::vector<double> factors(sums->size());
    for (size_t c = 0; c < factors.size(); ++c) {
      factors[c] = double{(*gains)[c]} / std::sqrt((*sums)[c]);
      if (!std::isfinite(factors[c])) return false;  // a zero norm: torch's inf/NaN stays a run-time matter
    }

    const std::string name = fresh(v + ".weight_norm_folded");
    if (!weights.add(v, name, model::DerivedWeight::Scaled{std::move(factors), layout->inner})) return false;
    onnx::TensorProto declared = *v_weight;
    declared.set_name(name);
    declared.clear_raw_data();  // a declaration: emit derives its data
    declared.clear_float_data();
    declare_initializer(body, std::move(declared));
    // The Mul passes the folded weight on; drop_identities bypasses it, the dead-node sweep
    // takes the Div and the norm.
    mul.set_op_type("Identity");
    mul.clear_input();
    mul.clear_attribute();
    mul.add_input(name);
    return true;
  }
};

}  // namespace

int fold_weight_norms(Body& body, WeightAccess& weights) {
  if (!body.graph) return 0;
  const Nodes& nodes = *body.nodes;
  const ValueUses uses = value_uses(body);
  std::set<std::string> graph_inputs;
  for (const auto& v : body.graph->input()) graph_inputs.insert(v.name());
  FreshNames fresh(body);
  Folder folder{body, weights, uses, graph_inputs, fresh};
  int folded = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& n = nodes.Get(i);
    if (n.op_type() == "Mul" && n.domain().empty() && n.input_size() == 2 && n.output_size() == 1 && folder.fold(i))
      ++folded;
  }
  return folded;
}

}  // namespace pt2onnx::clean
