// The subgraphs of higher-order ops (cond branches, loop and scan bodies, invoke_subgraph
// bodies), depth-first, so that inspect shows how they nest.
#include "api/inspect_summary.h"

namespace pt2onnx::inspection {

namespace {

void collect(const ir::Graph& graph, int depth, std::vector<SubgraphSummary>& out) {
  for (const ir::Node& node : graph.nodes)
    for (const ir::NamedArgument& in : node.inputs) {
      const auto* sub = std::get_if<ir::GraphArg>(&in.arg);
      if (!sub || !sub->graph) continue;
      out.push_back({depth, node.name, node.target, sub->name, static_cast<int64_t>(sub->graph->nodes.size())});
      collect(*sub->graph, depth + 1, out);
    }
}

}  // namespace

std::vector<SubgraphSummary> summarize_subgraphs(const ir::Graph& graph) {
  std::vector<SubgraphSummary> out;
  collect(graph, 0, out);
  return out;
}

namespace {

void append_nodes(const ir::Graph& graph, std::vector<ir::Node>& out) {
  for (const ir::Node& node : graph.nodes) {
    out.push_back(node);
    for (const ir::NamedArgument& in : node.inputs)
      if (const auto* sub = std::get_if<ir::GraphArg>(&in.arg); sub && sub->graph) append_nodes(*sub->graph, out);
  }
}

}  // namespace

ir::Graph with_subgraph_nodes(const ir::Graph& graph) {
  ir::Graph out;
  append_nodes(graph, out.nodes);
  return out;
}

int64_t count_nodes(const ir::Graph& graph) {
  int64_t n = static_cast<int64_t>(graph.nodes.size());
  for (const ir::Node& node : graph.nodes)
    for (const ir::NamedArgument& in : node.inputs)
      if (const auto* sub = std::get_if<ir::GraphArg>(&in.arg); sub && sub->graph) n += count_nodes(*sub->graph);
  return n;
}

}  // namespace pt2onnx::inspection
