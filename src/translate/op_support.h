// Whether the converter translates an op: the one answer that convert's refusal of unsupported
// ops, inspect's op histogram and `pt2onnx ops` all read (as torch.onnx's analysis reuses its
// dispatcher).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "translate/custom_op_rule.h"
#include "translate/rule_table.h"

namespace pt2onnx::translate {

enum class SupportKind {
  kSupported,    // a built-in rule of the node's kind (real or complex) is valid at the opset
  kConfigRule,   // a config rule (--config) translates it
  kDropped,      // a runtime check the converter drops (liveness.h is_dropped_target)
  kNeedsOpset,   // built-in rules of its kind exist, all for newer opsets
  kUnsupported,  // no rule of its kind at all
};

struct Support {
  SupportKind kind = SupportKind::kSupported;
  int min_opset = 0;  // kNeedsOpset: the lowest opset of a rule of the node's kind
  std::string rule;   // kConfigRule: the config rule's origin
  // Whether convert refuses a live node so classified.
  bool refused() const { return kind == SupportKind::kNeedsOpset || kind == SupportKind::kUnsupported; }
};

// How a node of `target` is translated at `opset`; `complex`: the node reads or writes a complex
// value, which only complex rules translate. Config rules (`custom`) come first, as in translation.
Support classify(const std::string& target, bool complex, int opset, const RuleTable& rules,
                 const std::vector<CustomOpRule>& custom);

// How a refused complex node's op is named: "aten.exp.default on complex values".
inline constexpr std::string_view kOnComplexValues = " on complex values";

}  // namespace pt2onnx::translate
