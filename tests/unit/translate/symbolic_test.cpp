// Symbolic sizes: dim_params on the graph boundary, sym_size and Python int arithmetic as shape
// ops, SymInt lists in view, and sym_int_values computed from input shapes.
#include <doctest/doctest.h>

#include "translate/translate_for_tests.h"
#include "common/error.h"
#include "onnx_check.h"
#include "program_builder.h"
#include "translate/translate.h"

namespace pt2onnx::translate {
namespace {

using namespace testing;
using ir::DType;

TEST_CASE("a view with a symbolic size reads it from the input's shape") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {"s0", 4, 8})
      .node("sym_size_int", "aten.sym_size.int", {{"self", tensor("x")}, {"dim", integer(0)}}, {sym("sym_size_int")})
      .sym_value("sym_size_int", "s0")
      .op("view", "aten.view.default", {{"self", tensor("x")}, {"size", sym_ints({{std::string("sym_size_int")}, {int64_t{32}}})}},
          DType::kFloat32, {"s0", 32})
      .output("view");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  CHECK(op_types(m) == std::vector<std::string>{"Shape", "Gather", "Unsqueeze", "Concat", "Reshape"});
  CHECK(dims_of(m.graph().input(0)) == std::vector<std::string>{"s0", "4", "8"});
  CHECK(dims_of(m.graph().output(0)) == std::vector<std::string>{"s0", "32"});

  // The shape is Concat(Unsqueeze(Gather(Shape(x), 0)), [32]).
  const onnx::NodeProto* concat = find_op(m, "Concat");
  REQUIRE(concat->input_size() == 2);
  CHECK(constant_ints(m, concat->input(1)) == std::vector<int64_t>{32});
  const onnx::NodeProto* gather = producer(m, producer(m, concat->input(0))->input(0));
  REQUIRE(gather != nullptr);
  CHECK(gather->op_type() == "Gather");
  CHECK(producer(m, gather->input(0))->op_type() == "Shape");
  CHECK(constant_ints(m, gather->input(1)) == std::vector<int64_t>{0});
  CHECK(find_op(m, "Reshape")->input(1) == concat->output(0));
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("Python int arithmetic on SymInts becomes int64 ops with Python floor division") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {"s0", 6})
      .node("sym_size_int", "aten.sym_size.int", {{"self", tensor("x")}, {"dim", integer(0)}}, {sym("sym_size_int")})
      .node("mul", "_operator.mul", {{"a", sym("sym_size_int")}, {"b", integer(3)}}, {sym("mul")})
      .node("floordiv", "_operator.floordiv", {{"a", sym("mul")}, {"b", integer(2)}}, {sym("floordiv")})
      .op("view", "aten.view.default", {{"self", tensor("x")}, {"size", sym_ints({{std::string("floordiv")}, {int64_t{4}}})}},
          DType::kFloat32, {"((3*s0)//2)", 4})
      .output("view");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  CHECK(op_types(m) == std::vector<std::string>{"Shape", "Gather", "Mul", "Mod", "Sub", "Div", "Unsqueeze", "Concat", "Reshape"});
  CHECK(producer(m, "mul")->op_type() == "Mul");
  CHECK(producer(m, "floordiv")->op_type() == "Div");
  CHECK(attribute(*find_op(m, "Mod"), "fmod")->i() == 0);
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("a SymInt that no node produces is computed from its sym_int_values expression") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {"s0", 4})
      .sym_value("twice", "2*s0")
      .op("view", "aten.view.default", {{"self", tensor("x")}, {"size", sym_ints({{std::string("twice")}, {int64_t{2}}})}},
          DType::kFloat32, {"2*s0", 2})
      .output("view");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  CHECK(op_types(m) == std::vector<std::string>{"Shape", "Gather", "Mul", "Unsqueeze", "Concat", "Reshape"});
  CHECK(dims_of(m.graph().output(0)) == std::vector<std::string>{"2*s0", "2"});
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("a srepr symbol reads as its plain name in dim_params") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {"Symbol('s77', positive=True, integer=True)", 16})
      .op("relu", "aten.relu.default", {{"self", tensor("x")}}, DType::kFloat32, {"Symbol('s77', positive=True, integer=True)", 16})
      .output("relu");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  CHECK(dims_of(m.graph().input(0)) == std::vector<std::string>{"s77", "16"});
  CHECK(dims_of(m.graph().output(0)) == std::vector<std::string>{"s77", "16"});
}

TEST_CASE("a symbol known only as k*s or s + c of an input dimension is solved for") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {"2*s1", "s2 + 1"})
      .sym_value("half", "s1")
      .sym_value("less", "s2")
      .op("view", "aten.view.default", {{"self", tensor("x")}, {"size", sym_ints({{std::string("half")}, {int64_t{-1}}})}},
          DType::kFloat32, {"s1", "2*s2 + 2"})
      .op("view_1", "aten.view.default", {{"self", tensor("x")}, {"size", sym_ints({{std::string("less")}, {int64_t{-1}}})}},
          DType::kFloat32, {"s2", "(2*s1*(s2 + 1))//s2"})
      .output("view")
      .output("view_1");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  const std::vector<std::string> ops = op_types(m);
  CHECK(std::count(ops.begin(), ops.end(), "Div") == 1);
  CHECK(std::count(ops.begin(), ops.end(), "Sub") == 1);
  CHECK(constant_ints(m, find_op(m, "Div")->input(1)) == std::vector<int64_t>{2});
  CHECK(constant_ints(m, find_op(m, "Sub")->input(1)) == std::vector<int64_t>{1});
}

TEST_CASE("a symbol that is no input dimension cannot be computed") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {"s0"})
      .sym_value("u", "u0")
      .op("view", "aten.view.default", {{"self", tensor("x")}, {"size", sym_ints({{std::string("u")}})}}, DType::kFloat32, {"u0"})
      .output("view");
  try {
    translate_program(b.program(), {18});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(contains(e.what(), "symbol u0 is not a dimension of any user input"));
  }
}

TEST_CASE("a causal attention mask is built from the symbolic sequence length") {
  ProgramBuilder b;
  b.user_input("q", DType::kFloat32, {1, 2, "s0", 8})
      .op("sdpa", "aten.scaled_dot_product_attention.default",
          {{"query", tensor("q")}, {"key", tensor("q")}, {"value", tensor("q")}, {"attn_mask", none()},
           {"dropout_p", floating(0)}, {"is_causal", boolean(true)}, {"scale", none()}, {"enable_gqa", boolean(false)}},
          DType::kFloat32, {1, 2, "s0", 8})
      .output("sdpa");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  const std::vector<std::string> ops = op_types(m);
  CHECK(std::count(ops.begin(), ops.end(), "Range") == 2);
  CHECK(find_op(m, "LessOrEqual") != nullptr);
  CHECK(find_op(m, "Softmax") != nullptr);
  // Both lengths are the same cached Gather of Shape(q).
  CHECK(std::count(ops.begin(), ops.end(), "Shape") == 1);
  const onnx::NodeProto* range = find_op(m, "Range");
  CHECK(producer(m, range->input(1))->op_type() == "Gather");
  CHECK_NOTHROW(check_and_infer(m));
}

}  // namespace
}  // namespace pt2onnx::translate
