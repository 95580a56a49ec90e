// inline_mode_wrappers: grad-mode and disabled-autocast wrapper HOPs replaced by their bodies.
#include "import/inline_wrappers.h"

#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace pt2onnx::import {

namespace {

constexpr const char* kGradWrapper = "higher_order.wrap_with_set_grad_enabled";
constexpr const char* kAutocastWrapper = "higher_order.wrap_with_autocast";

// The name an argument refers to when it is a single value (tensor or symbolic scalar), else "".
std::string value_name(const ir::Argument& arg) {
  if (const auto* t = std::get_if<ir::TensorArg>(&arg)) return t->name;
  if (const auto* i = std::get_if<ir::SymIntArg>(&arg))
    if (const auto* s = std::get_if<std::string>(&i->v)) return *s;
  if (const auto* f = std::get_if<ir::SymFloatArg>(&arg))
    if (const auto* s = std::get_if<std::string>(&f->v)) return *s;
  if (const auto* b = std::get_if<ir::SymBoolArg>(&arg))
    if (const auto* s = std::get_if<std::string>(&b->v)) return *s;
  return {};
}

class Renamer {
 public:
  explicit Renamer(std::map<std::string, std::string> map) : map_(std::move(map)) {}

  std::string operator()(const std::string& name) const {
    auto it = map_.find(name);
    return it == map_.end() ? name : it->second;
  }

  void apply(ir::Argument& arg) const {
    std::visit([this](auto& a) { rename(a); }, arg);
  }

 private:
  template <typename T>
  void rename_sym(T& a) const {
    if (auto* s = std::get_if<std::string>(&a.v)) *s = (*this)(*s);
  }
  void rename(ir::TensorArg& a) const { a.name = (*this)(a.name); }
  void rename(ir::TensorListArg& a) const {
    for (auto& n : a.names) n = (*this)(n);
  }
  void rename(ir::OptionalTensorListArg& a) const {
    for (auto& n : a.names)
      if (n) *n = (*this)(*n);
  }
  void rename(ir::SymIntArg& a) const { rename_sym(a); }
  void rename(ir::SymFloatArg& a) const { rename_sym(a); }
  void rename(ir::SymBoolArg& a) const { rename_sym(a); }
  void rename(ir::SymIntListArg& a) const {
    for (auto& i : a.items) rename_sym(i);
  }
  void rename(ir::SymFloatListArg& a) const {
    for (auto& i : a.items) rename_sym(i);
  }
  void rename(ir::SymBoolListArg& a) const {
    for (auto& i : a.items) rename_sym(i);
  }
  void rename(ir::NestedTensorListArg& a) const {
    for (auto& list : a.names)
      for (auto& n : list) n = (*this)(n);
  }
  void rename(ir::TokenArg& a) const { a.name = (*this)(a.name); }
  template <typename T>
  void rename(T&) const {}  // constants, graphs and the like name no value

  std::map<std::string, std::string> map_;
};

// The index of the wrapper's subgraph argument and whether this wrapper may be inlined.
std::pair<size_t, bool> wrapper_graph(const ir::Node& node) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!std::holds_alternative<ir::GraphArg>(node.inputs[i].arg)) continue;
    if (node.target == kGradWrapper) return {i, true};
    // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, body, *operands)
    if (i >= 3) {
      if (const auto* enabled = std::get_if<ir::SymBoolArg>(&node.inputs[2].arg))
        if (const auto* b = std::get_if<bool>(&enabled->v)) return {i, !*b};
    }
    return {i, false};
  }
  return {0, false};
}

// The nodes replacing `node`, or nothing when it stays as it is.
bool inline_node(ir::Graph& graph, const ir::Node& node, std::vector<ir::Node>& out) {
  if (node.target != kGradWrapper && node.target != kAutocastWrapper) return false;
  const auto [index, ok] = wrapper_graph(node);
  if (!ok) return false;
  const auto& graph_arg = std::get<ir::GraphArg>(node.inputs[index].arg);
  if (!graph_arg.graph) return false;
  ir::Graph body = *graph_arg.graph;
  inline_mode_wrappers(body);
  const size_t operands = node.inputs.size() - index - 1;
  if (body.inputs.size() != operands || body.outputs.size() != node.outputs.size()) return false;

  std::map<std::string, std::string> map;
  for (size_t i = 0; i < operands; ++i) {
    const std::string inner = value_name(body.inputs[i]);
    const std::string outer = value_name(node.inputs[index + 1 + i].arg);
    if (inner.empty() || outer.empty()) return false;
    map[inner] = outer;
  }
  // Outputs that are inputs of the body pass an operand through: an alias node keeps the name.
  std::vector<ir::Node> aliases;
  for (size_t i = 0; i < body.outputs.size(); ++i) {
    const std::string inner = value_name(body.outputs[i]);
    const std::string outer = value_name(node.outputs[i]);
    if (inner.empty() || outer.empty()) return false;
    if (map.count(inner)) {
      if (!std::holds_alternative<ir::TensorArg>(node.outputs[i])) return false;
      ir::Node alias;
      alias.name = outer;
      alias.target = "aten.alias.default";
      alias.inputs.push_back({"self", ir::TensorArg{map[inner]}, false});
      alias.outputs.push_back(ir::TensorArg{outer});
      alias.module_stack = node.module_stack;
      aliases.push_back(std::move(alias));
    } else {
      map[inner] = outer;
    }
  }
  const std::string prefix = node.name + "__";
  auto fresh = [&](const std::string& inner) {
    auto [it, inserted] = map.emplace(inner, prefix + inner);
    (void)inserted;
    return it->second;
  };
  for (const auto& [name, meta] : body.tensor_values) graph.tensor_values.emplace(fresh(name), meta);
  for (const auto& [name, dim] : body.sym_int_values) graph.sym_int_values.emplace(fresh(name), dim);
  for (const auto& [name, text] : body.sym_bool_values) graph.sym_bool_values.emplace(fresh(name), text);
  for (const auto& [name, text] : body.sym_float_values) graph.sym_float_values.emplace(fresh(name), text);
  for (const ir::Node& inner : body.nodes) {
    for (const ir::Argument& o : inner.outputs) {
      const std::string n = value_name(o);
      if (!n.empty()) fresh(n);
    }
  }
  const Renamer rename(std::move(map));
  for (ir::Node inner : body.nodes) {
    for (auto& input : inner.inputs) rename.apply(input.arg);
    for (auto& output : inner.outputs) rename.apply(output);
    inner.name = rename(inner.name) == inner.name ? prefix + inner.name : rename(inner.name);
    if (inner.module_stack.empty()) inner.module_stack = node.module_stack;
    out.push_back(std::move(inner));
  }
  for (auto& a : aliases) out.push_back(std::move(a));
  return true;
}

}  // namespace

void inline_mode_wrappers(ir::Graph& graph) {
  bool any = false;
  for (const ir::Node& node : graph.nodes)
    if (node.target == kGradWrapper || node.target == kAutocastWrapper) any = true;
  if (!any) return;
  std::vector<ir::Node> nodes;
  nodes.reserve(graph.nodes.size());
  for (ir::Node& node : graph.nodes) {
    std::vector<ir::Node> replacement;
    if (inline_node(graph, node, replacement)) {
      for (auto& r : replacement) nodes.push_back(std::move(r));
    } else {
      nodes.push_back(std::move(node));
    }
  }
  graph.nodes = std::move(nodes);
}

}  // namespace pt2onnx::import
