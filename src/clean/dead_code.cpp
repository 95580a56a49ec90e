// Dead nodes, initializers and value_info: one backward sweep from the scope's outputs.
// Subgraphs (If/Loop/Scan bodies) read outer values by name; those reads keep them alive.
#include <string_view>

#include "common/view_map.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

// Adds what `node` reads: its inputs, and the outer names its subgraphs read. Names are views of
// the scope's own strings (nothing is renamed while these sets live) or of `reads.outer`.
void note_reads(const onnx::NodeProto& node, ReadValues& reads) {
  for (const std::string& in : node.input())
    if (!in.empty()) reads.names.insert(in);
  if (!has_subgraph(node)) return;
  std::set<std::string> subgraph;
  subgraph_reads(node, subgraph);
  for (const std::string& r : subgraph) reads.names.insert(*reads.outer.insert(r).first);
}

// The scope's outputs, to start from.
ReadValues outputs_read(const Body& body) {
  ReadValues reads{ViewSet(static_cast<size_t>(body.nodes->size()) * 2), {}};
  for (const std::string& out : body.outputs) reads.names.insert(out);
  return reads;
}

}  // namespace

int eliminate_dead_nodes(Body& body, ReadValues* reads) {
  const Nodes& nodes = *body.nodes;
  ReadValues found = outputs_read(body);
  const ViewSet& live = found.names;
  std::vector<bool> keep(static_cast<size_t>(nodes.size()), false);
  int removed = 0;
  for (int i = nodes.size(); i-- > 0;) {
    const onnx::NodeProto& node = nodes.Get(i);
    bool needed = node.output_size() == 0;  // nothing to read: kept rather than guessed about
    for (const std::string& out : node.output()) needed = needed || (!out.empty() && live.contains(out));
    if (!needed) {
      ++removed;
      continue;
    }
    keep[static_cast<size_t>(i)] = true;
    note_reads(node, found);
  }
  if (removed) erase_nodes(body, keep);
  else if (reads) *reads = std::move(found);
  return removed;
}

int eliminate_dead_initializers(Body& body, const ReadValues* reads) {
  if (!body.graph) return 0;
  onnx::GraphProto& graph = *body.graph;
  // What something reads: the sweep's set when it is given, else the same walk over every node.
  ReadValues own;
  if (!reads) {
    own = outputs_read(body);
    for (const onnx::NodeProto& node : graph.node()) note_reads(node, own);
    reads = &own;
  }
  const ViewSet& read = reads->names;
  ViewSet inputs;
  for (const auto& v : graph.input()) inputs.insert(v.name());

  int removed = 0;
  auto* initializers = graph.mutable_initializer();
  int kept = 0;
  for (int i = 0; i < initializers->size(); ++i) {
    const std::string& name = initializers->Get(i).name();
    if (!read.contains(name) && !inputs.contains(name)) {
      body.inputs.erase(name);  // `name` is alive until the RemoveLast below
      ++removed;
      continue;
    }
    if (kept != i) initializers->SwapElements(kept, i);
    ++kept;
  }
  while (initializers->size() > kept) initializers->RemoveLast();

  // Type annotations of values that no longer exist would only confuse readers.
  auto* infos = graph.mutable_value_info();
  if (infos->empty()) return removed;
  ViewSet defined(static_cast<size_t>(graph.node_size() + graph.initializer_size()));
  for (const onnx::NodeProto& node : graph.node())
    for (const std::string& out : node.output()) defined.insert(out);
  for (const auto& t : graph.initializer()) defined.insert(t.name());
  kept = 0;
  for (int i = 0; i < infos->size(); ++i) {
    if (!defined.contains(infos->Get(i).name())) continue;
    if (kept != i) infos->SwapElements(kept, i);
    ++kept;
  }
  while (infos->size() > kept) infos->RemoveLast();
  return removed;
}

}  // namespace pt2onnx::clean
