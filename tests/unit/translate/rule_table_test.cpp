// The registry: newest-first selection by opset, declining rules, and the one-pass report of
// every unsupported op.
#include <doctest/doctest.h>

#include "translate/translate_for_tests.h"
#include "common/error.h"
#include "program_builder.h"
#include "translate/translate_with_rules.h"
#include "translate/emit_context.h"
#include "translate/rule_table.h"
#include "translate/translate.h"

namespace pt2onnx::translate {
namespace {

using namespace testing;
using ir::DType;

RuleResult rule_old(EmitContext& ctx, const ir::Node& node) {
  ctx.set_output(0, ctx.emit("Abs", {ctx.value_of(std::get<ir::TensorArg>(node.inputs[0].arg).name)}));
  return RuleResult::kEmitted;
}
RuleResult rule_new(EmitContext& ctx, const ir::Node& node) {
  ctx.set_output(0, ctx.emit("Neg", {ctx.value_of(std::get<ir::TensorArg>(node.inputs[0].arg).name)}));
  return RuleResult::kEmitted;
}
RuleResult rule_declines(EmitContext&, const ir::Node&) { return RuleResult::kDeclined; }

ir::Program one_op(const std::string& target) {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3})
      .op("y", target, {{"self", tensor("x")}}, DType::kFloat32, {3})
      .output("y");
  return b.program();
}

TEST_CASE("rules are kept newest first and chosen by opset") {
  RuleTable t;
  t.add("test.op.default", rule_old);
  t.add_since(20, "test.op.default", rule_new);
  const std::vector<Rule>* rules = t.find("test.op.default");
  REQUIRE(rules != nullptr);
  REQUIRE(rules->size() == 2);
  CHECK(rules->at(0).min_opset == 20);
  CHECK(t.supports("test.op.default", 17));
  CHECK(t.find("test.other.default") == nullptr);
  CHECK(t.targets() == std::vector<std::string>{"test.op.default"});

  CHECK(op_types(translate_with_rules(one_op("test.op.default"), {18}, t).model) == std::vector<std::string>{"Abs"});
  CHECK(op_types(translate_with_rules(one_op("test.op.default"), {20}, t).model) == std::vector<std::string>{"Neg"});
}

TEST_CASE("a declining rule lets the next one try; when all decline, the notes are reported") {
  RuleTable t;
  t.add("test.op.default", rule_old);
  t.add_since(18, "test.op.default", rule_declines, "only for something else");
  CHECK(op_types(translate_with_rules(one_op("test.op.default"), {18}, t).model) == std::vector<std::string>{"Abs"});

  RuleTable only_declines;
  only_declines.add("test.op.default", rule_declines, "only for something else");
  try {
    translate_with_rules(one_op("test.op.default"), {18}, only_declines);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(contains(e.what(), "no rule handles this case at opset 18 (only for something else)"));
  }
}

TEST_CASE("a target whose rules all need a newer opset is unsupported at older ones") {
  RuleTable t;
  t.add_since(20, "test.op.default", rule_new);
  CHECK_FALSE(t.supports("test.op.default", 18));
  try {
    translate_with_rules(one_op("test.op.default"), {18}, t);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(contains(e.what(), "test.op.default \u00d71"));
    CHECK(contains(e.what(), "[needs opset 20 or newer]"));
  }
}

TEST_CASE("every unsupported op is listed at once, with counts and an example node") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3})
      .op("foo", "aten.foo.default", {{"self", tensor("x")}}, DType::kFloat32, {3}, "layers.0.mlp", "my.Mlp")
      .op("relu", "aten.relu.default", {{"self", tensor("foo")}}, DType::kFloat32, {3})
      .op("bar", "aten.bar.default", {{"self", tensor("relu")}}, DType::kFloat32, {3}, "head", "my.Head")
      .op("foo_1", "aten.foo.default", {{"self", tensor("bar")}}, DType::kFloat32, {3}, "layers.1.mlp", "my.Mlp")
      .op("foo_2", "aten.foo.default", {{"self", tensor("foo_1")}}, DType::kFloat32, {3})
      .output("foo_2");
  try {
    translate_program(b.program(), {18});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(std::string(e.what()) ==
          "unsupported ops (2): aten.foo.default \u00d73 (e.g. node foo in layers.0.mlp [my.Mlp]); "
          "aten.bar.default \u00d71 (e.g. node bar in head [my.Head])");
  }
}

TEST_CASE("the built-in table covers the sample ops of both IRs") {
  const RuleTable& t = builtin_rules();
  for (const char* target :
       {"aten._native_batch_norm_legit_no_training.default", "aten._softmax.default", "aten.adaptive_avg_pool2d.default",
        "aten.add.Tensor", "aten.addmm.default", "aten.any.dim", "aten.arange.start_step", "aten.batch_norm.default",
        "aten.bmm.default", "aten.cat.default", "aten.clone.default", "aten.conv2d.default", "aten.convolution.default",
        "aten.embedding.default", "aten.eq.Scalar", "aten.expand.default", "aten.flatten.using_ints", "aten.full.default",
        "aten.full_like.default", "aten.gelu.default", "aten.layer_norm.default", "aten.le.Scalar", "aten.linear.default",
        "aten.logical_and.default", "aten.logical_not.default", "aten.max_pool2d.default",
        "aten.max_pool2d_with_indices.default", "aten.mean.dim", "aten.mm.default", "aten.mul.Scalar", "aten.mul.Tensor",
        "aten.native_layer_norm.default", "aten.neg.default", "aten.permute.default", "aten.pow.Tensor_Scalar",
        "aten.relu.default", "aten.reshape.default", "aten.rsqrt.default", "aten.scalar_tensor.default",
        "aten.scaled_dot_product_attention.default", "aten.sigmoid.default", "aten.silu.default", "aten.slice.Tensor",
        "aten.sub.Tensor", "aten.transpose.int", "aten.unsqueeze.default", "aten.view.default", "aten.where.self",
        "aten.sym_size.int", "_operator.floordiv", "torch.sym_max"}) {
    CAPTURE(target);
    CHECK(t.supports(target, 17));
  }
}

}  // namespace
}  // namespace pt2onnx::translate
