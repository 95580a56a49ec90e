// The op registry: target -> rules, each valid from an opset on. Lookup tries the rules whose
// min_opset fits the target opset, newest first; a rule may decline ("not my case") and let the
// next one try. A target may also have a decomposition (decompositions/decompose.h), which
// rewrites the node into other aten nodes before translation; where it declines, the target's
// rules translate the node. Filled explicitly by register_all_rules(), never by static initialisers.
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
class AtenBuilder;
class NodeArgs;

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

// A decomposition writes the node through the builder (decompositions/aten_builder.h) and returns
// kEmitted, or returns kDeclined having written nothing that stays.
using DecompositionFn = RuleResult (*)(AtenBuilder&, const NodeArgs&);

struct Decomposition {
  DecompositionFn fn = nullptr;
  std::string_view note;  // why it may decline; shown when a node it declined has no rule either
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
  // Adds the decomposition of `target` (one per target; valid at every opset, real or complex).
  void add_decomposition(std::string_view target, DecompositionFn fn, std::string_view note = {});
  // All rules of `target`, newest first, or nullptr.
  const std::vector<Rule>* find(std::string_view target) const;
  // The decomposition of `target`, or nullptr.
  const Decomposition* find_decomposition(std::string_view target) const;
  // True when `target` has a decomposition or some rule valid at `opset`.
  bool supports(std::string_view target, int opset) const;
  // True when `target` has a decomposition or some rule for real (complex = false) or complex
  // nodes valid at `opset`.
  bool supports(std::string_view target, int opset, bool complex) const;
  // Registered targets (rules and decompositions), sorted (feeds `list-ops`).
  std::vector<std::string> targets() const;

 private:
  std::map<std::string, std::vector<Rule>, std::less<>> rules_;
  std::map<std::string, Decomposition, std::less<>> decompositions_;
};

// The built-in rule set, built once.
const RuleTable& builtin_rules();

}  // namespace pt2onnx::translate
