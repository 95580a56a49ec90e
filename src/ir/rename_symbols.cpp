#include "ir/rename_symbols.h"

#include "common/error.h"

#include <cctype>
#include <set>
#include <type_traits>
#include <variant>

namespace pt2onnx::ir {

namespace {

using Names = std::map<std::string, std::string>;

void rename_dim(Dim& d, const Names& names) {
  if (!d.is_static()) d.value = rename_symbols(d.as_expr(), names);
}

// SymBool/SymFloat values are kept as expression text: rename whole identifiers only.
std::string rename_in_text(const std::string& text, const Names& names) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      const std::string word = text.substr(i, j - i);
      const auto it = names.find(word);
      out += it == names.end() ? word : it->second;
      i = j;
    } else {
      out += text[i++];
    }
  }
  return out;
}

template <typename Visit>
void for_each_subgraph(Graph& graph, const Visit& visit) {
  for (Node& node : graph.nodes)
    for (NamedArgument& input : node.inputs)
      if (auto* g = std::get_if<GraphArg>(&input.arg); g && g->graph) visit(*g);
}

void rename_graph(Graph& graph, const Names& names) {
  for (auto& [name, meta] : graph.tensor_values) {
    for (Dim& d : meta.sizes) rename_dim(d, names);
    for (Dim& d : meta.strides) rename_dim(d, names);
  }
  for (auto& [name, d] : graph.sym_int_values) rename_dim(d, names);
  for (auto& [name, text] : graph.sym_bool_values) text = rename_in_text(text, names);
  for (auto& [name, text] : graph.sym_float_values) text = rename_in_text(text, names);
  for_each_subgraph(graph, [&](GraphArg& g) {
    // Nested graphs are shared and immutable; the renamed one is a copy.
    auto copy = std::make_shared<Graph>(*g.graph);
    rename_graph(*copy, names);
    g.graph = std::move(copy);
  });
}

void collect_graph_symbols(const Graph& graph, std::set<std::string>& out) {
  auto add = [&](const Dim& d) {
    if (d.is_static()) return;
    for (const std::string& s : free_symbols(d.as_expr())) out.insert(s);
  };
  for (const auto& [name, meta] : graph.tensor_values) {
    for (const Dim& d : meta.sizes) add(d);
    for (const Dim& d : meta.strides) add(d);
  }
  for (const auto& [name, d] : graph.sym_int_values) add(d);
  for (const Node& node : graph.nodes)
    for (const NamedArgument& input : node.inputs)
      if (const auto* g = std::get_if<GraphArg>(&input.arg); g && g->graph) collect_graph_symbols(*g->graph, out);
}

}  // namespace

SymExpr rename_symbols(const SymExpr& e, const Names& names) {
  if (e->op == SymOp::kSymbol) {
    const auto it = names.find(e->name);
    return it == names.end() ? e : sym_symbol(it->second);
  }
  if (e->args.empty()) return e;
  std::vector<SymExpr> args;
  args.reserve(e->args.size());
  bool changed = false;
  for (const SymExpr& a : e->args) {
    args.push_back(rename_symbols(a, names));
    changed = changed || args.back() != a;
  }
  return changed ? sym_apply(e->op, std::move(args)) : e;
}

void rename_symbols(Program& program, const Names& names) {
  if (names.empty()) return;
  rename_graph(program.graph, names);
  std::map<std::string, RangeConstraint> ranges;
  // Keys are symbols, or expression text for derived dims.
  for (const auto& [key, range] : program.range_constraints) ranges[rename_in_text(key, names)] = range;
  program.range_constraints = std::move(ranges);
}

std::vector<std::string> program_symbols(const Program& program) {
  std::set<std::string> out;
  collect_graph_symbols(program.graph, out);
  for (const auto& [key, range] : program.range_constraints) {
    try {
      for (const std::string& s : free_symbols(parse_sym_expr(key))) out.insert(s);
    } catch (const Error&) {
      // A key that is no integer expression names no symbol a user could rename.
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace pt2onnx::ir
