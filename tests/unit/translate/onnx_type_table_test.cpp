// The generated ONNX schema table: lookups by opset, ml-domain names, and the typed emit it feeds.
#include <doctest/doctest.h>

#include "model/onnx_type_table.h"
#include "translate/onnx_types.h"

namespace pt2onnx::model {
namespace {

TEST_CASE("op_type_facts: the schema in force at an opset, its type constraint and shared parameters") {
  const OpTypeFacts* add = op_type_facts("Add", 18);
  REQUIRE(add != nullptr);
  CHECK(add->since_version == 14);
  CHECK(add->takes(translate::onnx_dtype(ir::DType::kInt8)));  // Add-14 takes int8, Add-13 did not
  CHECK_FALSE(op_type_facts("Add", 13)->takes(translate::onnx_dtype(ir::DType::kInt8)));
  CHECK_FALSE(add->takes(translate::onnx_dtype(ir::DType::kBool)));
  CHECK(add->input_shares(0));
  CHECK(add->input_shares(1));
  CHECK(add->output_shares(0));
  const OpTypeFacts* max = op_type_facts("Max", 18);  // variadic: every input shares the parameter
  REQUIRE(max != nullptr);
  CHECK(max->input_shares(5));
  const OpTypeFacts* where = op_type_facts("Where", 18);  // input 0 is the bool condition
  REQUIRE(where != nullptr);
  CHECK_FALSE(where->input_shares(1));
  CHECK(op_type_facts("NotAnOp", 18) == nullptr);
  CHECK(op_type_facts("Add", 5) != nullptr);  // Add-1
  CHECK(op_type_facts("LinearRegressor", 18) == nullptr);  // ai.onnx.ml: not a standard-domain op
}

TEST_CASE("is_onnx_op_name: standard and ai.onnx.ml ops, not other names") {
  CHECK(is_onnx_op_name("Conv"));
  CHECK(is_onnx_op_name("LinearRegressor"));
  CHECK_FALSE(is_onnx_op_name("DecoderLayer"));
}

}  // namespace
}  // namespace pt2onnx::model
