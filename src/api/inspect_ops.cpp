// The op histogram: each target (in the graph and inside the subgraphs of its nodes) with its node count and whether the converter has a
// rule for it. An op blocks conversion only where convert would refuse it: no rule valid at the
// opset, not a dropped runtime check, and at least one of its nodes needed by the ONNX graph.
#include <algorithm>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "api/inspect_summary.h"
#include "translate/complex_values.h"
#include "translate/custom_op_rule.h"
#include "translate/liveness.h"
#include "translate/op_support.h"
#include "translate/onnx_types.h"

namespace pt2onnx::inspection {

namespace {

// The row of `target` as translate's classify answers (op_support.h).
OpSummary classify(const std::string& target, const translate::RuleTable& rules, int opset,
                   const std::vector<translate::CustomOpRule>& custom, bool complex) {
  static constexpr OpSupport kByKind[] = {OpSupport::kSupported, OpSupport::kConfigRule, OpSupport::kDropped,
                                          OpSupport::kNeedsOpset, OpSupport::kUnsupported};
  const translate::Support support = translate::classify(target, complex, opset, rules, custom);
  OpSummary op;
  op.target = target;
  op.support = kByKind[static_cast<int>(support.kind)];
  op.min_opset = support.min_opset;
  op.rule = support.rule;
  op.decomposed = support.kind == translate::SupportKind::kSupported && rules.find_decomposition(target) != nullptr;
  return op;
}

// The histogram being built: rows by target, and the row of each (node target, complex) seen,
// so that a target is classified once, not once per node.
struct OpCounts {
  const translate::RuleTable& rules;
  int opset;
  const std::vector<translate::CustomOpRule>& custom;
  std::map<std::string, OpSummary> by_target;
  std::unordered_map<std::string_view, OpSummary*> row_of[2];  // [complex]; keys view node targets

  OpSummary& row(const std::string& target, bool complex) {
    auto [cached, inserted] = row_of[complex].try_emplace(target, nullptr);
    if (!inserted) return *cached->second;
    OpSummary op = classify(target, rules, opset, custom, complex);
    // A complex node that no complex rule takes is its own row, as convert names it.
    if (complex && (op.support == OpSupport::kUnsupported || op.support == OpSupport::kNeedsOpset))
      op.target += translate::kOnComplexValues;
    auto it = by_target.find(op.target);
    if (it == by_target.end()) it = by_target.emplace(op.target, std::move(op)).first;
    cached->second = &it->second;
    return it->second;
  }
};

// Counts the nodes of `graph` (live where `live` says and `reached`) and of their subgraphs.
void count_ops(const ir::Graph& graph, const std::vector<bool>& live, bool reached, OpCounts& counts) {
  // Without complex tensors in the graph only a complex constant argument makes a node complex:
  // touches_complex over no tensor metadata says just that, with no lookup per argument.
  bool complex_values = false;
  for (const auto& [name, meta] : graph.tensor_values) complex_values = complex_values || translate::is_complex(meta.dtype);
  const std::remove_cvref_t<decltype(graph.tensor_values)> no_values;
  const auto& values = complex_values ? graph.tensor_values : no_values;
  const auto& nodes = graph.nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    OpSummary& op = counts.row(nodes[i].target, translate::touches_complex(values, nodes[i]));
    ++op.count;
    const bool used = reached && live[i];
    if (!used) ++op.unused;
    for (const ir::NamedArgument& in : nodes[i].inputs)
      if (const auto* sub = std::get_if<ir::GraphArg>(&in.arg); sub && sub->graph)
        count_ops(*sub->graph, translate::analyze_liveness(*sub->graph).live, used, counts);
  }
}

}  // namespace

std::vector<OpSummary> summarize_ops(const ir::Program& program, const translate::RuleTable& rules, int opset,
                                     const std::vector<translate::CustomOpRule>& custom) {
  OpCounts counts{rules, opset, custom, {}, {}};
  count_ops(program.graph, translate::analyze_liveness(program).live, true, counts);
  std::vector<OpSummary> out;
  out.reserve(counts.by_target.size());
  for (auto& [target, op] : counts.by_target) out.push_back(std::move(op));
  return out;
}

}  // namespace pt2onnx::inspection

namespace pt2onnx {

bool OpSummary::blocks_conversion() const {
  return (support == OpSupport::kUnsupported || support == OpSupport::kNeedsOpset) && unused < count;
}

}  // namespace pt2onnx
