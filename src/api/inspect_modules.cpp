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

void visit(const std::map<std::string, TreeNode>& tree, const std::string& path, int depth,
           std::set<std::string>& visited, std::vector<ModuleSummary>& out) {
  if (!visited.insert(path).second) return;
  const TreeNode& node = tree.at(path);
  out.push_back({path, node.type, depth, node.nodes, node.total_nodes});
  for (const std::string& child : node.children) visit(tree, child, depth + 1, visited, out);
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
    if (!tree.at(path).has_parent) visit(tree, path, 0, visited, result.modules);
  for (const std::string& path : first_seen) visit(tree, path, 0, visited, result.modules);

  for (const ModuleSummary& m : result.modules) ++result.module_types[m.type];
  return result;
}

}  // namespace pt2onnx::inspection
