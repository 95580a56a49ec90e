// State that a program writes back unchanged is no state. RWKV's core-IR program declares each
// rescaled weight a parameter mutation whose new value is the weight divided by 1; once
// drop_identities has dropped the division, its `<name>.new` output is an Identity of the state
// input. Such a pair leaves the graph's signature and `pkg.pt2onnx.state`: the Identity and the
// output go, and the input, whose initializer was its default, is that initializer alone (as an
// unmutated weight is). A state input without a default (one the caller must feed) keeps its pair.
#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

constexpr const char* kStateKey = "pkg.pt2onnx.state";

}  // namespace

int drop_unchanged_state(Body& body, google::protobuf::RepeatedPtrField<onnx::StringStringEntryProto>& metadata) {
  if (!body.graph) return 0;
  int entry = -1;
  for (int i = 0; i < metadata.size(); ++i)
    if (metadata.Get(i).key() == kStateKey) entry = i;
  if (entry < 0) return 0;
  const nlohmann::ordered_json pairs = nlohmann::ordered_json::parse(metadata.Get(entry).value(), nullptr, false);
  if (!pairs.is_object()) return 0;

  Nodes& nodes = *body.nodes;
  std::unordered_map<std::string, int> producer;
  std::unordered_map<std::string, int> reads;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    for (const std::string& out : node.output()) producer[out] = i;
    for (const std::string& in : node.input()) ++reads[in];
    std::set<std::string> outer;
    subgraph_reads(node, outer);
    for (const std::string& in : outer) ++reads[in];
  }
  std::unordered_set<std::string> defaults;
  for (const onnx::TensorProto& t : body.graph->initializer()) defaults.insert(t.name());

  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  std::unordered_set<std::string> gone_inputs, gone_outputs;
  nlohmann::ordered_json kept = nlohmann::ordered_json::object();
  for (const auto& [input, output_json] : pairs.items()) {
    const std::string output = output_json.is_string() ? output_json.get<std::string>() : std::string();
    const auto made = producer.find(output);
    const onnx::NodeProto* node = made == producer.end() ? nullptr : &nodes.Get(made->second);
    const bool unchanged = node && node->op_type() == "Identity" && node->domain().empty() && node->input_size() == 1 &&
                           node->input(0) == input && defaults.count(input) && !reads.count(output);
    if (!unchanged) {
      kept[input] = output_json;
      continue;
    }
    keep[static_cast<size_t>(made->second)] = false;
    gone_inputs.insert(input);
    gone_outputs.insert(output);
  }
  if (gone_outputs.empty()) return 0;

  erase_nodes(body, keep);
  auto* inputs = body.graph->mutable_input();
  inputs->erase(std::remove_if(inputs->begin(), inputs->end(), [&](const auto& v) { return gone_inputs.count(v.name()) > 0; }),
                inputs->end());
  auto* outputs = body.graph->mutable_output();
  outputs->erase(std::remove_if(outputs->begin(), outputs->end(), [&](const auto& v) { return gone_outputs.count(v.name()) > 0; }),
                 outputs->end());
  for (const std::string& name : gone_outputs) body.outputs.erase(name);
  if (kept.empty()) {
    metadata.DeleteSubrange(entry, 1);
  } else {
    std::string text = "{";  // written as translate writes it: {"input": "output", ...}
    for (const auto& [input, output] : kept.items())
      text += (text.size() > 1 ? ", " : "") + nlohmann::json(input).dump() + ": " + output.dump();
    metadata.Mutable(entry)->set_value(text + "}");
  }
  return static_cast<int>(gone_outputs.size());
}

}  // namespace pt2onnx::clean
