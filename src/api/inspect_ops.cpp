// The op histogram: each target (in the graph and inside the subgraphs of its nodes) with its node count and whether the converter has a
// rule for it. An op blocks conversion only where convert would refuse it: no rule valid at the
// opset, not a dropped runtime check, and at least one of its nodes needed by the ONNX graph.
#include <algorithm>
#include <utility>

#include "api/inspect_summary.h"
#include "translate/custom_op_rule.h"
#include "translate/liveness.h"

namespace pt2onnx::inspection {

namespace {

OpSummary classify(const std::string& target, const translate::RuleTable& rules, int opset,
                   const std::vector<translate::CustomOpRule>& custom) {
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
  } else if (rules.supports(target, opset)) {
    op.support = OpSupport::kSupported;
  } else if (const std::vector<translate::Rule>* list = rules.find(target); list && !list->empty()) {
    op.support = OpSupport::kNeedsOpset;
    op.min_opset = list->back().min_opset;  // rules are kept newest first
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
    auto it = by_target.find(nodes[i].target);
    if (it == by_target.end()) it = by_target.emplace(nodes[i].target, classify(nodes[i].target, rules, opset, custom)).first;
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
