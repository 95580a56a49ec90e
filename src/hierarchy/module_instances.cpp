// Instances of a module type: nodes grouped by the frame keys down to the matching frame.
#include "hierarchy/module_instances.h"

#include <map>
#include <unordered_map>

namespace pt2onnx::hierarchy {

bool type_matches(std::string_view wanted, std::string_view type) {
  if (wanted.empty()) return false;
  if (type == wanted) return true;
  return type.size() > wanted.size() && type.compare(type.size() - wanted.size(), wanted.size(), wanted) == 0 &&
         type[type.size() - wanted.size() - 1] == '.';
}

std::vector<std::pair<std::string, int>> module_types(const ModuleStacks& stacks) {
  std::map<std::string, std::map<std::string, bool>> keys_of_type;
  for (const auto& stack : stacks)
    for (const ir::FrameView frame : stack) keys_of_type[std::string(frame.type)][std::string(frame.key)] = true;
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [type, keys] : keys_of_type) out.emplace_back(type, static_cast<int>(keys.size()));
  return out;
}

int deepest_match(const std::string& wanted, const ModuleStacks& stacks) {
  int deepest = -1;
  for (size_t i = 0; i < stacks.size(); ++i) {
    const auto& stack = stacks[i];
    if (i > 0 && stack.same_as(stacks[i - 1])) continue;  // consecutive nodes often share one stack
    for (size_t j = 0; j < stack.size(); ++j)
      if (type_matches(wanted, stack[j].type)) {
        deepest = std::max(deepest, static_cast<int>(j));
        break;  // the outermost match is the one that groups the node
      }
  }
  return deepest;
}

namespace {

bool has_root_frame(const ir::ModuleStack& stack) { return !stack.empty() && stack[0].path.empty(); }

// Whether `wanted` names the type of a root frame (empty path) of any node.
bool wants_root(const std::string& wanted, const ModuleStacks& stacks) {
  for (size_t i = 0; i < stacks.size(); ++i)
    if ((i == 0 || !stacks[i].same_as(stacks[i - 1])) && has_root_frame(stacks[i]) &&
        type_matches(wanted, stacks[i][0].type))
      return true;
  return false;
}

}  // namespace

InstanceMap find_instances(const std::string& wanted, const ModuleStacks& stacks) {
  InstanceMap map;
  map.group_of.assign(stacks.size(), -1);
  std::unordered_map<std::string, int> index_of_key;
  std::string key;
  // Frames with an empty path are all the root module, whatever key and type each records: in a
  // program torch exported again (pt2e's convert), the nodes it inserted carry torch's export
  // Wrapper as their root frame and the model's own nodes the model's class. A type that names
  // either folds every node under a root frame, and the instance takes its type from a member
  // whose root frame is the type named.
  const bool root = wants_root(wanted, stacks);
  int root_group = -1;
  for (size_t i = 0; i < stacks.size(); ++i) {
    const auto& stack = stacks[i];
    if (i > 0 && stack.same_as(stacks[i - 1])) {  // one held stack: the previous node's instance
      map.group_of[i] = map.group_of[i - 1];
      if (map.group_of[i] >= 0) map.instances[static_cast<size_t>(map.group_of[i])].nodes.push_back(i);
      continue;
    }
    if (root && has_root_frame(stack)) {
      if (root_group < 0) {
        root_group = static_cast<int>(map.instances.size());
        map.instances.push_back({std::string(), stack, 1, {}});
      }
      Instance& instance = map.instances[static_cast<size_t>(root_group)];
      if (!type_matches(wanted, instance.type()) && type_matches(wanted, stack[0].type)) instance.first_stack = stack;
      map.group_of[i] = root_group;
      instance.nodes.push_back(i);
      continue;
    }
    key.clear();
    for (size_t j = 0; j < stack.size(); ++j) {
      if (j) key += '/';
      key += stack[j].key;
      if (!type_matches(wanted, stack[j].type)) continue;
      auto it = index_of_key.find(key);  // found for most nodes: no key copied
      if (it == index_of_key.end()) {
        it = index_of_key.emplace(key, static_cast<int>(map.instances.size())).first;
        map.instances.push_back({std::string(stack[j].path), stack, j + 1, {}});
      }
      map.group_of[i] = it->second;
      map.instances[static_cast<size_t>(it->second)].nodes.push_back(i);
      break;
    }
  }
  return map;
}

}  // namespace pt2onnx::hierarchy
