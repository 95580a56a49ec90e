// Dead nodes, initializers and value_info: one backward sweep from the scope's outputs.
// Subgraphs (If/Loop/Scan bodies) read outer values by name; those reads keep them alive.
#include "passes/passes_internal.h"

namespace pt2onnx::passes {

int eliminate_dead_nodes(Body& body) {
  std::set<std::string> live = body.outputs;
  const Nodes& nodes = *body.nodes;
  std::vector<bool> keep(static_cast<size_t>(nodes.size()), false);
  int removed = 0;
  for (int i = nodes.size(); i-- > 0;) {
    const onnx::NodeProto& node = nodes.Get(i);
    bool needed = node.output_size() == 0;  // nothing to read: kept rather than guessed about
    for (const std::string& out : node.output()) needed = needed || (!out.empty() && live.count(out));
    if (!needed) {
      ++removed;
      continue;
    }
    keep[static_cast<size_t>(i)] = true;
    for (const std::string& in : node.input())
      if (!in.empty()) live.insert(in);
    subgraph_reads(node, live);
  }
  if (removed) erase_nodes(body, keep);
  return removed;
}

int eliminate_dead_initializers(Body& body) {
  if (!body.graph) return 0;
  onnx::GraphProto& graph = *body.graph;
  std::set<std::string> read = body.outputs;
  std::set<std::string> defined;
  for (const onnx::NodeProto& node : graph.node()) {
    read.insert(node.input().begin(), node.input().end());
    subgraph_reads(node, read);
    defined.insert(node.output().begin(), node.output().end());
  }
  std::set<std::string> inputs;
  for (const auto& v : graph.input()) inputs.insert(v.name());

  int removed = 0;
  auto* initializers = graph.mutable_initializer();
  int kept = 0;
  for (int i = 0; i < initializers->size(); ++i) {
    const std::string& name = initializers->Get(i).name();
    if (!read.count(name) && !inputs.count(name)) {
      body.inputs.erase(name);
      ++removed;
      continue;
    }
    if (kept != i) initializers->SwapElements(kept, i);
    ++kept;
  }
  while (initializers->size() > kept) initializers->RemoveLast();

  // Type annotations of values that no longer exist would only confuse readers.
  for (const auto& t : graph.initializer()) defined.insert(t.name());
  auto* infos = graph.mutable_value_info();
  kept = 0;
  for (int i = 0; i < infos->size(); ++i) {
    if (!defined.count(infos->Get(i).name())) continue;
    if (kept != i) infos->SwapElements(kept, i);
    ++kept;
  }
  while (infos->size() > kept) infos->RemoveLast();
  return removed;
}

}  // namespace pt2onnx::passes
