// ir/dtype_table.h: the one declaration of element type facts, checked against libonnx's
// TensorProto enum, the C types' sizes, and the places derived from it.
#include <doctest/doctest.h>

#include <onnx/onnx_pb.h>

#include <set>
#include <string>

#include "ir/dtype.h"
#include "ir/onnx_dtype.h"
#include "translate/onnx_types.h"

namespace pt2onnx::ir {
namespace {

// sizeof of the C type the table names (the kernels' storage types).
int64_t c_size(std::string_view c) {
  if (c == "float") return sizeof(float);
  if (c == "double") return sizeof(double);
  if (c == "unsigned char" || c == "signed char") return 1;
  if (c == "short" || c == "unsigned short") return sizeof(short);
  if (c == "int" || c == "unsigned int") return sizeof(int);
  if (c == "long long" || c == "unsigned long long") return sizeof(long long);
  return -1;
}

TEST_CASE("dtype table: ids, names and ONNX types are unique; sizes match their C types") {
  std::set<int> ids;
  std::set<std::string_view> names;
  std::set<int32_t> onnx;
  for (const DTypeFacts& f : kDTypeTable) {
    CAPTURE(f.torch_name);
    CHECK(ids.insert(static_cast<int>(f.dtype)).second);
    CHECK(names.insert(f.torch_name).second);
    if (f.onnx_type != 0) CHECK(onnx.insert(f.onnx_type).second);
    CHECK(f.onnx_name.empty() == (f.onnx_type == 0));
    if (!f.c_type.empty()) CHECK(c_size(f.c_type) == f.size);
    CHECK(f.size > 0);
  }
  CHECK(kDTypeTable[0].dtype == DType::kUInt8);
  CHECK(dtype_facts(DType::kUnknown) == nullptr);
}

TEST_CASE("dtype table: ONNX numbers and names agree with libonnx where its enum has them") {
  int known = 0;
  for (const DTypeFacts& f : kDTypeTable) {
    if (f.onnx_type == 0) continue;
    CAPTURE(f.torch_name);
    if (onnx::TensorProto::DataType_IsValid(f.onnx_type)) {
      ++known;
      CHECK(onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(f.onnx_type)) ==
            std::string(f.onnx_name));
    }
  }
  CHECK(known >= 15);  // every type up to BFLOAT16 is in libonnx 1.12's enum
  CHECK(onnx::TensorProto::FLOAT == dtype_facts(DType::kFloat32)->onnx_type);
  CHECK(onnx::TensorProto::UINT64 == dtype_facts(DType::kUInt64)->onnx_type);
  CHECK(onnx::TensorProto::BFLOAT16 == dtype_facts(DType::kBFloat16)->onnx_type);
}

TEST_CASE("dtype table: the derived functions read it") {
  for (const DTypeFacts& f : kDTypeTable) {
    CAPTURE(f.torch_name);
    DType back = DType::kUnknown;
    CHECK(dtype_from_schema(static_cast<int64_t>(f.dtype), back));
    CHECK(back == f.dtype);
    CHECK(dtype_size(f.dtype) == f.size);
    CHECK(dtype_name(f.dtype) == f.torch_name);
    CHECK(is_floating(f.dtype) == (f.kind == DTypeKind::kFloat));
    CHECK(is_complex(f.dtype) == (f.kind == DTypeKind::kComplex));
    CHECK(is_integral(f.dtype) == (f.kind == DTypeKind::kSigned || f.kind == DTypeKind::kUnsigned));
    if (f.onnx_type != 0) {
      CHECK(onnx_type(f.dtype) == f.onnx_type);
      CHECK(onnx_type_if(f.dtype) == f.onnx_type);
      CHECK(onnx_type_name(f.onnx_type) == std::string(f.onnx_name));
      CHECK(onnx_type_size(f.onnx_type) == f.size);
      CHECK(translate::min_ir_version_for(f.dtype) == f.min_ir_version);
    } else {
      CHECK_FALSE(onnx_type_if(f.dtype).has_value());
    }
  }
}

}  // namespace
}  // namespace pt2onnx::ir
