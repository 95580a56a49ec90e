// InstanceIds against the name-based steps it stands in for: the same borrowed nodes, order,
// boundary and key on every instance, and no ids where a graph needs names.
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "hierarchy/instance_ids.h"
#include "node_helpers.h"

namespace pt2onnx::hierarchy {
namespace {

using testing::add_node;
using testing::set_int;

// Two instances of one block and one of another, sharing a constant made in the first (which the
// others borrow), with shape arithmetic on a graph input that floats, a value read twice by one
// node, an empty optional input, a value read outside its instance and a graph output.
struct Graph {
  Nodes nodes;
  std::vector<int> group_of;
  NameSet values, inputs, outputs;
  std::vector<std::vector<size_t>> instances;

  Graph() {
    inputs.insert("x");
    outputs.insert("out");
    auto node = [&](int group, const std::string& op, const std::vector<std::string>& ins,
                    const std::vector<std::string>& outs) -> onnx::NodeProto& {
      group_of.push_back(group);
      if (group >= 0) {
        if (instances.size() <= static_cast<size_t>(group)) instances.resize(static_cast<size_t>(group) + 1);
        instances[static_cast<size_t>(group)].push_back(static_cast<size_t>(nodes.size()));
      }
      return add_node(nodes, op, ins, outs);
    };
    set_int(node(0, "Constant", {}, {"half"}), "value_int", 2);
    node(0, "Shape", {"x"}, {"shape0"});
    node(0, "Mul", {"x", "x"}, {"sq0"});
    node(0, "Div", {"sq0", "half"}, {"h0"});
    node(0, "Reshape", {"h0", "shape0"}, {"y0"});
    node(1, "Mul", {"y0", "y0"}, {"sq1"});
    node(1, "Div", {"sq1", "half"}, {"h1"});
    node(1, "Clip", {"h1", "", "half"}, {"y1"});
    set_int(node(2, "Gemm", {"y1", "y0", "half"}, {"g2"}), "transB", 1);
    node(2, "Relu", {"g2"}, {"out"});
    node(-1, "Identity", {"h1"}, {"side"});
    values.insert("x");
    for (const auto& n : nodes)
      for (const auto& o : n.output()) values.insert(o);
  }
};

TEST_CASE("InstanceIds gives what the name-based steps give, instance by instance") {
  Graph g;
  const CheapValues cheap = cheap_values(g.nodes, g.inputs, g.outputs);
  REQUIRE(cheap.made_by("half") == 0);
  std::optional<InstanceIds> ids = InstanceIds::of(g.nodes, g.values, cheap);
  REQUIRE(ids.has_value());
  std::vector<std::string> name_of(g.values.size());
  for (const auto& n : g.nodes)
    for (const std::string& o : n.output()) name_of[g.values.id(o)] = o;
  name_of[g.values.id("x")].assign(1, 'x');  // not = "x": GCC 12 warns falsely (-Wrestrict)
  for (size_t instance = 0; instance < g.instances.size(); ++instance) {
    CAPTURE(instance);
    const int group = static_cast<int>(instance);
    // Read outside: by a node of another group that does not copy it in, or a graph output.
    auto used_outside = [&](const std::string& value) {
      if (g.outputs.count(value)) return true;
      for (size_t i = 0; i < node_count(g.nodes); ++i)
        if (g.group_of[i] != group && !borrows(g.nodes, i, value, g.group_of, cheap))
          for (const std::string& in : g.nodes[static_cast<int>(i)].input())
            if (in == value) return true;
      return false;
    };
    std::vector<size_t> borrowed_by_name, borrowed_by_id;
    const std::vector<size_t> with_by_name =
        with_borrowed(g.nodes, g.instances[instance], g.group_of, group, cheap, borrowed_by_name);
    const std::vector<size_t> with_by_id = ids->with_borrowed(g.instances[instance], g.group_of, group, borrowed_by_id);
    CHECK(with_by_id == with_by_name);
    CHECK(borrowed_by_id == borrowed_by_name);
    const std::vector<size_t> order = canonical_order(g.nodes, with_by_name);
    CHECK(ids->canonical_order(g.nodes, with_by_id) == order);
    const Boundary by_name = instance_boundary(g.nodes, order, used_outside);
    const Boundary by_id =
        ids->boundary(g.nodes, order, [&](NameSet::Id value) { return used_outside(name_of[value]); });
    CHECK(by_id.inputs == by_name.inputs);
    CHECK(by_id.outputs == by_name.outputs);
    std::string key_by_name, key_by_id;
    REQUIRE(flat_structural_key(g.nodes, order, by_name, key_by_name));
    ids->flat_structural_key(g.nodes, order, key_by_id);
    CHECK(key_by_id == key_by_name);
  }
  // The cases the graph is built to have.
  std::vector<size_t> borrowed;
  CHECK(ids->with_borrowed(g.instances[1], g.group_of, 1, borrowed).size() == 4);  // "half" copied in
  CHECK(borrowed == std::vector<size_t>{0});
  CHECK(ids->canonical_order(g.nodes, g.instances[0]) != g.instances[0]);  // Shape(x) floats to its reader
}

TEST_CASE("InstanceIds leaves to names a graph with a subgraph or a read of a name nothing makes") {
  Graph g;
  const CheapValues cheap = cheap_values(g.nodes, g.inputs, g.outputs);
  {
    Nodes nodes = g.nodes;
    add_node(nodes, "Relu", {"made_nowhere"}, {"r"});
    NameSet values;
    for (const auto& n : nodes)
      for (const auto& o : n.output()) values.insert(o);
    values.insert("x");
    CHECK_FALSE(InstanceIds::of(nodes, values, cheap).has_value());
  }
  {
    Nodes nodes = g.nodes;
    onnx::NodeProto& branch = add_node(nodes, "If", {"h0"}, {"r"});
    onnx::AttributeProto& attr = *branch.add_attribute();
    attr.set_name("then_branch");
    attr.set_type(onnx::AttributeProto_AttributeType_GRAPH);
    attr.mutable_g()->set_name("then");
    NameSet values;
    for (const auto& n : nodes)
      for (const auto& o : n.output()) values.insert(o);
    values.insert("x");
    CHECK_FALSE(InstanceIds::of(nodes, values, cheap).has_value());
  }
}

}  // namespace
}  // namespace pt2onnx::hierarchy
