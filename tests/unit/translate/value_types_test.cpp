// value_types: what translate_program keeps of the program it consumes.
#include <doctest/doctest.h>

#include "translate/translate_with_rules.h"
#include "ir/static_meta.h"

namespace pt2onnx::translate {
namespace {

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
    program.graph.tensor_values.emplace(name, ir::static_meta(ir::DType::kFloat32, {2, 3}));
  program.graph.tensor_values.emplace("mask", ir::static_meta(ir::DType::kBool, {3}));

  const ir::TensorValues kept = value_types(std::move(program));
  std::vector<std::string> names;
  for (const auto& [name, m] : kept) names.push_back(name);
  CHECK(names == std::vector<std::string>{"x", "linear", "relu", "mask"});
}

}  // namespace
}  // namespace pt2onnx::translate
