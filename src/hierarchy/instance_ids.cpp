// fold_type's per-instance steps on value ids.
#include "hierarchy/instance_ids.h"

#include <algorithm>
#include <stdexcept>

#include "hierarchy/canonical_order.h"
#include "hierarchy/flat_key.h"

namespace pt2onnx::hierarchy {

std::optional<InstanceIds> InstanceIds::of(const Nodes& nodes, const NameSet& values, const CheapValues& cheap) {
  InstanceIds out;
  const size_t count = node_count(nodes);
  out.first_.reserve(count);
  out.inputs_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const onnx::NodeProto& node = nodes[static_cast<int>(i)];
    for (const onnx::AttributeProto& attr : node.attribute())
      if (attr.has_g() || attr.graphs_size()) return std::nullopt;  // outer reads by name
    out.first_.push_back(static_cast<uint32_t>(out.ids_.size()));
    out.inputs_.push_back(static_cast<uint32_t>(node.input_size()));
    for (const std::string& in : node.input()) {
      const Id id = in.empty() ? kNone : values.id(in);
      if (!in.empty() && id == kNone) return std::nullopt;  // read but made nowhere
      out.ids_.push_back(id);
    }
    for (const std::string& o : node.output()) {
      const Id id = o.empty() ? kNone : values.id(o);
      if (!o.empty() && id == kNone) return std::nullopt;
      out.ids_.push_back(id);
    }
  }
  out.cheap_maker_.assign(values.size(), -1);
  for (const auto& [name, maker] : cheap.producer) {
    const Id id = values.id(name);
    if (id == kNone) return std::nullopt;
    out.cheap_maker_[id] = static_cast<int32_t>(maker);
  }
  out.mark_.assign(values.size(), 0);
  out.slot_.assign(values.size(), 0);
  out.made_.assign(values.size(), 0);
  return out;
}

uint32_t InstanceIds::next_stamp() {
  if (++stamp_ == 0) {  // wrapped: no mark may match a stamp given again
    std::fill(mark_.begin(), mark_.end(), 0);
    std::fill(made_.begin(), made_.end(), 0);
    stamp_ = 1;
  }
  return stamp_;
}

long InstanceIds::made_outside(Id id, const std::vector<int>& group_of, int group) const {
  if (id == kNone) return -1;
  const long maker = cheap_maker_[id];
  return maker >= 0 && group_of[static_cast<size_t>(maker)] != group ? maker : -1;
}

std::vector<size_t> InstanceIds::with_borrowed(const std::vector<size_t>& members, const std::vector<int>& group_of,
                                               int group, std::vector<size_t>& borrowed) const {
  return with_borrowed_by(members, borrowed, [&](size_t p, auto&& visit) {
    const Id* in = inputs(p);
    for (uint32_t k = 0; k < inputs_[p]; ++k)
      if (const long q = made_outside(in[k], group_of, group); q >= 0) visit(static_cast<size_t>(q));
  });
}

// canonical_order_with's values by id: `mark_`/`slot_` map a value to the floating member making
// it, `made_` holds the values members make (filled on the first Shape that asks).
class InstanceIds::ValuesById {
 public:
  ValuesById(InstanceIds& ids, const std::vector<size_t>& members) : ids_(ids), members_(members), stamp_(ids.next_stamp()) {}

  template <typename Pred>
  bool all_inputs(size_t i, Pred&& pred) const {
    const Id* in = ids_.inputs(i);
    for (uint32_t k = 0; k < ids_.inputs_[i]; ++k)
      if (in[k] != kNone && !pred(in[k])) return false;
    return true;
  }
  template <typename Fn>
  void for_each_read(size_t i, Fn&& fn) const {
    ids_.for_each_read(i, fn);
  }
  bool made_inside(Id id) {
    if (!made_filled_)
      for (size_t i : members_)
        for (uint32_t k = 0; k < ids_.outputs_of(i); ++k)
          if (const Id o = ids_.outputs(i)[k]; o != kNone) ids_.made_[o] = stamp_;
    made_filled_ = true;
    return ids_.made_[id] == stamp_;
  }
  void set_floating(size_t i) {
    if (const Id o = ids_.outputs(i)[0]; o != kNone) {
      ids_.mark_[o] = stamp_;
      ids_.slot_[o] = static_cast<uint32_t>(i);
    }
  }
  long floating_maker(Id id) const { return ids_.mark_[id] == stamp_ ? static_cast<long>(ids_.slot_[id]) : -1; }

 private:
  InstanceIds& ids_;
  const std::vector<size_t>& members_;
  const uint32_t stamp_;
  bool made_filled_ = false;
};

std::vector<size_t> InstanceIds::canonical_order(const Nodes& nodes, const std::vector<size_t>& members) {
  ValuesById values(*this, members);
  return canonical_order_with(nodes, members, values);
}

Boundary InstanceIds::boundary(const Nodes& nodes, const std::vector<size_t>& members,
                               const std::function<bool(Id)>& used_outside) {
  const uint32_t stamp = next_stamp();
  Boundary out;
  boundary_inputs_.clear();
  boundary_outputs_.clear();
  for (size_t i : members) {
    const onnx::NodeProto& node = nodes[static_cast<int>(i)];
    const Id* in = inputs(i);
    for (uint32_t k = 0; k < inputs_[i]; ++k) {
      if (in[k] == kNone || mark_[in[k]] == stamp) continue;
      mark_[in[k]] = stamp;
      out.inputs.push_back(node.input(static_cast<int>(k)));
      boundary_inputs_.push_back(in[k]);
    }
    const Id* made = outputs(i);
    for (int k = 0; k < node.output_size(); ++k) {
      const Id o = made[k];
      if (o == kNone) continue;
      mark_[o] = stamp;
      if (used_outside(o)) {
        out.outputs.push_back(node.output(k));
        boundary_outputs_.push_back(o);
      }
    }
  }
  return out;
}

void InstanceIds::flat_structural_key(const Nodes& nodes, const std::vector<size_t>& members, std::string& key) {
  const uint32_t stamp = next_stamp();
  for (size_t k = 0; k < boundary_inputs_.size(); ++k) {
    mark_[boundary_inputs_[k]] = stamp;
    slot_[boundary_inputs_[k]] = static_cast<uint32_t>(k);
  }
  auto value = [&](Id id) -> size_t {
    if (mark_[id] != stamp) throw std::out_of_range("canonical_body: a value is read before it is made");
    return size_t{slot_[id]} + 1;
  };
  flat_key::write(
      nodes, members, boundary_inputs_.size(), boundary_outputs_.size(), key,
      [&](size_t i, int k) -> size_t {
        const Id id = inputs(i)[k];
        return id == kNone ? 0 : value(id);
      },
      [&](size_t i, int k, size_t n) {
        const Id o = outputs(i)[k];
        mark_[o] = stamp;
        slot_[o] = static_cast<uint32_t>(n);
      },
      [&](size_t i, std::string& out) {
        const onnx::NodeProto& node = nodes[static_cast<int>(i)];
        const Id made = node.output_size() == 1 ? outputs(i)[0] : kNone;
        if (made == kNone || cheap_maker_[made] != static_cast<int32_t>(i)) return flat_key::append_attributes(node, out);
        // A cheap node is copied into every instance that reads it: its bytes are made once.
        auto [bytes, added] = cheap_attributes_.try_emplace(i);
        if (added) flat_key::append_attributes(node, bytes->second);
        out += bytes->second;
      },
      [&](size_t j) { return value(boundary_outputs_[j]); });
}

}  // namespace pt2onnx::hierarchy
