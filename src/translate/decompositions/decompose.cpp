// decompose: nodes rewritten into the aten nodes their decompositions write (decompose.h).
#include "translate/decompositions/decompose.h"

#include <unordered_set>

#include "common/error.h"
#include "translate/decompositions/aten_builder.h"

namespace pt2onnx::translate {

namespace {

// A bound on the nodes decompositions write per node of the graph, nested ones included: a
// decomposition that writes its own target would otherwise never end.
constexpr size_t kMaxWrittenPerNode = 64;

bool graph_has_decompositions(const ir::Graph& graph, const RuleTable& rules) {
  for (const ir::Node& node : graph.nodes) {
    if (rules.find_decomposition(node.target)) return true;
    for (const ir::NamedArgument& in : node.inputs)
      if (const auto* g = std::get_if<ir::GraphArg>(&in.arg); g && g->graph && graph_has_decompositions(*g->graph, rules))
        return true;
  }
  return false;
}

// Every name a node or value of the graph has, for fresh names that clash with none.
std::unordered_set<std::string> names_in(const ir::Graph& graph) {
  std::unordered_set<std::string> names;
  for (const auto& [name, meta] : graph.tensor_values) names.insert(name);
  for (const auto& [name, dim] : graph.sym_int_values) names.insert(name);
  for (const auto& [name, text] : graph.sym_bool_values) names.insert(name);
  for (const auto& [name, text] : graph.sym_float_values) names.insert(name);
  for (const ir::Node& node : graph.nodes) {
    names.insert(node.name);
    std::vector<std::string> outs;
    for (const ir::Argument& out : node.outputs) ir::collect_value_names(out, outs);
    names.insert(outs.begin(), outs.end());
  }
  return names;
}

ir::Graph decompose_graph(ir::Graph graph, const RuleTable& rules) {
  if (!graph_has_decompositions(graph, rules)) return graph;
  std::unordered_set<std::string> taken = names_in(graph);
  auto fresh_name = [&](const std::string& base) {
    std::string name = base;
    for (int k = 1; taken.contains(name); ++k) name = base + "_" + std::to_string(k);
    taken.insert(name);
    return name;
  };
  std::vector<ir::Node> nodes = std::move(graph.nodes);
  graph.nodes.clear();
  graph.nodes.reserve(nodes.size());
  // Nodes still to visit, last first: a decomposed node's replacements go back on the stack.
  std::vector<ir::Node> pending(std::make_move_iterator(nodes.rbegin()), std::make_move_iterator(nodes.rend()));
  const size_t budget = kMaxWrittenPerNode * (nodes.size() + 1);
  size_t written = 0;
  while (!pending.empty()) {
    ir::Node node = std::move(pending.back());
    pending.pop_back();
    for (ir::NamedArgument& in : node.inputs)
      if (auto* g = std::get_if<ir::GraphArg>(&in.arg); g && g->graph && graph_has_decompositions(*g->graph, rules))
        g->graph = std::make_shared<const ir::Graph>(decompose_graph(*g->graph, rules));
    const Decomposition* decomposition = rules.find_decomposition(node.target);
    if (!decomposition) {
      graph.nodes.push_back(std::move(node));
      continue;
    }
    AtenBuilder builder(graph, node, fresh_name);
    bool emitted = false;
    try {
      emitted = decomposition->fn(builder, builder.args()) == RuleResult::kEmitted;
    } catch (const CannotDecompose&) {
      emitted = false;
    } catch (const Error& e) {
      throw e.with_context("decomposing " + node.name + " (" + node.target + ")");
    }
    if (!emitted) {
      graph.nodes.push_back(std::move(node));
      continue;
    }
    AtenBuilder::Written out = builder.finish();
    written += out.nodes.size();
    PT2ONNX_CHECK(written <= budget, ErrorCode::kInternal,
                  "the decompositions of " + node.name + " (" + node.target + ") do not end");
    for (auto& [name, meta] : out.metas) graph.tensor_values.emplace(name, std::move(meta));
    for (auto& [name, dim] : out.sym_ints) graph.sym_int_values.emplace(name, std::move(dim));
    for (auto it = out.nodes.rbegin(); it != out.nodes.rend(); ++it) pending.push_back(std::move(*it));
  }
  return graph;
}

}  // namespace

bool has_decompositions(const ir::Program& program, const RuleTable& rules) {
  return graph_has_decompositions(program.graph, rules);
}

ir::Program decompose(ir::Program program, const RuleTable& rules) {
  program.graph = decompose_graph(std::move(program.graph), rules);
  return program;
}

}  // namespace pt2onnx::translate
