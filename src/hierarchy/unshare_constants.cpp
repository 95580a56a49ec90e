// Per-instance copies of shared input-less Constant nodes.
#include "hierarchy/unshare_constants.h"

#include <map>

namespace pt2onnx::hierarchy {

std::string fresh_name(const std::string& base, std::set<std::string>& names) {
  std::string name = base;
  for (int suffix = 1; names.count(name); ++suffix) name = base + "_" + std::to_string(suffix);
  names.insert(name);
  return name;
}

bool unshare_constants(std::vector<onnx::NodeProto>& nodes, ModuleStacks& stacks, const std::vector<int>& group_of,
                       const std::set<std::string>& graph_outputs, std::set<std::string>& names) {
  std::map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const std::string& in : nodes[i].input())
      if (!in.empty()) readers[in].push_back(i);

  struct Clone {
    onnx::NodeProto node;
    std::vector<ir::ModuleFrame> stack;
  };
  std::map<size_t, std::vector<Clone>> before;  // node index -> clones to insert before it
  std::vector<bool> dropped(nodes.size(), false);
  bool changed = false;
  for (size_t c = 0; c < nodes.size(); ++c) {
    const onnx::NodeProto& constant = nodes[c];
    if (constant.op_type() != "Constant" || !constant.domain().empty() || constant.input_size() != 0 ||
        constant.output_size() != 1 || graph_outputs.count(constant.output(0)))
      continue;
    const std::string value = constant.output(0);
    std::map<int, std::vector<size_t>> readers_by_group;
    for (size_t r : readers[value]) readers_by_group[group_of[r]].push_back(r);
    for (const auto& [group, group_readers] : readers_by_group) {
      if (group == group_of[c]) continue;
      Clone clone{constant, stacks[group_readers.front()]};
      const std::string copy = fresh_name(value + "_copy", names);
      clone.node.set_output(0, copy);
      clone.node.set_name("node_" + copy);
      for (size_t r : group_readers)
        for (std::string& in : *nodes[r].mutable_input())
          if (in == value) in = copy;
      before[group_readers.front()].push_back(std::move(clone));
      changed = true;
    }
    dropped[c] = !readers_by_group.count(group_of[c]) && !readers_by_group.empty();
  }
  if (!changed) return false;

  std::vector<onnx::NodeProto> new_nodes;
  ModuleStacks new_stacks;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (auto it = before.find(i); it != before.end())
      for (Clone& clone : it->second) {
        new_nodes.push_back(std::move(clone.node));
        new_stacks.push_back(std::move(clone.stack));
      }
    if (dropped[i]) continue;
    new_nodes.push_back(std::move(nodes[i]));
    new_stacks.push_back(std::move(stacks[i]));
  }
  nodes = std::move(new_nodes);
  stacks = std::move(new_stacks);
  return true;
}

}  // namespace pt2onnx::hierarchy
