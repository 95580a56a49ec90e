// A clamp written as two nodes, Min(Max(x, lo), hi) or Max(Min(x, hi), lo) with scalar constant
// bounds lo <= hi (core ATen IR splits hardtanh/hardswish/hardsigmoid this way), is one ONNX
// Clip(x, lo, hi): for lo <= hi both orders give min(max(x, lo), hi), which is what Clip computes.
// The inner node must have no other reader.
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

struct Bound {
  int constant_input = -1;  // which input of the Min/Max is the scalar bound
  double value = 0;
};

std::optional<Bound> scalar_bound(const onnx::NodeProto& node, const std::map<std::string, ConstTensor>& constants) {
  if (!node.domain().empty() || node.input_size() != 2 || node.output_size() != 1) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    auto c = constants.find(node.input(k));
    if (c == constants.end() || !c->second.dims.empty()) continue;
    const ConstTensor& t = c->second;
    return Bound{k, t.is_integer() ? static_cast<double>(t.ints.at(0)) : t.floats.at(0)};
  }
  return std::nullopt;
}

}  // namespace

int fuse_clamps(Body& body) {
  Nodes& nodes = *body.nodes;
  std::map<std::string, ConstTensor> constants;
  if (body.graph) {
    std::set<std::string> graph_inputs;
    for (const auto& v : body.graph->input()) graph_inputs.insert(v.name());
    for (const auto& t : body.graph->initializer())
      if (!graph_inputs.count(t.name()))
        if (std::optional<ConstTensor> c = read_const(t)) constants.emplace(t.name(), std::move(*c));
  }
  auto [producer, reads] = value_uses(body);
  for (const onnx::NodeProto& node : nodes)
    if (node.output_size() == 1)
      if (std::optional<ConstTensor> c = constant_node_value(node)) constants.emplace(node.output(0), std::move(*c));

  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  int fused = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& outer = *nodes.Mutable(i);
    const bool outer_min = outer.op_type() == "Min";
    if (!outer_min && outer.op_type() != "Max") continue;
    const std::optional<Bound> ob = scalar_bound(outer, constants);
    if (!ob) continue;
    const std::string& inner_value = outer.input(1 - ob->constant_input);
    auto made = producer.find(inner_value);
    if (made == producer.end() || reads[inner_value] != 1 || !keep[static_cast<size_t>(made->second)]) continue;
    const onnx::NodeProto& inner = nodes.Get(made->second);
    if (inner.op_type() != (outer_min ? "Max" : "Min")) continue;
    const std::optional<Bound> ib = scalar_bound(inner, constants);
    if (!ib || instance_key(body, made->second) != instance_key(body, i)) continue;
    const Bound& lo = outer_min ? *ib : *ob;
    const Bound& hi = outer_min ? *ob : *ib;
    if (!(lo.value <= hi.value)) continue;
    const std::string x = inner.input(1 - ib->constant_input);
    const std::string lo_name = (outer_min ? inner : outer).input(lo.constant_input);
    const std::string hi_name = (outer_min ? outer : inner).input(hi.constant_input);
    const std::string out = outer.output(0);
    const std::string name = outer.name();
    keep[static_cast<size_t>(made->second)] = false;
    outer.Clear();
    outer.set_op_type("Clip");
    outer.set_name(name);
    outer.add_input(x);
    outer.add_input(lo_name);
    outer.add_input(hi_name);
    outer.add_output(out);
    ++fused;
  }
  if (fused) erase_nodes(body, keep);
  return fused;
}

}  // namespace pt2onnx::clean
