// Gives each instance its own copy of the cheap values it reads from elsewhere: input-less
// Constant nodes (the translator caches small constants and emits each once, at its first use)
// and shape arithmetic on graph inputs (in core ATen IR, a symbolic size such as batch*17 is one
// FX value, computed in the first module instance that needs it and read by the later ones).
// Without this the first instance would export a value that later instances import, and their
// bodies would differ for no reason. A clone's own cheap inputs are cloned too, once per instance.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "common/interned_names.h"
#include "hierarchy/module_instances.h"

namespace pt2onnx::hierarchy {

// Value and node names of a graph: looked up and added to, never listed or removed. Each is held
// once in InternedNames' text blocks (a 100k-node graph has ~600k value and node names; a
// std::unordered_set<std::string> of them cost two allocations a name and ~40 MB).
class NameSet {
 public:
  bool count(std::string_view name) const { return names_.find(name) != InternedNames::kAbsent; }
  void insert(std::string_view name) { names_.intern(name); }
  void reserve(size_t count) { names_.reserve(count); }

 private:
  InternedNames names_;
};

// `group_of[i]`: the instance of nodes[i] (-1 outside). A clone goes right before the first
// reader in its instance, with that reader's module stack; an original left without readers is
// dropped. `names` holds every value name of the graph; new names are added to it. Graph outputs
// are left alone. Returns whether anything changed (then instances must be found again).
bool unshare_constants(std::vector<onnx::NodeProto>& nodes, ModuleStacks& stacks, const std::vector<int>& group_of,
                       const NameSet& graph_inputs, const NameSet& graph_outputs, NameSet& names);

// `base` if not in `names`, else base_1, base_2, ...; added to `names`. With `next_suffix`
// (per base, the first suffix that may be free; valid while `names` only grows), a base asked
// for k times costs k lookups, not k^2/2: one GELU constant cloned into 2,000 instances made
// --hiera quadratic.
std::string fresh_name(const std::string& base, NameSet& names,
                       std::unordered_map<std::string, int>* next_suffix = nullptr);

}  // namespace pt2onnx::hierarchy
