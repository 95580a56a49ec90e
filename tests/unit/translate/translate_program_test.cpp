// translate_program on whole (small) programs: the graph boundary, initializer declarations and
// bindings, naming, model header, outputs that need an Identity, warnings.
#include <algorithm>

#include <doctest/doctest.h>

#include "translate/rule_table.h"
#include "translate/translate_for_tests.h"
#include "common/error.h"
#include "onnx_check.h"
#include "program_builder.h"
#include "translate/translate_with_rules.h"
#include "translate/translate.h"

namespace pt2onnx::translate {
namespace {

using namespace testing;
using ir::DType;

ProgramBuilder mlp() {
  ProgramBuilder b;
  b.parameter("p_fc1_weight", "fc1.weight", {32, 16})
      .parameter("p_fc1_bias", "fc1.bias", {32})
      .parameter("p_fc2_weight", "fc2.weight", {4, 32})
      .parameter("p_fc2_bias", "fc2.bias", {4})
      .user_input("x", DType::kFloat32, {2, 16})
      .op("linear", "aten.linear.default",
          {{"input", tensor("x")}, {"weight", tensor("p_fc1_weight")}, {"bias", tensor("p_fc1_bias")}}, DType::kFloat32,
          {2, 32}, "fc1", "torch.nn.modules.linear.Linear")
      .op("relu", "aten.relu.default", {{"self", tensor("linear")}}, DType::kFloat32, {2, 32}, "act",
          "torch.nn.modules.activation.ReLU")
      .op("linear_1", "aten.linear.default",
          {{"input", tensor("relu")}, {"weight", tensor("p_fc2_weight")}, {"bias", tensor("p_fc2_bias")}}, DType::kFloat32,
          {2, 4}, "fc2", "torch.nn.modules.linear.Linear")
      .output("linear_1");
  return b;
}

TEST_CASE("an MLP becomes Gemm, Relu, Gemm with weight declarations bound to their FQNs") {
  const TestTranslation t = translate_program(mlp().program(), {18});
  const onnx::ModelProto& m = t.model;
  CHECK(op_types(m) == std::vector<std::string>{"Gemm", "Relu", "Gemm"});

  const onnx::GraphProto& g = m.graph();
  REQUIRE(g.input_size() == 1);
  CHECK(g.input(0).name() == "x");
  CHECK(dims_of(g.input(0)) == std::vector<std::string>{"2", "16"});
  REQUIRE(g.output_size() == 1);
  CHECK(g.output(0).name() == "linear_1");
  CHECK(dims_of(g.output(0)) == std::vector<std::string>{"2", "4"});

  REQUIRE(g.initializer_size() == 4);
  CHECK(g.initializer(0).name() == "fc1.weight");
  CHECK(std::vector<int64_t>(g.initializer(0).dims().begin(), g.initializer(0).dims().end()) == std::vector<int64_t>{32, 16});
  CHECK(g.initializer(0).data_type() == onnx::TensorProto_DataType_FLOAT);
  CHECK_FALSE(g.initializer(0).has_raw_data());
  CHECK(g.initializer(0).float_data_size() == 0);
  REQUIRE(t.weights.size() == 4);
  CHECK(t.weights[0].initializer == "fc1.weight");
  CHECK(t.weights[0].fqn == "fc1.weight");
  CHECK_FALSE(t.weights[0].is_constant);
  CHECK(t.weights[3].fqn == "fc2.bias");

  const onnx::NodeProto& gemm = g.node(0);
  CHECK(gemm.name() == "node_linear");
  CHECK(std::vector<std::string>(gemm.input().begin(), gemm.input().end()) ==
        std::vector<std::string>{"x", "fc1.weight", "fc1.bias"});
  CHECK(gemm.output(0) == "linear");
  REQUIRE(attribute(gemm, "transB") != nullptr);
  CHECK(attribute(gemm, "transB")->i() == 1);
  CHECK(gemm.doc_string() == "fc1 [torch.nn.modules.linear.Linear]");
  CHECK(g.node(2).output(0) == "linear_1");

  CHECK(m.ir_version() == 8);
  REQUIRE(m.opset_import_size() == 1);
  CHECK(m.opset_import(0).domain() == "");
  CHECK(m.opset_import(0).version() == 18);
  CHECK(m.producer_name() == "pt2onnx");
  CHECK(contains(m.doc_string(), "torch 2.15.0"));
  CHECK(contains(m.doc_string(), "schema 8.20"));
  CHECK(t.warnings.empty());
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("translation is deterministic") {
  const std::string a = translate_program(mlp().program(), {18}).model.SerializeAsString();
  const std::string b = translate_program(mlp().program(), {18}).model.SerializeAsString();
  CHECK(a == b);
}

TEST_CASE("the IR version is the lowest the opset needs") {
  CHECK(ir_version_for_opset(17) == 8);
  CHECK(ir_version_for_opset(18) == 8);
  CHECK(ir_version_for_opset(19) == 9);
  CHECK(ir_version_for_opset(20) == 9);
  CHECK(ir_version_for_opset(21) == 10);
  CHECK(ir_version_for_opset(22) == 10);
  CHECK(ir_version_for_opset(23) == 11);
  CHECK(ir_version_for_opset(24) == 12);
  CHECK(ir_version_for_opset(25) == 13);
  CHECK(ir_version_for_opset(27) == 13);
  CHECK(ir_version_for_opset(28) == 14);
  CHECK(translate_program(mlp().program(), {21}).model.ir_version() == 10);
}

TEST_CASE("opsets outside 17..28 are refused as usage errors") {
  try {
    translate_program(mlp().program(), {16});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
    CHECK(contains(e.what(), "opset 16"));
  }
  try {
    translate_program(mlp().program(), {29});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
    CHECK(contains(e.what(), "opset 29"));
  }
}

TEST_CASE("an output that is an input, or repeated, goes through Identity") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3})
      .op("relu", "aten.relu.default", {{"self", tensor("x")}}, DType::kFloat32, {3})
      .output("x")
      .output("relu")
      .output("relu");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  const onnx::GraphProto& g = m.graph();
  REQUIRE(g.output_size() == 3);
  CHECK(g.output(0).name() == "x_1");
  CHECK(producer(m, "x_1")->op_type() == "Identity");
  CHECK(g.output(1).name() == "relu");
  CHECK(producer(m, "relu")->op_type() == "Relu");
  CHECK(g.output(2).name() == "relu_1");
  CHECK(producer(m, "relu_1")->op_type() == "Identity");
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("the consuming translation, which keeps finished nodes packed, gives the model the driver gives") {
  // 100 Relu nodes: packed in batches, and the first Relu's value is returned twice, so the
  // second output's name is chosen against the names of packed nodes.
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3});
  std::string last = "x";
  for (int i = 0; i < 100; ++i) {
    const std::string name = i ? "relu_" + std::to_string(i) : "relu";
    b.op(name, "aten.relu.default", {{"self", tensor(last)}}, DType::kFloat32, {3});
    last = name;
  }
  b.output(last).output("relu").output("relu");
  const ir::Program program = b.program();
  model::Diagnostics diagnostics;
  const Translated kept = translate_with_rules(program, TranslateOptions{18}, builtin_rules(), diagnostics);
  const Translated consumed = translate_program(ir::Program(program), TranslateOptions{18}, diagnostics);
  REQUIRE(consumed.model.proto.graph().output_size() == 3);
  CHECK(consumed.model.proto.graph().output(2).name() == "relu_100");
  CHECK(consumed.model.proto.SerializeAsString() == kept.model.proto.SerializeAsString());
  CHECK(kept.value_types.empty());  // the caller kept the program
  CHECK(consumed.value_types.size() == program.graph.tensor_values.size());
}

TEST_CASE("pass-through ops add no nodes; the output gets an Identity named after the FX output") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3})
      .op("relu", "aten.relu.default", {{"self", tensor("x")}}, DType::kFloat32, {3})
      .op("clone", "aten.clone.default", {{"self", tensor("relu")}}, DType::kFloat32, {3})
      .op("dropout", "aten.dropout.default", {{"input", tensor("clone")}, {"p", floating(0.1)}, {"train", boolean(false)}},
          DType::kFloat32, {3})
      .output("dropout");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  CHECK(op_types(m) == std::vector<std::string>{"Relu", "Identity"});
  CHECK(m.graph().output(0).name() == "dropout");
  CHECK(producer(m, "dropout")->input(0) == "relu");
}

TEST_CASE("weights: only those read are declared; non-persistent buffers and constants bind to constants") {
  ProgramBuilder b;
  b.weight(ir::InputKind::kBuffer, "b_running", "bn.running_mean", DType::kFloat32, {3})
      .weight(ir::InputKind::kBuffer, "b_cache", "rope.cache", DType::kFloat32, {3}, /*persistent=*/false)
      .weight(ir::InputKind::kTensorConstant, "c_lifted", "lifted_tensor_0", DType::kFloat32, {3})
      .weight(ir::InputKind::kBuffer, "b_scale", "scale", DType::kFloat32, {3})
      .user_input("x", DType::kFloat32, {3})
      .op("add", "aten.add.Tensor", {{"self", tensor("x")}, {"other", tensor("b_cache")}}, DType::kFloat32, {3})
      .op("mul", "aten.mul.Tensor", {{"self", tensor("add")}, {"other", tensor("c_lifted")}}, DType::kFloat32, {3})
      .op("mul_1", "aten.mul.Tensor", {{"self", tensor("mul")}, {"other", tensor("b_scale")}}, DType::kFloat32, {3})
      .op("add_1", "aten.add.Tensor", {{"self", tensor("b_running")}, {"other", integer(1)}}, DType::kFloat32, {3})
      .buffer_mutation("add_1", "bn.running_mean")
      .output("mul_1");
  const TestTranslation t = translate_program(b.program(), {18});
  // bn.running_mean is updated (a BUFFER_MUTATION output): state, a graph input with its
  // initializer as default and a graph output with the new value, paired in the metadata.
  REQUIRE(t.weights.size() == 4);
  CHECK(t.weights[0].fqn == "bn.running_mean");
  CHECK(t.weights[1].fqn == "rope.cache");
  CHECK(t.weights[1].is_constant);
  CHECK(t.weights[2].fqn == "lifted_tensor_0");
  CHECK(t.weights[2].is_constant);
  CHECK(t.weights[3].fqn == "scale");
  CHECK_FALSE(t.weights[3].is_constant);
  CHECK(t.model.graph().initializer_size() == 4);
  CHECK(op_types(t.model) == std::vector<std::string>{"Add", "Mul", "Mul", "Add", "Identity"});
  CHECK(t.warnings.empty());
  REQUIRE(t.model.graph().input_size() == 2);
  CHECK(t.model.graph().input(1).name() == "bn.running_mean");
  REQUIRE(t.model.graph().output_size() == 2);
  CHECK(t.model.graph().output(1).name() == "bn.running_mean.new");
  CHECK(producer(t.model, "bn.running_mean.new")->input(0) == "add_1");
  const auto& meta = t.model.metadata_props();
  CHECK(std::any_of(meta.begin(), meta.end(), [](const auto& p) {
    return p.key() == "pkg.pt2onnx.state" && p.value() == "{\"bn.running_mean\": \"bn.running_mean.new\"}";
  }));
}

TEST_CASE("a parameter updated in place is state, as a buffer is") {
  ProgramBuilder b;
  b.parameter("p_w", "w", {3})
      .user_input("x", DType::kFloat32, {3})
      .op("mul_", "aten.mul_.Tensor", {{"self", tensor("p_w")}, {"other", floating(0.5)}}, DType::kFloat32, {3})
      .op("mul", "aten.mul.Tensor", {{"self", tensor("x")}, {"other", tensor("p_w")}}, DType::kFloat32, {3})
      .output("mul");
  const TestTranslation t = translate_program(b.program(), {18});
  // The initializer is the input's default; the new value is an output, paired in the metadata.
  REQUIRE(t.weights.size() == 1);
  CHECK(t.weights[0].fqn == "w");
  REQUIRE(t.model.graph().input_size() == 2);
  CHECK(t.model.graph().input(1).name() == "w");
  REQUIRE(t.model.graph().output_size() == 2);
  CHECK(t.model.graph().output(1).name() == "w.new");
  CHECK(producer(t.model, "mul")->input(1) == "mul_");  // the reader after the update sees it
  const auto& meta = t.model.metadata_props();
  CHECK(std::any_of(meta.begin(), meta.end(),
                    [](const auto& p) { return p.key() == "pkg.pt2onnx.state" && p.value() == "{\"w\": \"w.new\"}"; }));
}

// A program convert refuses twice: a tensor constant updated in place, and a node whose rule
// refuses its arguments (view without a shape).
ProgramBuilder twice_refused() {
  ProgramBuilder b;
  b.weight(ir::InputKind::kTensorConstant, "c_c", "c", DType::kFloat32, {3})
      .user_input("x", DType::kFloat32, {3})
      .op("add_", "aten.add_.Tensor", {{"self", tensor("c_c")}, {"other", integer(1)}}, DType::kFloat32, {3})
      .op("view", "aten.view.default", {{"self", tensor("x")}}, DType::kFloat32, {3})
      .op("mul", "aten.mul.Tensor", {{"self", tensor("view")}, {"other", tensor("add_")}}, DType::kFloat32, {3})
      .output("mul");
  return b;
}

TEST_CASE("an updated tensor constant is refused by name") {
  try {
    translate_program(twice_refused().program(), {18});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(contains(e.what(), "updates tensor constant 'c' (in-place aten.add_.Tensor (node add_))"));
  }
}

TEST_CASE("with a refusal sink, translation collects every refusal, the first as convert throws it") {
  const ProgramBuilder b = twice_refused();
  std::string thrown;
  try {
    translate_program(b.program(), {18});
  } catch (const Error& e) {
    thrown = e.what();
  }
  Refusals refusals;
  TranslateOptions options{18};
  options.refusals = &refusals;
  translate_program(b.program(), options);
  REQUIRE(refusals.size() == 2);
  CHECK(refusals[0].what() == thrown);
  CHECK(refusals[1].code() == ErrorCode::kUnsupported);
  CHECK(contains(refusals[1].what(), "translating node view (aten.view.default)"));
  CHECK(contains(refusals[1].what(), "argument 'shape' is missing"));
}

TEST_CASE("an initializer whose FQN clashes with an FX name is suffixed; the binding keeps the FQN") {
  ProgramBuilder b;
  b.parameter("p_w", "relu", {3})
      .user_input("x", DType::kFloat32, {3})
      .op("relu", "aten.relu.default", {{"self", tensor("x")}}, DType::kFloat32, {3})
      .op("mul", "aten.mul.Tensor", {{"self", tensor("relu")}, {"other", tensor("p_w")}}, DType::kFloat32, {3})
      .output("mul");
  const TestTranslation t = translate_program(b.program(), {18});
  CHECK(t.weights[0].initializer == "relu_1");
  CHECK(t.weights[0].fqn == "relu");
  CHECK(producer(t.model, "relu")->op_type() == "Relu");
}

TEST_CASE("dead nodes and asserts are skipped") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3})
      .op("exp", "aten.exp.default", {{"self", tensor("x")}}, DType::kFloat32, {3})
      .op("unused", "aten.some_unknown_op.default", {{"self", tensor("x")}}, DType::kFloat32, {3})
      .node("assert", "aten._assert_scalar.default", {{"self", boolean(true)}, {"assert_msg", str("m")}}, {none()})
      .output("exp");
  const TestTranslation t = translate_program(b.program(), {18});
  CHECK(op_types(t.model) == std::vector<std::string>{"Exp"});
}

TEST_CASE("an in-place op rebinds its self argument for later readers") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3})
      .op("relu_", "aten.relu_.default", {{"self", tensor("x")}}, DType::kFloat32, {3})
      .op("neg", "aten.neg.default", {{"self", tensor("x")}}, DType::kFloat32, {3})
      .output("neg");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  CHECK(op_types(m) == std::vector<std::string>{"Relu", "Neg", "Identity"});
  CHECK(producer(m, "neg")->input(0) == "relu_");
  // x is updated: its new value is an output too.
  CHECK(m.graph().output(1).name() == "x.new");
  CHECK(producer(m, "x.new")->input(0) == "relu_");
}

TEST_CASE("detach_ of an input is no state: the value does not change") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3})
      .op("detach_", "aten.detach_.default", {{"self", tensor("x")}}, DType::kFloat32, {3})
      .op("neg", "aten.neg.default", {{"self", tensor("detach_")}}, DType::kFloat32, {3})
      .output("neg");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  CHECK(m.graph().output_size() == 1);
  const auto& meta = m.metadata_props();
  CHECK(std::none_of(meta.begin(), meta.end(), [](const auto& p) { return p.key() == "pkg.pt2onnx.state"; }));
}

TEST_CASE("failures name the node, its target and its module path") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3})
      .op("view", "aten.view.default", {{"self", tensor("x")}}, DType::kFloat32, {3}, "layers.0.mlp", "my.Mlp")
      .output("view");
  try {
    translate_program(b.program(), {18});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(contains(e.what(), "translating node view (aten.view.default) in layers.0.mlp [my.Mlp]"));
    CHECK(contains(e.what(), "argument 'shape' is missing (present: self)"));
  }
}

}  // namespace
}  // namespace pt2onnx::translate
