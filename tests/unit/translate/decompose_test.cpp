// The decomposition pass: nodes rewritten into aten nodes with torch's metas, nested
// decompositions, declines left to the rules, and a decomposition that never ends refused.
#include <doctest/doctest.h>

#include "common/error.h"
#include "program_builder.h"
#include "translate/decompositions/aten_builder.h"
#include "translate/decompositions/decompose.h"
#include "translate/emit_context.h"
#include "translate/rule_table.h"
#include "translate/translate_for_tests.h"

namespace pt2onnx::translate {
namespace {

using namespace testing;
using ir::DType;

const ir::TensorMeta& meta_of(const ir::Program& p, const std::string& name) { return p.graph.tensor_values.at(name); }

std::string dims(const ir::TensorMeta& m) {
  std::string out;
  for (const ir::Dim& d : m.sizes) out += (out.empty() ? "" : ",") + (d.is_static() ? std::to_string(d.as_int()) : ir::to_string(d.as_expr()));
  return out;
}

TEST_CASE("builtin decompositions: swapaxes becomes permute, meshgrid view and expand with sym_size nodes") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {"s0", 3, "s1"})
      .user_input("a", DType::kFloat32, {"s0"})
      .user_input("c", DType::kInt64, {4})
      .op("y", "aten.swapaxes.default", {{"self", tensor("x")}, {"axis0", integer(0)}, {"axis1", integer(-1)}},
          DType::kFloat32, {"s1", 3, "s0"}, "block", "__main__.Block")
      .node("mesh", "aten.meshgrid.indexing", {{"tensors", tensors({"a", "c"})}, {"indexing", str("ij")}},
            {ir::TensorListArg{{"u", "v"}}})
      .value("u", DType::kFloat32, {"s0", 4})
      .value("v", DType::kInt64, {"s0", 4})
      .output("y")
      .output("u")
      .output("v");
  const RuleTable& rules = builtin_rules();
  REQUIRE(has_decompositions(b.program(), rules));
  const ir::Program p = decompose(b.program(), rules);
  std::vector<std::string> targets;
  for (const ir::Node& n : p.graph.nodes) targets.push_back(n.target);
  CHECK(targets == std::vector<std::string>{"aten.permute.default", "aten.sym_size.int", "aten.view.default",
                                            "aten.expand.default", "aten.view.default", "aten.expand.default"});
  // The last node of each decomposition carries the output's own name, and the module stack of the node it replaces.
  CHECK(p.graph.nodes[0].name == "y");
  CHECK(p.graph.nodes[0].module_stack.size() == 2);
  CHECK(std::get<ir::TensorArg>(p.graph.nodes[3].outputs[0]).name == "u");
  CHECK(std::get<ir::TensorArg>(p.graph.nodes[5].outputs[0]).name == "v");
  // Intermediate values have the metas torch's meta functions give; the size read is a SymInt value.
  const std::string& view = std::get<ir::TensorArg>(p.graph.nodes[2].outputs[0]).name;
  CHECK(dims(meta_of(p, view)) == "s0,1");
  CHECK(meta_of(p, view).dtype == DType::kFloat32);
  const std::string& view_c = std::get<ir::TensorArg>(p.graph.nodes[4].outputs[0]).name;
  CHECK(dims(meta_of(p, view_c)) == "1,4");
  CHECK(meta_of(p, view_c).dtype == DType::kInt64);
  const std::string& size = std::get<std::string>(std::get<ir::SymIntArg>(p.graph.nodes[1].outputs[0]).v);
  CHECK(ir::to_string(p.graph.sym_int_values.at(size).as_expr()) == "s0");
  // And it translates: the program with no decomposed node left.
  TranslateOptions options;
  CHECK(translate_program(b.program(), options).model.graph().output_size() == 3);
}

// Test decompositions: one written as a permute; one that declines; one whose builder cannot state a meta.
RuleResult via_permute(AtenBuilder& b, const NodeArgs& args) {
  b.set_output(0, b.permute(args.tensor_fx("self"), {1, 0}));
  return RuleResult::kEmitted;
}
RuleResult declines(AtenBuilder&, const NodeArgs&) { return RuleResult::kDeclined; }
RuleResult cannot_state_meta(AtenBuilder&, const NodeArgs&) { throw CannotDecompose{"a broadcast of sizes that may differ"}; }
RuleResult negate(EmitContext& ctx, const ir::Node& node) {
  ctx.set_output(0, ctx.emit("Neg", {ctx.value_of(std::get<ir::TensorArg>(node.inputs[0].arg).name)}));
  return RuleResult::kEmitted;
}

ir::Program one_op(const std::string& target) {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {2, 3}).op("y", target, {{"self", tensor("x")}}, DType::kFloat32, {3, 2}).output("y");
  return b.program();
}

TEST_CASE("a decomposition that declines leaves the node to its rules, or to a refusal that says so") {
  RuleTable t;
  t.add_decomposition("test.declines.default", declines, "never mine");
  t.add("test.declines.default", negate);
  t.add_decomposition("test.only.default", declines, "never mine");
  t.add_decomposition("test.cannot.default", cannot_state_meta);
  t.add("test.cannot.default", negate);
  TranslateOptions options;
  CHECK(op_types(translate_with_rules(one_op("test.declines.default"), options, t).model) == std::vector<std::string>{"Neg"});
  CHECK(op_types(translate_with_rules(one_op("test.cannot.default"), options, t).model) == std::vector<std::string>{"Neg"});
  try {
    translate_with_rules(one_op("test.only.default"), options, t);
    FAIL("a declined node with no rule converted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(std::string(e.what()).find("decomposition declined") != std::string::npos);
    CHECK(std::string(e.what()).find("never mine") != std::string::npos);
  }
}

TEST_CASE("nodes a decomposition writes are decomposed in turn; one that writes itself forever is refused") {
  RuleTable t;
  t.add_decomposition("test.outer.default", via_permute);
  t.add("aten.permute.default", negate);
  t.add("aten.alias.default", negate);
  TranslateOptions options;
  CHECK(op_types(translate_with_rules(one_op("test.outer.default"), options, t).model) == std::vector<std::string>{"Neg"});

  RuleTable loop;
  loop.add_decomposition("aten.permute.default", via_permute);
  CHECK_THROWS_WITH_AS(decompose(one_op("aten.permute.default"), loop), doctest::Contains("do not end"), Error);
}

}  // namespace
}  // namespace pt2onnx::translate
