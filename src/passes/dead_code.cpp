// Dead nodes, initializers and value_info: one backward sweep from the scope's outputs.
// Subgraphs (If/Loop/Scan bodies) read outer values by name; those reads keep them alive.
#include <string_view>
#include <unordered_set>

#include "passes/passes_internal.h"

namespace pt2onnx::passes {

namespace {

// Names are views of the scope's own strings (nothing is renamed while these sets live); the
// names that subgraphs read from outside are kept in `outer`.
using NameSet = std::unordered_set<std::string_view>;

void add_subgraph_reads(const onnx::NodeProto& node, std::set<std::string>& outer, NameSet& names) {
  if (!has_subgraph(node)) return;
  std::set<std::string> reads;
  subgraph_reads(node, reads);
  for (const std::string& r : reads) names.insert(*outer.insert(r).first);
}

}  // namespace

int eliminate_dead_nodes(Body& body) {
  NameSet live(body.outputs.begin(), body.outputs.end());
  std::set<std::string> outer;
  const Nodes& nodes = *body.nodes;
  live.reserve(static_cast<size_t>(nodes.size()) * 2);
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
    add_subgraph_reads(node, outer, live);
  }
  if (removed) erase_nodes(body, keep);
  return removed;
}

int eliminate_dead_initializers(Body& body) {
  if (!body.graph) return 0;
  onnx::GraphProto& graph = *body.graph;
  NameSet read(body.outputs.begin(), body.outputs.end());
  NameSet defined;
  read.reserve(static_cast<size_t>(graph.node_size()) * 3);
  defined.reserve(static_cast<size_t>(graph.node_size() + graph.initializer_size()));
  std::set<std::string> outer;
  for (const onnx::NodeProto& node : graph.node()) {
    read.insert(node.input().begin(), node.input().end());
    add_subgraph_reads(node, outer, read);
    defined.insert(node.output().begin(), node.output().end());
  }
  NameSet inputs;
  for (const auto& v : graph.input()) inputs.insert(v.name());

  int removed = 0;
  auto* initializers = graph.mutable_initializer();
  int kept = 0;
  for (int i = 0; i < initializers->size(); ++i) {
    const std::string& name = initializers->Get(i).name();
    if (!read.count(name) && !inputs.count(name)) {
      body.inputs.erase(name);  // `name` is alive until the RemoveLast below
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
