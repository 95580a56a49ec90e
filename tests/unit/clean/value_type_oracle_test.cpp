// value_type_oracle: clean-up's static types from translate's value types.
#include <doctest/doctest.h>

#include "clean/clean.h"
#include "ir/static_meta.h"

namespace pt2onnx::clean {
namespace {

TEST_CASE("value_type_oracle answers for the values it holds, with ONNX element types and static dims") {
  ir::TensorValues values;
  values.emplace("x", ir::static_meta(ir::DType::kFloat32, {2, 3}));
  values.emplace("mask", ir::static_meta(ir::DType::kBool, {3}));
  values.emplace("z", ir::static_meta(ir::DType::kComplex64, {3}));
  const TypeOracle types = value_type_oracle(values);
  REQUIRE(types("mask").has_value());
  CHECK(types("mask")->elem_type == onnx::TensorProto_DataType_BOOL);
  CHECK(types("mask")->dims == std::vector<std::optional<int64_t>>{3});
  REQUIRE(types("x").has_value());
  CHECK(types("x")->dims == std::vector<std::optional<int64_t>>{2, 3});
  CHECK_FALSE(types("z").has_value());  // complex values are real pairs in the ONNX
  CHECK_FALSE(types("fc.weight").has_value());
}

}  // namespace
}  // namespace pt2onnx::clean
