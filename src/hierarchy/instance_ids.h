// The per-instance steps of fold_type (borrowed nodes, canonical order, boundary, structural
// key) on value ids instead of value names. Each value of the graph is hashed once, when its
// node's ids are taken; an instance's steps then mark values in arrays indexed by id and stamped
// per instance, so 25,000 instances of a 9-node body do not hash each name again in each step
// nor build four small hash tables each. They give exactly what the name-based functions of
// instance_body.h and unshare_constants.h give; a graph with a subgraph or a read of a name that
// no node, input or initializer makes keeps those (of() answers nothing).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hierarchy/instance_body.h"
#include "hierarchy/unshare_constants.h"

namespace pt2onnx::hierarchy {

class InstanceIds {
 public:
  using Id = NameSet::Id;
  // The ids of every node's inputs and outputs in `values` (which holds every value the graph
  // makes or reads), and the cheap value makers by id; nothing when a node has a subgraph or
  // reads a name `values` lacks. Valid while `nodes` and `values` are unchanged (contraction
  // and the freeing of folded members come after the last use). Graphs of up to 2^32 - 2 ids.
  static std::optional<InstanceIds> of(const Nodes& nodes, const NameSet& values, const CheapValues& cheap);

  // Calls fn(id) for each value node i reads, in order, each once (as for_each_read).
  template <typename Fn>
  void for_each_read(size_t i, Fn&& fn) const {
    const Id* in = inputs(i);
    for (uint32_t k = 0; k < inputs_[i]; ++k) {
      if (in[k] == kNone) continue;
      bool repeated = false;
      for (uint32_t j = 0; j < k && !repeated; ++j) repeated = in[j] == in[k];
      if (!repeated) fn(in[k]);
    }
  }
  // What a reader in instance `group` copies in for value `id` (cheap, made outside `group`), or -1.
  long made_outside(Id id, const std::vector<int>& group_of, int group) const;

  // As with_borrowed, canonical_order, instance_boundary and flat_structural_key. The id
  // versions are not reentrant: each uses this object's stamped arrays (one analysis at a time).
  std::vector<size_t> with_borrowed(const std::vector<size_t>& members, const std::vector<int>& group_of, int group,
                                    std::vector<size_t>& borrowed) const;
  std::vector<size_t> canonical_order(const Nodes& nodes, const std::vector<size_t>& members);
  // used_outside(id): as instance_boundary's, by the value's id.
  Boundary boundary(const Nodes& nodes, const std::vector<size_t>& members,
                    const std::function<bool(Id)>& used_outside);
  // The key of the last boundary() made, of the same members.
  void flat_structural_key(const Nodes& nodes, const std::vector<size_t>& members, std::string& key);


 private:
  static constexpr Id kNone = NameSet::kAbsent;  // an empty input or output
  class ValuesById;  // canonical_order's view of the ids

  // Ids of node i's inputs, then its outputs.
  const Id* inputs(size_t i) const { return ids_.data() + first_[i]; }
  const Id* outputs(size_t i) const { return ids_.data() + first_[i] + inputs_[i]; }
  uint32_t outputs_of(size_t i) const {
    const size_t end = i + 1 < first_.size() ? first_[i + 1] : ids_.size();
    return static_cast<uint32_t>(end - first_[i] - inputs_[i]);
  }
  // Fresh stamps for the arrays below (all cleared when the counter wraps).
  uint32_t next_stamp();

  std::vector<uint32_t> first_;   // per node: where its ids start in ids_
  std::vector<uint32_t> inputs_;  // per node: its input count
  std::vector<Id> ids_;
  std::vector<int32_t> cheap_maker_;  // per value id: the cheap node making it, or -1
  // Per value id, valid where the stamp is the current one: `mark_`/`slot_` a map (the boundary's
  // seen values, the floating maker in canonical order, the canonical number in the key),
  // `made_` a set (the values members make, in canonical order).
  std::vector<uint32_t> mark_;
  std::vector<uint32_t> slot_;
  std::vector<uint32_t> made_;
  uint32_t stamp_ = 0;
  std::vector<Id> boundary_inputs_, boundary_outputs_;  // of the last boundary()
  std::unordered_map<size_t, std::string> cheap_attributes_;  // by cheap node: its key's attribute bytes
};

}  // namespace pt2onnx::hierarchy
