// supported_ops(): the built-in rule table as `pt2onnx ops` shows it.
#include <algorithm>

#include "pt2onnx.h"
#include "translate/op_support.h"
#include "translate/rule_table.h"

namespace pt2onnx {

std::vector<OpCoverage> supported_ops(int opset) {
  const translate::RuleTable& rules = translate::builtin_rules();
  std::vector<OpCoverage> out;
  for (const std::string& target : rules.targets()) {
    OpCoverage op{target, {}, rules.find_decomposition(target) != nullptr};
    for (int v = kMinOpset; v <= kMaxOpset; ++v)
      for (const bool complex : {false, true})
        if (translate::classify(target, complex, v, rules, {}).kind == translate::SupportKind::kSupported) {
          op.opsets.push_back(v);
          break;
        }
    if (op.opsets.empty()) continue;  // only rules for opsets we do not emit
    if (opset > 0 && std::find(op.opsets.begin(), op.opsets.end(), opset) == op.opsets.end()) continue;
    out.push_back(std::move(op));
  }
  return out;
}

}  // namespace pt2onnx
