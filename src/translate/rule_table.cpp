// RuleTable: ordered storage and lookup of per-target rules.
#include "translate/rule_table.h"

#include <algorithm>

#include "common/error.h"
#include "translate/rules/register_all.h"

namespace pt2onnx::translate {

namespace {

void insert_rule(std::vector<Rule>& list, Rule rule) {
  // Insert after every rule at least as new, so equal min_opsets keep their registration order.
  auto pos = std::find_if(list.begin(), list.end(), [&](const Rule& r) { return r.min_opset < rule.min_opset; });
  list.insert(pos, rule);
}

}  // namespace

void RuleTable::add(std::string_view target, RuleFn fn, std::string_view note) {
  add(target, Rule{.fn = fn, .note = note});
}

void RuleTable::add_since(int min_opset, std::string_view target, RuleFn fn, std::string_view note) {
  add(target, Rule{.min_opset = min_opset, .fn = fn, .note = note});
}

void RuleTable::add_complex(std::string_view target, RuleFn fn, std::string_view note) {
  add(target, Rule{.fn = fn, .note = note, .complex = true});
}

void RuleTable::add_complex_since(int min_opset, std::string_view target, RuleFn fn, std::string_view note) {
  add(target, Rule{.min_opset = min_opset, .fn = fn, .note = note, .complex = true});
}

void RuleTable::add(std::string_view target, const Rule& rule) { insert_rule(rules_[std::string(target)], rule); }

void RuleTable::compute_half_in_float(std::string_view target) {
  auto it = rules_.find(target);
  PT2ONNX_CHECK(it != rules_.end(), ErrorCode::kInternal, "half-in-float rule list names " + std::string(target) + ", which has no rule");
  for (Rule& rule : it->second)
    if (!rule.complex) rule.half_in_float = true;
}

void RuleTable::add_decomposition(std::string_view target, DecompositionFn fn, std::string_view note) {
  const bool added = decompositions_.emplace(std::string(target), Decomposition{.fn = fn, .note = note}).second;
  PT2ONNX_CHECK(added, ErrorCode::kInternal, "two decompositions of " + std::string(target));
}

const Decomposition* RuleTable::find_decomposition(std::string_view target) const {
  auto it = decompositions_.find(target);
  return it == decompositions_.end() ? nullptr : &it->second;
}

const std::vector<Rule>* RuleTable::find(std::string_view target) const {
  auto it = rules_.find(target);
  return it == rules_.end() ? nullptr : &it->second;
}

bool RuleTable::supports(std::string_view target, int opset) const {
  if (find_decomposition(target)) return true;
  const std::vector<Rule>* list = find(target);
  if (!list) return false;
  return std::any_of(list->begin(), list->end(), [&](const Rule& r) { return r.min_opset <= opset; });
}

bool RuleTable::supports(std::string_view target, int opset, bool complex) const {
  if (find_decomposition(target)) return true;
  const std::vector<Rule>* list = find(target);
  if (!list) return false;
  return std::any_of(list->begin(), list->end(),
                     [&](const Rule& r) { return r.min_opset <= opset && r.complex == complex; });
}

std::vector<std::string> RuleTable::targets() const {
  std::vector<std::string> out;
  out.reserve(rules_.size() + decompositions_.size());
  for (const auto& [target, list] : rules_) out.push_back(target);
  for (const auto& [target, decomposition] : decompositions_)
    if (!rules_.contains(target)) out.push_back(target);
  std::sort(out.begin(), out.end());
  return out;
}

const RuleTable& builtin_rules() {
  static const RuleTable table = [] {
    RuleTable t;
    register_all_rules(t);
    return t;
  }();
  return table;
}

}  // namespace pt2onnx::translate
