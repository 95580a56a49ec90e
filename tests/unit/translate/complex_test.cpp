// Complex values as real pairs: the graph boundary and weights declared as float [..., 2], complex
// nodes translated only by complex rules (others refused by name), the FFTs refused below opset 20.
#include <doctest/doctest.h>

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

std::string refusal(const ir::Program& program, int opset) {
  try {
    translate_program(program, {opset});
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    return e.what();
  }
  FAIL("no error");
  return {};
}

TEST_CASE("complex inputs, outputs and buffers are float pairs with a trailing 2") {
  ProgramBuilder b;
  b.weight(ir::InputKind::kBuffer, "b_f", "f", DType::kComplex64, {4, 3})
      .user_input("c", DType::kComplex128, {4, 3})
      .op("to", "aten._to_copy.default", {{"self", tensor("b_f")}, {"dtype", dtype(DType::kComplex128)}},
          DType::kComplex128, {4, 3})
      .op("mul", "aten.mul.Tensor", {{"self", tensor("c")}, {"other", tensor("to")}}, DType::kComplex128, {4, 3})
      .output("mul");
  const TestTranslation t = translate_program(b.program(), {18});
  const onnx::GraphProto& g = t.model.graph();
  REQUIRE(g.input_size() == 1);
  CHECK(g.input(0).type().tensor_type().elem_type() == onnx::TensorProto_DataType_DOUBLE);
  CHECK(dims_of(g.input(0)) == std::vector<std::string>{"4", "3", "2"});
  REQUIRE(g.output_size() == 1);
  CHECK(g.output(0).type().tensor_type().elem_type() == onnx::TensorProto_DataType_DOUBLE);
  CHECK(dims_of(g.output(0)) == std::vector<std::string>{"4", "3", "2"});
  REQUIRE(g.initializer_size() == 1);
  CHECK(g.initializer(0).data_type() == onnx::TensorProto_DataType_FLOAT);
  CHECK(std::vector<int64_t>(g.initializer(0).dims().begin(), g.initializer(0).dims().end()) ==
        std::vector<int64_t>{4, 3, 2});
  CHECK(find_op(t.model, "Cast") != nullptr);  // complex64 -> complex128 casts the pair
}

TEST_CASE("a complex node without a complex rule is refused by name, not run through the real rule") {
  ProgramBuilder b;
  b.user_input("c", DType::kComplex64, {3})
      .op("sin", "aten.sin.default", {{"self", tensor("c")}}, DType::kComplex64, {3})
      .output("sin");
  const std::string what = refusal(b.program(), 18);
  CHECK(contains(what, "aten.sin.default on complex values"));
}

TEST_CASE("complex32 is refused by name") {
  ProgramBuilder b;
  b.user_input("c", DType::kComplex32, {3})
      .op("neg", "aten.neg.default", {{"self", tensor("c")}}, DType::kComplex32, {3})
      .output("neg");
  CHECK(contains(refusal(b.program(), 18), "complex32"));
}

TEST_CASE("the FFTs are DFT in float64 at every opset: the axis an attribute below 20, an input from 20") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {2, 8})
      .op("r", "aten._fft_r2c.default",
          {{"self", tensor("x")}, {"dim", ints({1})}, {"normalization", integer(0)}, {"onesided", boolean(true)}},
          DType::kComplex64, {2, 5})
      .output("r");
  for (int opset : {17, 20}) {
    CAPTURE(opset);
    const TestTranslation t = translate_program(b.program(), {opset});
    const onnx::NodeProto* dft = find_op(t.model, "DFT");
    REQUIRE(dft != nullptr);
    REQUIRE(attribute(*dft, "onesided") != nullptr);
    CHECK(attribute(*dft, "onesided")->i() == 1);
    CHECK((attribute(*dft, "axis") != nullptr) == (opset < 20));
    CHECK(dft->input_size() == (opset < 20 ? 1 : 3));
    CHECK(dims_of(t.model.graph().output(0)) == std::vector<std::string>{"2", "5", "2"});
  }
}

}  // namespace
}  // namespace pt2onnx::translate
