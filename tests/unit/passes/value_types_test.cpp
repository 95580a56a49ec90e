// value_types: what clean-up's type oracle keeps of a program once its IR is released.
#include <doctest/doctest.h>

#include "passes/passes.h"

namespace pt2onnx::passes {
namespace {

ir::TensorMeta meta(ir::DType dtype, std::vector<int64_t> sizes) {
  ir::TensorMeta m;
  m.dtype = dtype;
  for (int64_t s : sizes) m.sizes.push_back(ir::Dim{s});
  return m;
}

ir::InputSpec input(ir::InputKind kind, const std::string& placeholder, const std::string& target) {
  return ir::InputSpec{kind, ir::TensorArg{placeholder}, target};
}

TEST_CASE("value_types drops the tensor values of weight placeholders and keeps the rest, in order") {
  ir::Program program;
  program.signature.inputs = {
      input(ir::InputKind::kParameter, "p_fc_weight", "fc.weight"),
      input(ir::InputKind::kBuffer, "b_running_mean", "running_mean"),
      input(ir::InputKind::kTensorConstant, "c_lifted_tensor_0", "lifted_tensor_0"),
      input(ir::InputKind::kUserInput, "x", "x"),
  };
  for (const char* name : {"p_fc_weight", "x", "b_running_mean", "linear", "c_lifted_tensor_0", "relu"})
    program.graph.tensor_values.emplace(name, meta(ir::DType::kFloat32, {2, 3}));
  program.graph.tensor_values.emplace("mask", meta(ir::DType::kBool, {3}));

  const ir::TensorValues kept = value_types(std::move(program));
  std::vector<std::string> names;
  for (const auto& [name, m] : kept) names.push_back(name);
  CHECK(names == std::vector<std::string>{"x", "linear", "relu", "mask"});

  ir::Program released;
  released.graph.tensor_values = kept;
  const TypeOracle types = program_types(released);
  REQUIRE(types("mask").has_value());
  CHECK(types("mask")->elem_type == onnx::TensorProto_DataType_BOOL);
  CHECK(types("mask")->dims == std::vector<std::optional<int64_t>>{3});
  CHECK_FALSE(types("p_fc_weight").has_value());
  CHECK_FALSE(types("fc.weight").has_value());
}

}  // namespace
}  // namespace pt2onnx::passes
