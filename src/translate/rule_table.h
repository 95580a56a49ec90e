// The op registry: target -> rules, each valid from an opset on. Lookup tries the rules whose
// min_opset fits the target opset, newest first; a rule may decline ("not my case") and let the
// next one try. Filled explicitly by register_all_rules(), never by static initialisers.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pt2onnx::ir {
struct Node;
}

namespace pt2onnx::translate {

class EmitContext;

enum class RuleResult { kEmitted, kDeclined };  // declined = "not my case", not an error
using RuleFn = RuleResult (*)(EmitContext&, const ir::Node&);

struct Rule {
  int min_opset = 1;  // 1: valid at every opset pt2onnx emits (add); higher: add_since
  RuleFn fn = nullptr;
  std::string_view note;  // why a rule may decline; shown when every rule declines
  // A complex rule is tried only on nodes that read or write a complex tensor (complex_values.h),
  // and only complex rules are: the real rules know nothing of the real/imaginary pair axis.
  bool complex = false;
  // Computes float16/bfloat16 operands in float and rounds its results once, as torch's kernel
  // does (half_in_float.h); set by compute_half_in_float.
  bool half_in_float = false;
};

class RuleTable {
 public:
  // Adds a rule valid at every opset pt2onnx emits. Several rules of one target are kept newest
  // (highest min_opset) first, rules of equal min_opset in the order added.
  void add(std::string_view target, RuleFn fn, std::string_view note = {});
  // Adds a rule that needs an ONNX op or form of `min_opset` (above the lowest opset pt2onnx
  // emits); below it the target's other rules, if any, are tried.
  void add_since(int min_opset, std::string_view target, RuleFn fn, std::string_view note = {});
  // The same for nodes with complex operands or results (see Rule::complex).
  void add_complex(std::string_view target, RuleFn fn, std::string_view note = {});
  void add_complex_since(int min_opset, std::string_view target, RuleFn fn, std::string_view note = {});
  // Adds a copy of an existing rule under another target (aliases, complex pair forms).
  void add(std::string_view target, const Rule& rule);
  // Marks the real rules of `target` (which must have some) as computing half operands in float.
  void compute_half_in_float(std::string_view target);
  // All rules of `target`, newest first, or nullptr.
  const std::vector<Rule>* find(std::string_view target) const;
  // True when some rule of `target` is valid at `opset`.
  bool supports(std::string_view target, int opset) const;
  // True when some rule of `target` for real (complex = false) or complex nodes is valid at `opset`.
  bool supports(std::string_view target, int opset, bool complex) const;
  // Registered targets, sorted (feeds `list-ops`).
  std::vector<std::string> targets() const;

 private:
  std::map<std::string, std::vector<Rule>, std::less<>> rules_;
};

// The built-in rule set, built once.
const RuleTable& builtin_rules();

}  // namespace pt2onnx::translate
