// Inference BatchNormalization after a Conv or Gemm whose weights are initializers becomes part
// of it: with s = scale / sqrt(var + eps) per channel, W' = W * s (per output channel) and
// B' = (B - mean) * s + bias. W' is computed while it is written (WeightAccess), so memory stays
// bounded; s and B' are per-channel vectors computed here in double precision.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "clean/clean.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

float float_attribute(const onnx::NodeProto& node, const std::string& name, float fallback) {
  const onnx::AttributeProto* a = find_attribute(node, name);
  return a ? a->f() : fallback;
}

void set_float_attribute(onnx::NodeProto& node, const std::string& name, float value) {
  for (onnx::AttributeProto& a : *node.mutable_attribute())
    if (a.name() == name) {
      a.set_f(value);
      return;
    }
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(value);
}

// The per-channel vectors of one BatchNormalization, or nullopt when they are not all float32
// constants of C elements.
struct BatchNormParams {
  std::vector<double> factor;  // scale / sqrt(var + eps)
  std::vector<double> shift;   // bias - mean * factor
};

std::optional<BatchNormParams> read_params(const onnx::NodeProto& bn, WeightAccess& weights) {
  std::vector<std::vector<float>> v;
  for (int k = 1; k <= 4; ++k) {
    std::optional<std::vector<float>> values = weights.read_floats(bn.input(k));
    if (!values) return std::nullopt;
    v.push_back(std::move(*values));
  }
  const size_t c = v[0].size();
  for (const auto& x : v)
    if (x.size() != c || c == 0) return std::nullopt;
  const double eps = float_attribute(bn, "epsilon", 1e-5f);
  BatchNormParams p;
  for (size_t i = 0; i < c; ++i) {
    const double factor = double{v[0][i]} / std::sqrt(double{v[3][i]} + eps);
    p.factor.push_back(factor);
    p.shift.push_back(double{v[1][i]} - double{v[2][i]} * factor);
  }
  return p;
}

onnx::TensorProto float_vector(const std::string& name, const std::vector<double>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto_DataType_FLOAT);
  t.add_dims(static_cast<int64_t>(values.size()));
  std::string& raw = *t.mutable_raw_data();
  raw.resize(values.size() * sizeof(float));
  for (size_t i = 0; i < values.size(); ++i) {
    const auto f = static_cast<float>(values[i]);
    std::memcpy(raw.data() + i * sizeof(float), &f, sizeof(float));
  }
  return t;
}

// Folds bn into the Conv/Gemm `producer`; false (nothing changed) when a condition fails.
bool fold_into(Body& body, onnx::NodeProto& producer, const onnx::NodeProto& bn, WeightAccess& weights, FreshNames& names) {
  onnx::GraphProto& graph = *body.graph;
  const bool is_gemm = producer.op_type() == "Gemm";
  if (producer.input_size() < 2) return false;
  const onnx::TensorProto* w = find_initializer(graph, producer.input(1));
  if (!w || w->data_type() != onnx::TensorProto_DataType_FLOAT || w->dims_size() < 2) return false;
  if (is_gemm && w->dims_size() != 2) return false;

  std::optional<BatchNormParams> p = read_params(bn, weights);
  if (!p) return false;
  const auto channels = static_cast<int64_t>(p->factor.size());
  const bool trans_b = is_gemm && int_attribute(producer, "transB", 0) != 0;
  const int channel_axis = is_gemm && !trans_b ? 1 : 0;
  if (w->dims(channel_axis) != channels) return false;
  int64_t inner = 1;
  for (int d = channel_axis + 1; d < w->dims_size(); ++d) inner *= w->dims(d);

  // The old bias (Conv B, or Gemm's beta * C), per channel.
  std::vector<double> bias(static_cast<size_t>(channels), 0.0);
  if (producer.input_size() > 2 && !producer.input(2).empty()) {
    std::optional<std::vector<float>> b = weights.read_floats(producer.input(2));
    if (!b || static_cast<int64_t>(b->size()) != channels) return false;
    const double beta = is_gemm ? float_attribute(producer, "beta", 1.0f) : 1.0;
    if (is_gemm) {  // C must be a per-channel vector to fold into one
      const onnx::TensorProto* c = find_initializer(graph, producer.input(2));
      if (!c || c->dims_size() != 1) return false;
    }
    for (size_t i = 0; i < b->size(); ++i) bias[i] = beta * (*b)[i];
  }

  const std::string w_name = names(producer.input(1) + ".bn_folded");
  if (!weights.add(producer.input(1), w_name, model::DerivedWeight::Scaled{p->factor, inner})) {
    names.release(w_name);
    return false;
  }
  onnx::TensorProto declared = *w;
  declared.set_name(w_name);
  declared.clear_raw_data();  // a declaration: emit derives its data (WeightAccess::add)
  declared.clear_float_data();
  declare_initializer(body, std::move(declared));

  std::vector<double> folded_bias(static_cast<size_t>(channels));
  for (size_t i = 0; i < folded_bias.size(); ++i) folded_bias[i] = bias[i] * p->factor[i] + p->shift[i];
  const std::string b_name = names(bn.input(2) + ".bn_folded");
  declare_initializer(body, float_vector(b_name, folded_bias));

  producer.set_input(1, w_name);
  if (producer.input_size() > 2) producer.set_input(2, b_name);
  else producer.add_input(b_name);
  if (is_gemm) set_float_attribute(producer, "beta", 1.0f);
  producer.set_output(0, bn.output(0));
  return true;
}

}  // namespace

int fold_batch_norms(Body& body, WeightAccess& weights) {
  if (!body.graph) return 0;
  Nodes& nodes = *body.nodes;
  // Most graphs have no BatchNormalization: skip building the maps below, which cost a scan of every node.
  if (std::none_of(nodes.begin(), nodes.end(), [](const onnx::NodeProto& n) { return n.op_type() == "BatchNormalization"; }))
    return 0;
  std::map<std::string, int> producer;
  std::map<std::string, int> reads;
  FreshNames names(body);
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    for (const std::string& o : node.output()) producer[o] = i;
    for (const std::string& in : node.input()) ++reads[in];
    std::set<std::string> outer;
    subgraph_reads(node, outer);
    for (const std::string& in : outer) reads[in] += 2;  // never fold a value a subgraph reads
  }
  for (const std::string& o : body.outputs) reads[o] += 2;

  // A weight that is also a graph input (state: a runtime feeds it) holds no fixed value to fold.
  std::set<std::string> graph_inputs;
  for (const auto& v : body.graph->input()) graph_inputs.insert(v.name());
  auto overridable = [&](const onnx::NodeProto& node, int from) {
    for (int k = from; k < node.input_size(); ++k)
      if (graph_inputs.count(node.input(k))) return true;
    return false;
  };

  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  int folded = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& bn = nodes.Get(i);
    if (bn.op_type() != "BatchNormalization" || !bn.domain().empty() || bn.input_size() != 5) continue;
    if (int_attribute(bn, "training_mode", 0) != 0 || bn.output(0).empty()) continue;
    bool extra_outputs = false;
    for (int k = 1; k < bn.output_size(); ++k) extra_outputs = extra_outputs || !bn.output(k).empty();
    if (extra_outputs) continue;
    auto made = producer.find(bn.input(0));
    if (made == producer.end() || reads[bn.input(0)] != 1) continue;
    onnx::NodeProto& p = *nodes.Mutable(made->second);
    if ((p.op_type() != "Conv" && p.op_type() != "Gemm") || !p.domain().empty() || p.output_size() != 1) continue;
    if (overridable(bn, 1) || overridable(p, 1)) continue;
    if (instance_key(body, made->second) != instance_key(body, i)) continue;
    if (!fold_into(body, p, bn, weights, names)) continue;
    keep[static_cast<size_t>(i)] = false;
    ++folded;
  }
  if (folded) erase_nodes(body, keep);
  return folded;
}

}  // namespace pt2onnx::clean
