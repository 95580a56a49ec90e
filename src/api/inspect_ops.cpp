// The op histogram: each target (in the graph and inside the subgraphs of its nodes) with its node count and whether the converter has a
// rule for it. An op blocks conversion only where convert would refuse it: no rule valid at the
// opset, not a dropped runtime check, and at least one of its nodes needed by the ONNX graph.
#include <algorithm>
#include <utility>

#include "api/inspect_summary.h"
#include "translate/complex_values.h"
#include "translate/custom_op_rule.h"
#include "translate/liveness.h"

namespace pt2onnx::inspection {

namespace {

// `complex`: the node reads or writes a complex tensor, which only complex rules translate.
OpSummary classify(const std::string& target, const translate::RuleTable& rules, int opset,
                   const std::vector<translate::CustomOpRule>& custom, bool complex) {
  OpSummary op;
  op.target = target;
  const auto by_config = std::find_if(custom.begin(), custom.end(), [&](const translate::CustomOpRule& rule) {
    return translate::custom_rule_matches(rule, target);
  });
  if (by_config != custom.end()) {
    op.support = OpSupport::kConfigRule;
    op.rule = by_config->origin;
  } else if (translate::is_dropped_target(target)) {
    op.support = OpSupport::kDropped;
  } else if (rules.supports(target, opset, complex)) {
    op.support = OpSupport::kSupported;
  } else if (const std::vector<translate::Rule>* list = rules.find(target);
             list && std::any_of(list->begin(), list->end(), [&](const translate::Rule& r) { return r.complex == complex; })) {
    op.support = OpSupport::kNeedsOpset;
    for (const translate::Rule& r : *list)  // the lowest opset of a rule of the node's kind
      if (r.complex == complex && (op.min_opset == 0 || r.min_opset < op.min_opset)) op.min_opset = r.min_opset;
  } else {
    op.support = OpSupport::kUnsupported;
  }
  return op;
}

// Counts the nodes of `graph` (live where `live` says and `reached`) and of their subgraphs.
void count_ops(const ir::Graph& graph, const std::vector<bool>& live, bool reached, const translate::RuleTable& rules,
               int opset, const std::vector<translate::CustomOpRule>& custom, std::map<std::string, OpSummary>& by_target) {
  const auto& nodes = graph.nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    // A complex node that no complex rule takes is its own row, as convert names it.
    const bool complex = translate::touches_complex(graph.tensor_values, nodes[i]);
    OpSummary op = classify(nodes[i].target, rules, opset, custom, complex);
    if (complex && (op.support == OpSupport::kUnsupported || op.support == OpSupport::kNeedsOpset))
      op.target += " on complex values";
    auto it = by_target.find(op.target);
    if (it == by_target.end()) it = by_target.emplace(op.target, std::move(op)).first;
    ++it->second.count;
    const bool used = reached && live[i];
    if (!used) ++it->second.unused;
    for (const ir::NamedArgument& in : nodes[i].inputs)
      if (const auto* sub = std::get_if<ir::GraphArg>(&in.arg); sub && sub->graph)
        count_ops(*sub->graph, translate::analyze_liveness(*sub->graph).live, used, rules, opset, custom, by_target);
  }
}

}  // namespace

std::vector<OpSummary> summarize_ops(const ir::Program& program, const translate::RuleTable& rules, int opset,
                                     const std::vector<translate::CustomOpRule>& custom) {
  std::map<std::string, OpSummary> by_target;
  count_ops(program.graph, translate::analyze_liveness(program).live, true, rules, opset, custom, by_target);
  std::vector<OpSummary> out;
  out.reserve(by_target.size());
  for (auto& [target, op] : by_target) out.push_back(std::move(op));
  return out;
}

}  // namespace pt2onnx::inspection

namespace pt2onnx {

bool OpSummary::blocks_conversion() const {
  return (support == OpSupport::kUnsupported || support == OpSupport::kNeedsOpset) && unused < count;
}

}  // namespace pt2onnx
