// Common subexpressions: a node with the same op, domain, inputs and attributes as an earlier
// one computes the same values (standard ONNX ops are pure, except the random ones), so its
// readers read the earlier node's outputs instead. Inputs are renamed as the sweep goes, so
// chains of duplicates merge in one pass.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

bool is_pure(const onnx::NodeProto& node) {
  static const std::set<std::string_view> kRandom = {"RandomNormal",     "RandomNormalLike", "RandomUniform",
                                                     "RandomUniformLike", "Multinomial",      "Bernoulli",
                                                     "Dropout"};
  return (node.domain().empty() || node.domain() == "ai.onnx") && !kRandom.count(node.op_type()) &&
         !has_subgraph(node) && node.output_size() > 0;
}

// Quantization nodes stay as the quantizer placed them: convert_pt2e gives each reader its own
// dequantize, and runtimes turn DequantizeLinear -> op -> QuantizeLinear into an integer kernel
// only where the DequantizeLinear has that one reader, so merging two would leave ops in float.
bool is_quantization(const onnx::NodeProto& node) {
  return node.op_type() == "QuantizeLinear" || node.op_type() == "DequantizeLinear";
}

// Two nodes are duplicates when they have the same op, the same pattern of present outputs,
// the same inputs and the same attributes (compared as their serialized bytes: no map fields, so
// deterministic), and, when they read anything, lie in the same hiera instances: hierarchy
// clones shared input-less Constants into each instance, but other values must not start
// crossing instance boundaries. The sweep hashes what it can see cheaply and compares in full
// only on a hash match.
class Signatures {
 public:
  explicit Signatures(const Body& body) : body_(body), instance_(static_cast<size_t>(body.nodes->size())) {}

  uint64_t hash(const onnx::NodeProto& node) {
    uint64_t h = mix(0, std::hash<std::string_view>{}(node.op_type()));
    for (const std::string& out : node.output()) h = mix(h, out.empty() ? 1 : 2);
    h = mix(h, 3);
    for (const std::string& in : node.input()) h = mix(h, std::hash<std::string_view>{}(in));
    for (const onnx::AttributeProto& a : node.attribute()) h = hash_attribute(h, a);
    return h;
  }

  bool same(int a, int b) {
    const onnx::NodeProto& x = body_.nodes->Get(a);
    const onnx::NodeProto& y = body_.nodes->Get(b);
    if (x.op_type() != y.op_type() || x.output_size() != y.output_size() || x.input_size() != y.input_size() ||
        x.attribute_size() != y.attribute_size())
      return false;
    for (int k = 0; k < x.output_size(); ++k)
      if (x.output(k).empty() != y.output(k).empty()) return false;
    for (int k = 0; k < x.input_size(); ++k)
      if (x.input(k) != y.input(k)) return false;
    for (int k = 0; k < x.attribute_size(); ++k) {
      x.attribute(k).SerializeToString(&bytes_);
      y.attribute(k).SerializeToString(&other_);
      if (bytes_ != other_) return false;
    }
    return x.input_size() == 0 || instance(a) == instance(b);
  }

 private:
  static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull + (h >> 29); }
  static uint64_t text(uint64_t h, std::string_view s) { return mix(h, std::hash<std::string_view>{}(s)); }
  template <typename Number>
  static uint64_t numbers(uint64_t h, const google::protobuf::RepeatedField<Number>& values) {
    h = mix(h, static_cast<uint64_t>(values.size()));
    return values.empty() ? h : text(h, {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(Number)});
  }
  // Of the fields an attribute of a pure node uses (subgraphs are not pure); equal attributes hash
  // equal, and `same` compares them in full.
  static uint64_t hash_attribute(uint64_t h, const onnx::AttributeProto& a) {
    h = text(h, a.name());
    h = mix(h, static_cast<uint64_t>(a.type()));
    h = mix(h, static_cast<uint64_t>(a.i()));
    uint32_t f = 0;
    const float value = a.f();
    std::memcpy(&f, &value, sizeof f);
    h = mix(h, f);
    h = text(h, a.s());
    h = numbers(h, a.ints());
    h = numbers(h, a.floats());
    h = mix(h, static_cast<uint64_t>(a.strings_size()));
    for (const std::string& s : a.strings()) h = text(h, s);
    if (a.has_t()) {
      const onnx::TensorProto& t = a.t();
      h = mix(h, static_cast<uint64_t>(t.data_type()));
      h = numbers(h, t.dims());
      h = text(h, t.raw_data());
      h = numbers(h, t.float_data());
      h = numbers(h, t.int32_data());
      h = numbers(h, t.int64_data());
      h = numbers(h, t.double_data());
    }
    return h;
  }
  const std::string& instance(int index) {
    std::optional<std::string>& key = instance_[static_cast<size_t>(index)];
    if (!key) key = instance_key(body_, index);
    return *key;
  }

  const Body& body_;
  std::vector<std::optional<std::string>> instance_;  // instance_key, on first need
  std::string bytes_, other_;
};

}  // namespace

int merge_duplicates(Body& body) {
  Nodes& nodes = *body.nodes;
  Signatures signatures(body);
  // Hash -> the last node seen first with its signature; `next` chains the others of the same
  // hash (one signature each: almost always none).
  std::unordered_map<uint64_t, int> first;
  first.reserve(static_cast<size_t>(nodes.size()));
  std::vector<int> next(static_cast<size_t>(nodes.size()), -1);
  std::map<std::string, std::string> renames;
  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  int merged = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& node = *nodes.Mutable(i);
    apply_renames(node, renames);
    if (!is_pure(node) || is_quantization(node)) continue;
    auto [at, inserted] = first.emplace(signatures.hash(node), i);
    if (inserted) continue;
    int earlier_index = at->second;
    while (earlier_index >= 0 && !signatures.same(earlier_index, i)) earlier_index = next[static_cast<size_t>(earlier_index)];
    if (earlier_index < 0) {
      next[static_cast<size_t>(i)] = at->second;
      at->second = i;
      continue;
    }
    bool is_output = false;  // a scope output keeps its node (and its name)
    for (const std::string& out : node.output()) is_output = is_output || body.outputs.count(out);
    if (is_output) continue;
    const onnx::NodeProto& earlier = nodes.Get(earlier_index);
    for (int k = 0; k < node.output_size(); ++k)
      if (!node.output(k).empty()) renames[node.output(k)] = earlier.output(k);
    keep[static_cast<size_t>(i)] = false;
    ++merged;
  }
  if (merged) erase_nodes(body, keep);
  return merged;
}

}  // namespace pt2onnx::clean
