// Which nodes of a graph form each instance of a module type, from the nodes' module stacks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/program.h"

namespace pt2onnx::hierarchy {

using ir::ModuleStacks;

// `type` (a qualified class) is what `wanted` names: equal, or ending in "." + wanted.
bool type_matches(std::string_view wanted, std::string_view type);

// Every qualified module type in `stacks`, sorted, with the number of distinct frames (keys).
std::vector<std::pair<std::string, int>> module_types(const ModuleStacks& stacks);

// The deepest stack position at which `wanted` matches a frame (0 = outermost), -1 if none.
int deepest_match(const std::string& wanted, const ModuleStacks& stacks);

struct Instance {
  std::string path;                      // module path of the matched frame
  // The stack of the first member (of the root instance: of the first whose root frame is the
  // type asked for), shared with it (not a copy of its outer frames per instance), and how many
  // of its frames reach down to the matched one.
  ir::ModuleStack first_stack;
  size_t depth = 0;
  std::vector<size_t> nodes;             // member node indices, ascending

  std::string type() const { return std::string(first_stack[depth - 1].type); }
  // The stack above the matched frame: the call's.
  ir::ModuleStack outer_stack() const { return first_stack.prefix(depth - 1); }
};

struct InstanceMap {
  std::vector<int> group_of;         // per node: its instance index, -1 when outside all
  std::vector<Instance> instances;   // in order of first member
};

// A node belongs to the instance of the outermost frame of its stack that `wanted` matches. Root
// frames (empty path) are one module whatever type each records: when `wanted` matches any, every
// node with a root frame belongs to the root instance.
InstanceMap find_instances(const std::string& wanted, const ModuleStacks& stacks);

}  // namespace pt2onnx::hierarchy
