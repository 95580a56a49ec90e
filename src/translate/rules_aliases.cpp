// Targets that are another target under a second name and share its rules: registered last, by
// copying the rules the families registered for the original, so the rule stays in its family's
// file and the alias cannot drift from it.
#include "translate/register_all.h"

namespace pt2onnx::translate {

void register_alias_rules(RuleTable& t) {
  // The unchecked forms that decompositions (upsampling, index_put on views) write: same
  // semantics, no bounds checks.
  const std::pair<const char*, const char*> aliases[] = {
      {"aten._unsafe_index.Tensor", "aten.index.Tensor"},
      {"aten._unsafe_index_put.default", "aten.index_put.default"},
      {"aten.unsafe_split.Tensor", "aten.split.Tensor"},
  };
  for (const auto& [alias, original] : aliases)
    if (const std::vector<Rule>* rules = t.find(original))
      for (const Rule& rule : *rules) t.add(alias, rule.min_opset, rule.fn, rule.note);
}

}  // namespace pt2onnx::translate
