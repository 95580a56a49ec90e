// Config op rules: a custom op becomes a node of its domain, inputs and attributes as asked; a
// rule wins over the built-in one; its body and domain reach the model; errors name the rule.
#include <doctest/doctest.h>

#include "translate/translate_for_tests.h"
#include "common/error.h"
#include "program_builder.h"
#include "translate/custom_op_rule.h"
#include "translate/translate.h"

namespace pt2onnx::translate {
namespace {

using namespace testing;
using ir::DType;

ir::Program scaled_tanh_program() {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {2, 3})
      .op("st", "mylib.scaled_tanh.default", {{"x", tensor("x")}, {"alpha", floating(1.5)}, {"k", integer(3)}},
          DType::kFloat32, {2, 3})
      .output("st");
  return b.program();
}

CustomOpRule scaled_tanh_rule() {
  CustomOpRule rule;
  rule.origin = "rules[0]";
  rule.op = "mylib.scaled_tanh";
  rule.domain = "com.example";
  rule.op_type = "ScaledTanh";
  rule.inputs = std::vector<std::string>{"x"};
  rule.attributes.push_back({"alpha", "alpha", std::nullopt, "rules[0].attributes.alpha"});
  rule.attributes.push_back({"mode", "", Attr::Value(std::string("fast")), "rules[0].attributes.mode"});
  return rule;
}

TEST_CASE("a custom op becomes one node of the rule's domain, with its inputs and attributes") {
  TranslateOptions options;
  options.custom_ops = {scaled_tanh_rule()};
  const TestTranslation t = translate_program(scaled_tanh_program(), options);
  REQUIRE(t.model.graph().node_size() == 1);
  const onnx::NodeProto& n = t.model.graph().node(0);
  CHECK(n.op_type() == "ScaledTanh");
  CHECK(n.domain() == "com.example");
  CHECK(n.input_size() == 1);
  CHECK(n.input(0) == "x");
  CHECK(n.output(0) == t.model.graph().output(0).name());
  REQUIRE(n.attribute_size() == 2);
  CHECK(n.attribute(0).name() == "alpha");
  CHECK(n.attribute(0).f() == doctest::Approx(1.5));
  CHECK(n.attribute(1).s() == "fast");
  CHECK(t.custom_op_hits == std::vector<int64_t>{1});
  bool declared = false;
  for (const auto& op_set : t.model.opset_import()) declared = declared || (op_set.domain() == "com.example" && op_set.version() == 1);
  CHECK(declared);
}

TEST_CASE("without inputs listed, every tensor argument is an input; numbers named become constants") {
  CustomOpRule rule = scaled_tanh_rule();
  rule.inputs.reset();
  TranslateOptions options;
  options.custom_ops = {rule};
  CHECK(translate_program(scaled_tanh_program(), options).model.graph().node(0).input_size() == 1);
  rule.inputs = std::vector<std::string>{"x", "k"};
  options.custom_ops = {rule};
  const TestTranslation t = translate_program(scaled_tanh_program(), options);
  const onnx::NodeProto& last = t.model.graph().node(t.model.graph().node_size() - 1);
  CHECK(last.input_size() == 2);
  CHECK(t.model.graph().node(0).op_type() == "Constant");  // k = 3 as a 0-D int64
}

TEST_CASE("a rule wins over the built-in rule of an aten op") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3}).op("r", "aten.relu.default", {{"self", tensor("x")}}, DType::kFloat32, {3}).output("r");
  CustomOpRule rule;
  rule.origin = "rules[0]";
  rule.op = "aten.relu";
  rule.domain = "com.example";
  rule.op_type = "MyRelu";
  TranslateOptions options;
  options.custom_ops = {rule};
  const TestTranslation t = translate_program(b.program(), options);
  REQUIRE(t.model.graph().node_size() == 1);
  CHECK(t.model.graph().node(0).op_type() == "MyRelu");
}

TEST_CASE("a rule's function body is added once, at the model's opset") {
  CustomOpRule rule = scaled_tanh_rule();
  onnx::FunctionProto body;
  body.set_name("ScaledTanh");
  body.set_domain("com.example");
  body.add_input("x");
  body.add_output("y");
  onnx::NodeProto* n = body.add_node();
  n->set_op_type("Tanh");
  n->add_input("x");
  n->add_output("y");
  rule.function = body;
  TranslateOptions options;
  options.opset = 20;
  options.custom_ops = {rule};
  const TestTranslation t = translate_program(scaled_tanh_program(), options);
  REQUIRE(t.model.functions_size() == 1);
  REQUIRE(t.model.functions(0).opset_import_size() == 1);
  CHECK(t.model.functions(0).opset_import(0).version() == 20);

  onnx::OperatorSetIdProto* other = rule.function->add_opset_import();
  other->set_domain("");
  other->set_version(18);
  options.custom_ops = {rule};
  CHECK_THROWS_WITH_AS(translate_program(scaled_tanh_program(), options),
                       doctest::Contains("config rule rules[0]: its function imports opset 18"), Error);
}

TEST_CASE("rule errors name the rule and the argument") {
  CustomOpRule rule = scaled_tanh_rule();
  rule.inputs = std::vector<std::string>{"y"};
  TranslateOptions options;
  options.custom_ops = {rule};
  CHECK_THROWS_WITH_AS(translate_program(scaled_tanh_program(), options),
                       doctest::Contains("config rule rules[0].inputs[0]: the op has no argument 'y' (arguments: x, alpha, k)"),
                       Error);
  rule = scaled_tanh_rule();
  rule.attributes[0].from_arg = "x";
  options.custom_ops = {rule};
  CHECK_THROWS_WITH_AS(translate_program(scaled_tanh_program(), options),
                       doctest::Contains("config rule rules[0].attributes.alpha: argument 'x' is not a number"), Error);
}

TEST_CASE("op names normalise to dots; a name without overload matches every overload") {
  CHECK(normalize_op_name("torch.ops.mylib::f.default") == "mylib.f.default");
  CHECK(normalize_op_name("mylib::f") == "mylib.f");
  CustomOpRule rule;
  rule.op = "mylib.f";
  CHECK(custom_rule_matches(rule, "mylib.f.default"));
  CHECK(custom_rule_matches(rule, "mylib.f"));
  CHECK_FALSE(custom_rule_matches(rule, "mylib.ff.default"));
}

}  // namespace
}  // namespace pt2onnx::translate
