// Cheap values read across instance boundaries: input-less Constant nodes (the translator caches
// small constants and emits each once, at its first use) and shape arithmetic on graph inputs (in
// core ATen IR, a symbolic size such as batch*17 is one FX value, computed in the first module
// instance that needs it and read by the later ones). Left as they are, the first instance would
// export a value that later instances import, and their bodies would differ for no reason. So an
// instance that reads one takes a copy into its body (with_borrowed: the node itself stands in
// for the copy while the body is built, so no node is made for instances that are then
// contracted), and a node outside every instance gets a copy of its own (unshare_constants).
// A copy's own cheap inputs are copied too.
#pragma once

#include <algorithm>

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <onnx/onnx_pb.h>

#include "common/interned_names.h"
#include "hierarchy/instance_body.h"
#include "hierarchy/module_instances.h"

namespace pt2onnx::hierarchy {

// Value and node names of a graph: looked up and added to, never listed or removed. Each is held
// once in InternedNames' text blocks: a large graph has several names a node, and a
// std::unordered_set<std::string> costs two allocations a name.
class NameSet {
 public:
  using Id = InternedNames::Id;
  static constexpr Id kAbsent = InternedNames::kAbsent;

  bool count(std::string_view name) const { return names_.find(name) != kAbsent; }
  void insert(std::string_view name) { names_.intern(name); }
  void reserve(size_t count) { names_.reserve(count); }
  // Dense ids (0 .. size()-1) of the names held, kAbsent for others: what callers know per
  // name lives in a vector by id rather than in a table of its own.
  Id id(std::string_view name) const { return names_.find(name); }
  size_t size() const { return names_.size(); }

 private:
  InternedNames names_;
};

// The values of a graph's cheap nodes (one output each), with the node that makes each.
struct CheapValues {
  std::unordered_map<std::string_view, size_t> producer;  // views the cheap nodes' outputs
  // The cheap node making `value`, or -1; graph outputs are never copied, so never cheap here.
  long made_by(std::string_view value) const {
    auto it = producer.find(value);
    return it == producer.end() ? -1 : static_cast<long>(it->second);
  }
  // The cheap node making `value` when it lies outside instance `group` (group_of as below), or
  // -1: what a reader in `group` would take a copy of.
  long made_outside(std::string_view value, const std::vector<int>& group_of, int group) const {
    const long maker = made_by(value);
    return maker >= 0 && group_of[static_cast<size_t>(maker)] != group ? maker : -1;
  }
};
CheapValues cheap_values(const Nodes& nodes, const NameSet& graph_inputs,
                         const NameSet& graph_outputs);

// `group_of[i]`: the instance of nodes[i] (-1 outside); `cheap`: cheap_values of `nodes`. Gives
// each node outside every instance that reads a cheap value made inside one its own copy, right
// before the first such reader, with that reader's module stack; an original left without
// readers is dropped. `names` holds every value name of the graph; new names are added to it.
// Returns whether anything changed (then instances and cheap values must be found again).
bool unshare_constants(Nodes& nodes, ModuleStacks& stacks, const std::vector<int>& group_of,
                       const CheapValues& cheap, NameSet& names);

// Whether nodes[i], inside an instance, takes its own copy of `value`: a cheap value made outside
// its instance that it has as an input (a subgraph's outer read of it is not copied).
bool borrows(const Nodes& nodes, size_t i, const std::string& value,
             const std::vector<int>& group_of, const CheapValues& cheap);

// The members of instance `group` (ascending) with the cheap nodes they copy in: each right
// before its first reader, its own copied inputs first, as copies in the graph would stand.
// `borrowed` receives the nodes copied in.
std::vector<size_t> with_borrowed(const Nodes& nodes, const std::vector<size_t>& members,
                                  const std::vector<int>& group_of, int group, const CheapValues& cheap,
                                  std::vector<size_t>& borrowed);

// with_borrowed's order, for any way of naming values: copied_makers(p, visit) calls visit(q) for
// the cheap maker q of each input of node p that p copies in (InstanceIds uses it by value id).
template <typename CopiedMakers>
std::vector<size_t> with_borrowed_by(const std::vector<size_t>& members, std::vector<size_t>& borrowed,
                                     CopiedMakers&& copied_makers) {
  borrowed.clear();
  std::vector<size_t> out;
  out.reserve(members.size());
  // Recursive through `self`, not a std::function (which would allocate for every instance).
  auto copy_in = [&](auto& self, size_t p) -> void {
    if (std::find(borrowed.begin(), borrowed.end(), p) != borrowed.end()) return;  // a few per instance
    copied_makers(p, [&](size_t q) { self(self, q); });
    borrowed.push_back(p);
    out.push_back(p);
  };
  for (size_t r : members) {
    copied_makers(r, [&](size_t p) { copy_in(copy_in, p); });
    out.push_back(r);
  }
  return out;
}

// Once the instances are contracted: drops the nodes making `borrowed` values (those that
// instances copied in) that nothing reads any more, and then what only they read among them.
void drop_unread_borrowed(Nodes& nodes, ModuleStacks& stacks,
                          const std::unordered_set<std::string>& borrowed, const NameSet& graph_outputs);

// `base` if not in `names`, else base_1, base_2, ...; added to `names`. With `next_suffix`
// (per base, the first suffix that may be free; valid while `names` only grows), a base asked
// for k times costs k lookups, not k^2/2: one GELU constant cloned into 2,000 instances made
// --hiera quadratic.
std::string fresh_name(const std::string& base, NameSet& names,
                       std::unordered_map<std::string, int>* next_suffix = nullptr);

}  // namespace pt2onnx::hierarchy
