// PackedNodes: ONNX nodes held serialized come back in order, in front of the graph's own.
#include <doctest/doctest.h>

#include "translate/packed_nodes.h"

namespace pt2onnx::translate {
namespace {

using Nodes = PackedNodes::Nodes;

void add_node(Nodes& nodes, const std::string& output, size_t attribute_bytes = 0) {
  onnx::NodeProto* node = nodes.Add();
  node->set_op_type("Relu");
  node->set_name(std::string("node_").append(output));
  node->add_input(std::string("in_").append(output));
  node->add_output(output);
  node->set_doc_string("m [torch.nn.modules.activation.ReLU]");
  if (attribute_bytes) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name("payload");
    a->set_type(onnx::AttributeProto_AttributeType_STRING);
    a->set_s(std::string(attribute_bytes, 'x'));
  }
}

std::vector<std::string> outputs(const Nodes& nodes) {
  std::vector<std::string> out;
  for (const onnx::NodeProto& node : nodes) out.push_back(node.output(0));
  return out;
}

TEST_CASE("packed nodes are visited in order and unpacked before the nodes added later") {
  PackedNodes packed;
  Nodes graph;
  Nodes expected;
  for (int batch = 0; batch < 3; ++batch) {
    for (int i = 0; i < 5; ++i) {
      const std::string name = std::string("v").append(std::to_string(batch * 5 + i));
      add_node(graph, name);
      add_node(expected, name);
    }
    packed.pack(graph);
    CHECK(graph.empty());
  }
  CHECK(packed.size() == 15);
  add_node(graph, "tail");
  add_node(expected, "tail");

  std::vector<std::string> visited;
  packed.visit([&](const onnx::NodeProto& node) { visited.push_back(node.output(0)); });
  std::vector<std::string> packed_outputs = outputs(expected);
  packed_outputs.pop_back();  // "tail" is not packed
  CHECK(visited == packed_outputs);

  packed.unpack_before(graph);
  CHECK(packed.empty());
  REQUIRE(graph.size() == expected.size());
  for (int i = 0; i < graph.size(); ++i) CHECK(graph.Get(i).SerializeAsString() == expected.Get(i).SerializeAsString());
}

TEST_CASE("a node larger than a block, and blocks filled across the limit, round-trip") {
  PackedNodes packed;
  Nodes graph;
  Nodes expected;
  // 3 MB in one node, then enough 100 kB nodes to fill several 1 MB blocks.
  for (size_t i = 0; i < 30; ++i) {
    const size_t bytes = i == 3 ? (size_t{3} << 20) : 100'000;
    const std::string name = std::string("v").append(std::to_string(i));
    add_node(graph, name, bytes);
    add_node(expected, name, bytes);
    if (i % 7 == 6) packed.pack(graph);
  }
  packed.pack(graph);
  packed.unpack_before(graph);
  REQUIRE(graph.size() == 30);
  for (int i = 0; i < graph.size(); ++i) CHECK(graph.Get(i).SerializeAsString() == expected.Get(i).SerializeAsString());
}

// A node with one output (none when `output` is null) and the name and doc string given (unset
// when null).
void add_shaped(Nodes& nodes, const char* output, const char* name, const char* doc) {
  onnx::NodeProto* node = nodes.Add();
  if (output) node->add_output(std::string(output));
  if (name) node->set_name(std::string(name));
  if (doc) node->set_doc_string(std::string(doc));
}

TEST_CASE("names and doc strings left out of the packed bytes come back as they were, presence included") {
  Nodes graph;
  Nodes expected;
  const char* shapes[][3] = {
      {"a", "node_a", "m"},  {"b", "node_b", "m"}, {"c", "node_c", nullptr},  // no doc string
      {"d", "d", "m"},                                                       // another name
      {"e", "", ""},                                                         // empty, present
      {"f", nullptr, ""},    {nullptr, "node_", "m2"}, {"", "node_", "m2"},
  };
  for (const auto& shape : shapes) {
    add_shaped(graph, shape[0], shape[1], shape[2]);
    add_shaped(expected, shape[0], shape[1], shape[2]);
  }
  PackedNodes packed;
  packed.pack(graph);
  int i = 0;
  packed.visit([&](const onnx::NodeProto& node) {
    CHECK(node.SerializeAsString() == expected.Get(i).SerializeAsString());
    ++i;
  });
  CHECK(i == expected.size());
  packed.unpack_before(graph);
  REQUIRE(graph.size() == expected.size());
  for (int k = 0; k < graph.size(); ++k) {
    CHECK(graph.Get(k).has_name() == expected.Get(k).has_name());
    CHECK(graph.Get(k).has_doc_string() == expected.Get(k).has_doc_string());
    CHECK(graph.Get(k).SerializeAsString() == expected.Get(k).SerializeAsString());
  }
}

TEST_CASE("unpacking nothing leaves the graph as it is") {
  PackedNodes packed;
  Nodes graph;
  add_node(graph, "a");
  packed.unpack_before(graph);
  REQUIRE(graph.size() == 1);
  CHECK(graph.Get(0).output(0) == "a");
}

}  // namespace
}  // namespace pt2onnx::translate
