// Per-instance copies of shared constants and of shape arithmetic on graph inputs.
#include "hierarchy/unshare_constants.h"

#include "hierarchy/instance_body.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace pt2onnx::hierarchy {

namespace {

// Which nodes go: among the `candidate` nodes (one output each), those whose output nothing reads
// (reads counted once a reading node, as for_each_read lists them, over `nodes` and
// `also_reading`), and then the candidates that only the dropped ones read.
std::vector<bool> unread_candidates(const Nodes& nodes, const std::vector<bool>& candidate,
                                    const std::vector<const onnx::NodeProto*>& also_reading) {
  std::vector<bool> dropped(node_count(nodes), false);
  std::unordered_map<std::string_view, size_t> made_by;  // views the candidates' outputs
  for (size_t c = 0; c < node_count(nodes); ++c)
    if (candidate[c]) made_by.emplace(nodes[c].output(0), c);
  if (made_by.empty()) return dropped;
  std::vector<int> reads(node_count(nodes), 0);
  auto count_reads = [&](const onnx::NodeProto& node, int delta) {
    for_each_read(node, [&](const std::string& in) {
      if (auto it = made_by.find(in); it != made_by.end()) reads[it->second] += delta;
    });
  };
  for (const onnx::NodeProto& node : nodes) count_reads(node, 1);
  for (const onnx::NodeProto* node : also_reading) count_reads(*node, 1);
  for (bool again = true; again;) {
    again = false;
    for (size_t c = node_count(nodes); c-- > 0;) {
      if (dropped[c] || !candidate[c] || reads[c] > 0) continue;
      dropped[c] = again = true;
      count_reads(nodes[c], -1);
    }
  }
  return dropped;
}

}  // namespace

// Nodes cheap to recompute in every instance that reads them: input-less Constants, and shape
// arithmetic whose leaves are Constants and Shapes of graph inputs (never of activations, which
// would widen the instance's boundary). A graph output stays where it is made.
CheapValues cheap_values(const Nodes& nodes, const NameSet& graph_inputs,
                         const NameSet& graph_outputs) {
  CheapValues out;
  std::unordered_set<std::string_view> values;  // of cheap nodes, graph outputs included
  for (size_t i = 0; i < node_count(nodes); ++i) {
    const onnx::NodeProto& n = nodes[i];
    if (!n.domain().empty() || n.output_size() != 1 || !is_shape_arithmetic(n.op_type())) continue;
    bool ok = n.op_type() != "Constant" || n.input_size() == 0;
    for (const std::string& in : n.input())
      ok = ok && (in.empty() || values.count(in) || (n.op_type() == "Shape" && graph_inputs.count(in)));
    if (ok && n.op_type() != "Constant" && n.input_size() == 0) ok = false;
    if (!ok) continue;
    values.insert(n.output(0));
    if (!graph_outputs.count(n.output(0))) out.producer[n.output(0)] = i;
  }
  return out;
}

bool borrows(const Nodes& nodes, size_t i, const std::string& value,
             const std::vector<int>& group_of, const CheapValues& cheap) {
  if (group_of[i] < 0 || cheap.made_outside(value, group_of, group_of[i]) < 0) return false;
  const onnx::NodeProto& node = nodes[i];
  return std::find(node.input().begin(), node.input().end(), value) != node.input().end() &&
         !subgraphs_read(node, value);
}

std::vector<size_t> with_borrowed(const Nodes& nodes, const std::vector<size_t>& members,
                                  const std::vector<int>& group_of, int group, const CheapValues& cheap,
                                  std::vector<size_t>& borrowed) {
  if (cheap.producer.empty()) {
    borrowed.clear();
    return members;
  }
  return with_borrowed_by(members, borrowed, [&](size_t p, auto&& visit) {
    for (const std::string& in : nodes[p].input())
      if (const long q = cheap.made_outside(in, group_of, group); q >= 0) visit(static_cast<size_t>(q));
  });
}

std::string fresh_name(const std::string& base, NameSet& names, std::unordered_map<std::string, int>* next_suffix) {
  int suffix = 1;
  std::string name = base;
  if (next_suffix) {
    auto it = next_suffix->find(base);
    if (it != next_suffix->end()) {
      suffix = it->second;
      name = base + "_" + std::to_string(suffix++);
    }
  }
  while (names.count(name)) name = base + "_" + std::to_string(suffix++);
  names.insert(name);
  if (next_suffix) (*next_suffix)[base] = suffix;
  return name;
}

bool unshare_constants(Nodes& nodes, ModuleStacks& stacks, const std::vector<int>& group_of,
                       const CheapValues& cheap, NameSet& names) {
  // Only the values of cheap nodes are ever asked about (cheap.producer: a small table, not one
  // of every value of the graph). Clones are made from the nodes as they were: readers are
  // rewired below as the loop goes, so the cheap nodes are kept first (not a copy of the graph).
  std::map<size_t, onnx::NodeProto> original;
  for (const auto& [value, i] : cheap.producer) original.emplace(i, nodes[i]);
  if (original.empty()) return false;
  std::vector<bool> had_readers(node_count(nodes), false);
  for (const onnx::NodeProto& node : nodes)
    for_each_read(node, [&](const std::string& in) {
      if (const long made_by = cheap.made_by(in); made_by >= 0) had_readers[static_cast<size_t>(made_by)] = true;
    });

  struct Clone {
    onnx::NodeProto node;
    ir::ModuleStack stack;
  };
  std::vector<std::vector<Clone>> before(node_count(nodes));  // per node: clones to insert before it, in order
  // (group, value) -> its copy there; the value is viewed in its producer's output.
  struct GroupValueHash {
    size_t operator()(const std::pair<int, std::string_view>& k) const {
      return std::hash<std::string_view>()(k.second) * 31 + static_cast<size_t>(k.first);
    }
  };
  std::unordered_map<std::pair<int, std::string_view>, std::string, GroupValueHash> copy_of;
  std::unordered_map<std::string, int> next_suffix;  // for fresh_name
  // Whether a reader in `group` must read its own copy of `value`: readers inside instances
  // borrow theirs when their body is built.
  auto needs_copy = [&](int group, const std::string& value) {
    return group < 0 && cheap.made_outside(value, group_of, group) >= 0;
  };
  // The copy of `value` in `group`, made (with copies of its own cheap inputs first) before `anchor`.
  std::function<std::string(int, const std::string&, size_t)> copy_into = [&](int group, const std::string& value,
                                                                               size_t anchor) {
    const auto made_by = static_cast<size_t>(cheap.made_by(value));
    const std::string_view key = nodes[made_by].output(0);  // cheap nodes have one output: `value`
    if (auto it = copy_of.find({group, key}); it != copy_of.end()) return it->second;
    Clone clone{original.at(made_by), stacks[anchor]};
    for (std::string& in : *clone.node.mutable_input())
      if (needs_copy(group, in)) in = copy_into(group, in, anchor);
    const std::string copy = fresh_name(value + "_copy", names, &next_suffix);
    clone.node.set_output(0, copy);
    clone.node.set_name("node_" + copy);
    before[anchor].push_back(std::move(clone));
    copy_of[{group, key}] = copy;
    return copy;
  };
  bool changed = false;
  for (size_t r = 0; r < node_count(nodes); ++r)
    for (std::string& in : *nodes[r].mutable_input())
      if (needs_copy(group_of[r], in)) {
        in = copy_into(group_of[r], in, r);
        changed = true;
      }
  if (!changed) return false;
  // Originals that were read and now are not (every reader has its own copy) go, and then
  // whatever only they read (subgraphs' outer reads count: they are not rewired).
  std::vector<bool> candidate(node_count(nodes), false);
  for (const auto& [value, i] : cheap.producer) candidate[i] = had_readers[i];
  std::vector<const onnx::NodeProto*> clone_nodes;
  for (const auto& clones : before)
    for (const Clone& clone : clones) clone_nodes.push_back(&clone.node);
  const std::vector<bool> dropped = unread_candidates(nodes, candidate, clone_nodes);

  // The nodes change hands as they are, the clones are moved in between, the dropped go.
  std::vector<onnx::NodeProto*> owned(node_count(nodes));
  nodes.ExtractSubrange(0, nodes.size(), owned.data());
  ModuleStacks new_stacks;
  nodes.Reserve(static_cast<int>(owned.size() + clone_nodes.size()));
  new_stacks.reserve(owned.size() + clone_nodes.size());
  for (size_t i = 0; i < owned.size(); ++i) {
    for (Clone& clone : before[i]) {
      *nodes.Add() = std::move(clone.node);
      new_stacks.push_back(std::move(clone.stack));
    }
    if (dropped[i]) {
      delete owned[i];
      continue;
    }
    nodes.AddAllocated(owned[i]);
    new_stacks.push_back(std::move(stacks[i]));
  }
  stacks = std::move(new_stacks);
  return true;
}

void drop_unread_borrowed(Nodes& nodes, ModuleStacks& stacks,
                          const std::unordered_set<std::string>& borrowed, const NameSet& graph_outputs) {
  if (borrowed.empty()) return;
  // Makers of cheap values only: a call node never goes here, whatever it outputs.
  std::vector<bool> candidate(node_count(nodes), false);
  for (size_t c = 0; c < node_count(nodes); ++c) {
    const onnx::NodeProto& node = nodes[c];
    candidate[c] = node.output_size() == 1 && node.domain().empty() && borrowed.count(node.output(0)) &&
                   !graph_outputs.count(node.output(0));
  }
  const std::vector<bool> dropped = unread_candidates(nodes, candidate, {});
  size_t kept = 0;
  for (size_t i = 0; i < node_count(nodes); ++i) {
    if (dropped[i]) continue;
    if (kept != i) {
      nodes.SwapElements(static_cast<int>(kept), static_cast<int>(i));  // the dropped gather at the end
      stacks[kept] = std::move(stacks[i]);
    }
    ++kept;
  }
  nodes.DeleteSubrange(static_cast<int>(kept), nodes.size() - static_cast<int>(kept));
  stacks.resize(kept);
}

}  // namespace pt2onnx::hierarchy
