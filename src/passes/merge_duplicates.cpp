// Common subexpressions: a node with the same op, domain, inputs and attributes as an earlier
// one computes the same values (standard ONNX ops are pure, except the random ones), so its
// readers read the earlier node's outputs instead. Inputs are renamed as the sweep goes, so
// chains of duplicates merge in one pass.
#include <string_view>
#include <unordered_map>

#include "passes/passes_internal.h"

namespace pt2onnx::passes {

namespace {

bool is_pure(const onnx::NodeProto& node) {
  static const std::set<std::string_view> kRandom = {"RandomNormal",     "RandomNormalLike", "RandomUniform",
                                                     "RandomUniformLike", "Multinomial",      "Bernoulli",
                                                     "Dropout"};
  return (node.domain().empty() || node.domain() == "ai.onnx") && !kRandom.count(node.op_type()) &&
         !has_subgraph(node) && node.output_size() > 0;
}

std::string node_key(const Body& body, int index) {
  const onnx::NodeProto& node = body.nodes->Get(index);
  std::string key = node.op_type();
  key += '\0';
  for (const std::string& out : node.output()) key += out.empty() ? '-' : '+';  // absent optionals
  for (const std::string& in : node.input()) {
    key += '\0';
    key += in;
  }
  key += '\1';
  for (const onnx::AttributeProto& a : node.attribute()) {
    const std::string bytes = a.SerializeAsString();  // no map fields: deterministic
    key += std::to_string(bytes.size());
    key += ':';
    key += bytes;
  }
  // Hierarchy clones shared input-less Constants into each instance; other values must not
  // start crossing instance boundaries.
  if (node.input_size() > 0) key += '\2' + instance_key(body, index);
  return key;
}

}  // namespace

int merge_duplicates(Body& body) {
  Nodes& nodes = *body.nodes;
  std::unordered_map<std::string, int> first;  // key -> node index
  std::map<std::string, std::string> renames;
  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  int merged = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& node = *nodes.Mutable(i);
    apply_renames(node, renames);
    if (!is_pure(node)) continue;
    bool is_output = false;
    for (const std::string& out : node.output()) is_output = is_output || body.outputs.count(out);
    const std::string key = node_key(body, i);
    auto [at, inserted] = first.emplace(key, i);
    if (inserted || is_output) continue;
    const onnx::NodeProto& earlier = nodes.Get(at->second);
    for (int k = 0; k < node.output_size(); ++k)
      if (!node.output(k).empty()) renames[node.output(k)] = earlier.output(k);
    keep[static_cast<size_t>(i)] = false;
    ++merged;
  }
  if (merged) erase_nodes(body, keep);
  return merged;
}

}  // namespace pt2onnx::passes
