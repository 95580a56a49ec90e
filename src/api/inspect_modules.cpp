// The module call tree: each node's nn_module_stack is a root-to-leaf path of it, so the tree is
// the union of those paths. A module is keyed by its FQN; its parent is the frame before it in
// the first stack that names it (a module called from two places is listed once).
#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/inspect_summary.h"

namespace pt2onnx::inspection {

namespace {

// Modules are numbered in first-call order; names are viewed in the graph's frames.
struct TreeNode {
  ir::FrameView frame;  // the first frame naming it: its path and type (views of the graph's stacks)
  // Other types its frames record: the root of a pt2e-quantized program is torch's export
  // Wrapper in the frames of the nodes torch inserted and the model's class in the others.
  std::vector<std::string_view> other_types;
  bool has_parent = false;
  std::vector<int> children;  // in first-call order
  int64_t nodes = 0;
  int64_t total_nodes = 0;
  int64_t counted_for = -1;  // the last node counted in total_nodes (a module on a stack twice counts once)
};

// Depth-first from `root`, children in call order; an explicit stack, since module stacks may be
// deep (import bounds them by limits().nesting, but the tree is walked without recursion anyway).
void visit(const std::vector<TreeNode>& tree, int root, std::vector<bool>& visited, std::vector<ModuleSummary>& out) {
  std::vector<std::pair<int, int>> pending = {{root, 0}};
  while (!pending.empty()) {
    auto [index, depth] = pending.back();
    pending.pop_back();
    if (visited[static_cast<size_t>(index)]) continue;
    visited[static_cast<size_t>(index)] = true;
    const TreeNode& node = tree[static_cast<size_t>(index)];
    out.push_back({std::string(node.frame.path), std::string(node.frame.type), depth, node.nodes, node.total_nodes});
    for (auto child = node.children.rbegin(); child != node.children.rend(); ++child) pending.emplace_back(*child, depth + 1);
  }
}

}  // namespace

ModuleTree summarize_modules(const ir::Graph& graph) {
  std::vector<TreeNode> tree;
  std::unordered_map<std::string_view, int> index_of;  // path -> module
  ModuleTree result;

  // Neighbouring nodes mostly share their stacks: a frame equal to the previous stack's frame at
  // the same depth is that module, with no lookup.
  std::vector<ir::FrameView> previous, stack;  // the frames of the last stack and of this one
  std::vector<int> previous_index, index;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    stack.assign(node.module_stack.begin(), node.module_stack.end());
    if (stack.empty()) {
      ++result.nodes_outside_modules;
      continue;
    }
    index.assign(stack.size(), 0);
    for (size_t i = 0; i < stack.size(); ++i) {
      const ir::FrameView& frame = stack[i];
      if (i < previous.size() && previous[i].path == frame.path) {
        index[i] = previous_index[i];
      } else {
        auto [it, inserted] = index_of.try_emplace(frame.path, static_cast<int>(tree.size()));
        index[i] = it->second;
        if (inserted) {
          tree.emplace_back().frame = frame;
          if (i > 0 && stack[i - 1].path != frame.path) {
            tree.back().has_parent = true;
            tree[static_cast<size_t>(index[i - 1])].children.push_back(index[i]);
          }
        }
      }
      TreeNode& entry = tree[static_cast<size_t>(index[i])];
      if (frame.type != entry.frame.type &&
          std::find(entry.other_types.begin(), entry.other_types.end(), frame.type) == entry.other_types.end())
        entry.other_types.push_back(frame.type);
      if (entry.counted_for != static_cast<int64_t>(n)) {
        entry.counted_for = static_cast<int64_t>(n);
        ++entry.total_nodes;
      }
    }
    ++tree[static_cast<size_t>(index.back())].nodes;
    std::swap(previous, stack);
    std::swap(previous_index, index);
  }

  // Roots first, then anything a contradictory stack order cut off from every root.
  std::vector<bool> visited(tree.size(), false);
  result.modules.reserve(tree.size());
  for (size_t m = 0; m < tree.size(); ++m)
    if (!tree[m].has_parent) visit(tree, static_cast<int>(m), visited, result.modules);
  for (size_t m = 0; m < tree.size(); ++m) visit(tree, static_cast<int>(m), visited, result.modules);

  std::unordered_map<std::string_view, int64_t> instances_of;
  for (const TreeNode& m : tree) {
    ++instances_of[m.frame.type];
    for (std::string_view type : m.other_types) ++instances_of[type];
  }
  for (const auto& [type, count] : instances_of) result.module_types.emplace(type, count);
  return result;
}

}  // namespace pt2onnx::inspection
