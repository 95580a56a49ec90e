// Transpose(Transpose(x, p1), p2) is one Transpose(x, q) with q[i] = p1[p2[i]], and x itself when
// q is the identity (core ATen IR writes chains of permutes that cancel). The inner Transpose must
// have no other reader; both need explicit perms of the same rank.
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

std::optional<std::vector<int64_t>> explicit_perm(const onnx::NodeProto& node) {
  if (node.op_type() != "Transpose" || !node.domain().empty() || node.input_size() != 1 || node.output_size() != 1)
    return std::nullopt;
  const onnx::AttributeProto* a = find_attribute(node, "perm");
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

}  // namespace

int fuse_transposes(Body& body) {
  Nodes& nodes = *body.nodes;
  auto [producer, reads] = value_uses(body);

  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  std::map<std::string, std::string> renames;
  int fused = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& outer = *nodes.Mutable(i);
    const std::optional<std::vector<int64_t>> p2 = explicit_perm(outer);
    if (!p2) continue;
    auto made = producer.find(outer.input(0));
    if (made == producer.end() || reads[outer.input(0)] != 1 || !keep[static_cast<size_t>(made->second)]) continue;
    const onnx::NodeProto& inner = nodes.Get(made->second);
    const std::optional<std::vector<int64_t>> p1 = explicit_perm(inner);
    if (!p1 || p1->size() != p2->size() || instance_key(body, made->second) != instance_key(body, i)) continue;
    std::vector<int64_t> q;
    bool valid = true, identity = true;
    for (size_t k = 0; k < p2->size(); ++k) {
      const int64_t at = (*p2)[k];
      valid = valid && at >= 0 && at < static_cast<int64_t>(p1->size());
      if (!valid) break;
      q.push_back((*p1)[static_cast<size_t>(at)]);
      identity = identity && q.back() == static_cast<int64_t>(k);
    }
    if (!valid) continue;
    const std::string x = inner.input(0);
    if (identity && !body.outputs.count(outer.output(0))) {
      renames[outer.output(0)] = x;
      keep[static_cast<size_t>(i)] = false;
    } else {
      outer.set_input(0, x);
      for (onnx::AttributeProto& a : *outer.mutable_attribute())
        if (a.name() == "perm") {
          a.clear_ints();
          for (int64_t v : q) a.add_ints(v);
        }
    }
    keep[static_cast<size_t>(made->second)] = false;
    ++fused;
  }
  if (!fused) return 0;
  for (onnx::NodeProto& node : nodes) apply_renames(node, renames);
  erase_nodes(body, keep);
  return fused;
}

}  // namespace pt2onnx::clean
