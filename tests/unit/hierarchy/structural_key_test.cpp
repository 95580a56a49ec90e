// flat_structural_key against structural_key of the canonical body: equal exactly together.
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "hierarchy/instance_body.h"
#include "node_helpers.h"

namespace pt2onnx::hierarchy {
namespace {

// One instance: its nodes (all members) and its boundary.
struct Variant {
  const char* what;
  Nodes nodes;
  Boundary boundary;
};

using testing::set_int;

// A node with a name and the doc string the translator gives, which the key must not see.
onnx::NodeProto& add(Nodes& nodes, const std::string& op, const std::vector<std::string>& ins,
                     const std::vector<std::string>& outs) {
  onnx::NodeProto& node = testing::add_node(nodes, op, ins, outs);
  std::string name = "n";  // appended: GCC 12 warns falsely (-Wrestrict) on "n" + std::to_string(k)
  name += std::to_string(nodes.size());
  node.set_name(name);
  node.set_doc_string("a.b [m.Block]");
  return node;
}

// Gemm(x, w, b) -> Gelu, with names prefixed by `p` so that equal structures differ in names.
Variant block(const char* what, const std::string& p, int64_t trans_b = 1, const std::string& gelu = "Gelu") {
  Variant v{what, {}, {{p + "x", p + "w", p + "b"}, {p + "y"}}};
  set_int(add(v.nodes, "Gemm", {p + "x", p + "w", p + "b"}, {p + "h"}), "transB", trans_b);
  add(v.nodes, gelu, {p + "h"}, {p + "y"});
  return v;
}

std::vector<size_t> all(const Nodes& nodes) {
  std::vector<size_t> members;
  for (int i = 0; i < nodes.size(); ++i) members.push_back(static_cast<size_t>(i));
  return members;
}

std::string body_key(const Variant& v) {
  onnx::FunctionProto body;
  canonical_body(v.nodes, all(v.nodes), v.boundary, body);
  return structural_key(body);
}

std::string flat_key(const Variant& v) {
  std::string key;
  REQUIRE(flat_structural_key(v.nodes, all(v.nodes), v.boundary, key));
  return key;
}

std::vector<Variant> variants() {
  std::vector<Variant> out;
  out.push_back(block("the block", "a_"));
  out.push_back(block("the block, other names", "b_"));
  out.push_back(block("another transB", "c_", 0));
  out.push_back(block("another op", "d_", 1, "Relu"));
  Variant swapped = block("inputs in another order", "e_");
  std::swap(swapped.boundary.inputs[0], swapped.boundary.inputs[1]);
  out.push_back(std::move(swapped));
  Variant more_out = block("the Gemm's output read outside too", "f_");
  more_out.boundary.outputs.insert(more_out.boundary.outputs.begin(), "f_h");
  out.push_back(std::move(more_out));
  Variant optional = block("an optional input left out", "g_");
  optional.nodes.Mutable(0)->set_input(2, "");
  optional.boundary.inputs.pop_back();
  out.push_back(std::move(optional));
  Variant domain = block("a custom domain", "h_");
  domain.nodes.Mutable(1)->set_domain("com.example");
  out.push_back(std::move(domain));
  Variant unused_out = block("an unused second output slot", "i_");
  unused_out.nodes.Mutable(1)->add_output("");
  out.push_back(std::move(unused_out));
  return out;
}

TEST_CASE("the flat key and the body's key agree on which instances are equal") {
  const std::vector<Variant> all_variants = variants();
  for (const Variant& a : all_variants)
    for (const Variant& b : all_variants) {
      CAPTURE(a.what);
      CAPTURE(b.what);
      CHECK((flat_key(a) == flat_key(b)) == (body_key(a) == body_key(b)));
    }
  CHECK(flat_key(all_variants[0]) == flat_key(all_variants[1]));
  CHECK(flat_key(all_variants[0]) != flat_key(all_variants[2]));
  CHECK(flat_key(all_variants[0]) != body_key(all_variants[0]));  // the two kinds never meet
}

TEST_CASE("a member with a subgraph has no flat key") {
  Variant v = block("with a branch", "a_");
  onnx::AttributeProto& branch = *v.nodes.Mutable(1)->add_attribute();
  branch.set_name("then_branch");
  branch.set_type(onnx::AttributeProto_AttributeType_GRAPH);
  branch.mutable_g()->set_name("g");
  std::string key;
  CHECK_FALSE(flat_structural_key(v.nodes, all(v.nodes), v.boundary, key));
}

TEST_CASE("a value read before it is made is refused as canonical_body refuses it") {
  Variant v = block("reads a value nothing makes", "a_");
  v.nodes.Mutable(1)->set_input(0, "nowhere");
  std::string key;
  CHECK_THROWS_AS(flat_structural_key(v.nodes, all(v.nodes), v.boundary, key), std::out_of_range);
}

TEST_CASE("a NodeProto holds only the fields the flat key covers or canonical_body drops") {
  // input, output, name, op_type, domain, attribute, doc_string: a field onnx adds (overload,
  // metadata_props) must be added to flat_structural_key before this test is updated.
  const auto* descriptor = onnx::NodeProto::descriptor();
  std::vector<std::string> fields;
  for (int i = 0; i < descriptor->field_count(); ++i) fields.push_back(descriptor->field(i)->name());
  CHECK(fields == std::vector<std::string>{"input", "output", "name", "op_type", "domain", "attribute", "doc_string"});
}

}  // namespace
}  // namespace pt2onnx::hierarchy
