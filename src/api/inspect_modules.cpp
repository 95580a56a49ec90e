// The module call tree: each node's nn_module_stack is a root-to-leaf path of it, so the tree is
// the union of those paths. A module is keyed by its FQN; its parent is the frame before it in
// the first stack that names it (a module called from two places is listed once).
#include <set>
#include <string>
#include <vector>

#include "api/inspect_summary.h"

namespace pt2onnx::inspection {

namespace {

struct TreeNode {
  std::string type;
  std::string parent;
  bool has_parent = false;
  std::vector<std::string> children;  // in first-call order
  int64_t nodes = 0;
  int64_t total_nodes = 0;
};

// Depth-first from `root`, children in call order; an explicit stack, since module stacks may be
// deep (import bounds them by limits().nesting, but the tree is walked without recursion anyway).
void visit(const std::map<std::string, TreeNode>& tree, const std::string& root, std::set<std::string>& visited,
           std::vector<ModuleSummary>& out) {
  std::vector<std::pair<const std::string*, int>> pending = {{&root, 0}};
  while (!pending.empty()) {
    auto [path, depth] = pending.back();
    pending.pop_back();
    if (!visited.insert(*path).second) continue;
    const TreeNode& node = tree.at(*path);
    out.push_back({*path, node.type, depth, node.nodes, node.total_nodes});
    for (auto child = node.children.rbegin(); child != node.children.rend(); ++child)
      pending.emplace_back(&*child, depth + 1);
  }
}

}  // namespace

ModuleTree summarize_modules(const ir::Graph& graph) {
  std::map<std::string, TreeNode> tree;
  std::vector<std::string> first_seen;  // every module, in first-call order
  ModuleTree result;

  for (const ir::Node& node : graph.nodes) {
    if (node.module_stack.empty()) {
      ++result.nodes_outside_modules;
      continue;
    }
    std::set<std::string> counted;  // a module on the stack twice (recursion) counts the node once
    for (size_t i = 0; i < node.module_stack.size(); ++i) {
      const ir::ModuleFrame& frame = node.module_stack[i];
      auto [it, inserted] = tree.try_emplace(frame.path);
      TreeNode& entry = it->second;
      if (inserted) {
        entry.type = frame.type;
        first_seen.push_back(frame.path);
        if (i > 0 && node.module_stack[i - 1].path != frame.path) {
          entry.parent = node.module_stack[i - 1].path;
          entry.has_parent = true;
          tree.at(entry.parent).children.push_back(frame.path);
        }
      }
      if (counted.insert(frame.path).second) ++entry.total_nodes;
    }
    ++tree.at(node.module_stack.back().path).nodes;
  }

  // Roots first, then anything a contradictory stack order cut off from every root.
  std::set<std::string> visited;
  for (const std::string& path : first_seen)
    if (!tree.at(path).has_parent) visit(tree, path, visited, result.modules);
  for (const std::string& path : first_seen) visit(tree, path, visited, result.modules);

  for (const ModuleSummary& m : result.modules) ++result.module_types[m.type];
  return result;
}

}  // namespace pt2onnx::inspection
