// list_rules: prints the built-in rule registry (target and lowest opset of its rules, then
// "decomposition" where it has one; one target a line) and, last,
// how many distinct aten base ops it covers ("aten.add.Tensor" and "aten.add_.Scalar" are both
// the base op "add"). `list_rules --count` prints only that last line.
#include <iostream>
#include <set>
#include <string>

#include "translate/rule_table.h"

int main(int argc, char** argv) {
  const bool count_only = argc > 1 && std::string(argv[1]) == "--count";
  const pt2onnx::translate::RuleTable& rules = pt2onnx::translate::builtin_rules();
  std::set<std::string> bases;
  size_t aten_targets = 0;
  for (const std::string& target : rules.targets()) {
    if (!count_only) {
      std::cout << target;
      if (const auto* list = rules.find(target)) std::cout << " " << list->back().min_opset;
      if (rules.find_decomposition(target)) std::cout << " decomposition";
      std::cout << "\n";
    }
    if (!target.starts_with("aten.")) continue;
    ++aten_targets;
    std::string base = target.substr(5, target.find('.', 5) - 5);
    if (base.size() > 1 && base.back() == '_' && !base.starts_with("__")) base.pop_back();  // in-place form
    bases.insert(base);
  }
  std::cout << rules.targets().size() << " targets, " << aten_targets << " aten overloads, " << bases.size()
            << " distinct aten base ops\n";
  return 0;
}
