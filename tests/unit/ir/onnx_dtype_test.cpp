// The ONNX side of the dtype table: DType -> ONNX data type numbers, names and sizes.
#include <doctest/doctest.h>

#include "common/error.h"
#include "ir/onnx_dtype.h"

namespace pt2onnx::ir {
namespace {

TEST_CASE("onnx_type maps torch element types to ONNX's numbers") {
  CHECK(onnx_type(DType::kFloat32) == 1);
  CHECK(onnx_type(DType::kFloat16) == 10);
  CHECK(onnx_type(DType::kBFloat16) == 16);
  CHECK(onnx_type(DType::kInt64) == 7);
  CHECK(onnx_type(DType::kBool) == 9);
  CHECK(onnx_type(DType::kFloat64) == 11);
  CHECK(onnx_type(DType::kUInt64) == 13);
  CHECK(onnx_type(DType::kFloat8E4M3FN) == 17);
  CHECK(onnx_type(DType::kFloat8E5M2FNUZ) == 20);
  CHECK(onnx_type(DType::kFloat8E8M0FNU) == 24);
  CHECK(onnx_type(DType::kComplex64) == 14);  // as declared; model/lowering.h stores complex as real pairs
  CHECK_FALSE(onnx_type_if(DType::kComplex32).has_value());
  CHECK_FALSE(onnx_type_if(DType::kUnknown).has_value());
  CHECK_THROWS_AS(onnx_type(DType::kComplex32), Error);
}

TEST_CASE("onnx_type_name names every ONNX type, known to libonnx 1.12 or not") {
  CHECK(onnx_type_name(1) == "FLOAT");
  CHECK(onnx_type_name(19) == "FLOAT8E5M2");
  CHECK(onnx_type_name(14) == "COMPLEX64");
  CHECK(onnx_type_name(kOnnxInt4) == "INT4");
  CHECK(onnx_type_name(0) == "UNDEFINED");
  CHECK(onnx_type_name(99) == "data_type 99");
}

TEST_CASE("onnx_type_size is the element size of the torch type an ONNX type maps to") {
  CHECK(onnx_type_size(1) == 4);
  CHECK(onnx_type_size(10) == 2);
  CHECK(onnx_type_size(7) == 8);
  CHECK(onnx_type_size(kOnnxInt4) == 0);
}

}  // namespace
}  // namespace pt2onnx::ir
