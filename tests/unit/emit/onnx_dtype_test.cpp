// The DType -> ONNX data type table.
#include <doctest/doctest.h>

#include "emit/onnx_dtype.h"

namespace pt2onnx::emit {
namespace {

TEST_CASE("onnx_data_type maps torch element types to ONNX's numbers") {
  CHECK(onnx_data_type(ir::DType::kFloat32) == 1);
  CHECK(onnx_data_type(ir::DType::kFloat16) == 10);
  CHECK(onnx_data_type(ir::DType::kBFloat16) == 16);
  CHECK(onnx_data_type(ir::DType::kInt64) == 7);
  CHECK(onnx_data_type(ir::DType::kBool) == 9);
  CHECK(onnx_data_type(ir::DType::kFloat64) == 11);
  CHECK(onnx_data_type(ir::DType::kUInt64) == 13);
  CHECK(onnx_data_type(ir::DType::kFloat8E4M3FN) == 17);
  CHECK(onnx_data_type(ir::DType::kFloat8E5M2FNUZ) == 20);
  CHECK(onnx_data_type(ir::DType::kFloat8E8M0FNU) == 24);
  CHECK_FALSE(onnx_data_type(ir::DType::kComplex64).has_value());
  CHECK_FALSE(onnx_data_type(ir::DType::kComplex32).has_value());
  CHECK_FALSE(onnx_data_type(ir::DType::kUnknown).has_value());
}

TEST_CASE("onnx_data_type_name names every ONNX type, known to libonnx 1.12 or not") {
  CHECK(onnx_data_type_name(1) == "FLOAT");
  CHECK(onnx_data_type_name(19) == "FLOAT8E5M2");
  CHECK(onnx_data_type_name(14) == "COMPLEX64");
  CHECK(onnx_data_type_name(99) == "data_type 99");
}

}  // namespace
}  // namespace pt2onnx::emit
