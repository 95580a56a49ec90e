// classify: whether the converter translates an op (see op_support.h).
#include "translate/op_support.h"

#include <algorithm>

#include "translate/liveness.h"

namespace pt2onnx::translate {

Support classify(const std::string& target, bool complex, int opset, const RuleTable& rules,
                 const std::vector<CustomOpRule>& custom) {
  Support out;
  const auto by_config = std::find_if(custom.begin(), custom.end(),
                                      [&](const CustomOpRule& rule) { return custom_rule_matches(rule, target); });
  if (by_config != custom.end()) {
    out.kind = SupportKind::kConfigRule;
    out.rule = by_config->origin;
    return out;
  }
  if (is_dropped_target(target)) {
    out.kind = SupportKind::kDropped;
    return out;
  }
  if (rules.supports(target, opset, complex)) return out;
  out.kind = SupportKind::kUnsupported;
  if (const std::vector<Rule>* list = rules.find(target))
    for (const Rule& rule : *list)  // the lowest opset of a rule of the node's kind
      if (rule.complex == complex && (out.min_opset == 0 || rule.min_opset < out.min_opset)) {
        out.kind = SupportKind::kNeedsOpset;
        out.min_opset = rule.min_opset;
      }
  return out;
}

}  // namespace pt2onnx::translate
