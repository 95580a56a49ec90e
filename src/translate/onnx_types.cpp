// DType <-> ONNX element types and torch's promotion lattice.
#include "translate/onnx_types.h"

#include <string>

#include <onnx/onnx_pb.h>

#include "common/error.h"

namespace pt2onnx::translate {

namespace {
// ONNX element types added after the ONNX 1.12 headers (onnx.proto, IR version 9).
constexpr int32_t kOnnxFloat8E4M3FN = 17;
constexpr int32_t kOnnxFloat8E4M3FNUZ = 18;
constexpr int32_t kOnnxFloat8E5M2 = 19;
constexpr int32_t kOnnxFloat8E5M2FNUZ = 20;

int category(ir::DType t) {
  if (t == ir::DType::kBool) return 0;
  if (is_integral(t)) return 1;
  if (is_floating(t)) return 2;
  return 3;
}
}  // namespace

int32_t onnx_dtype(ir::DType dtype) {
  using ir::DType;
  switch (dtype) {
    case DType::kUInt8: return onnx::TensorProto_DataType_UINT8;
    case DType::kInt8: return onnx::TensorProto_DataType_INT8;
    case DType::kInt16: return onnx::TensorProto_DataType_INT16;
    case DType::kInt32: return onnx::TensorProto_DataType_INT32;
    case DType::kInt64: return onnx::TensorProto_DataType_INT64;
    case DType::kFloat16: return onnx::TensorProto_DataType_FLOAT16;
    case DType::kFloat32: return onnx::TensorProto_DataType_FLOAT;
    case DType::kFloat64: return onnx::TensorProto_DataType_DOUBLE;
    case DType::kComplex64: return onnx::TensorProto_DataType_COMPLEX64;
    case DType::kComplex128: return onnx::TensorProto_DataType_COMPLEX128;
    case DType::kBool: return onnx::TensorProto_DataType_BOOL;
    case DType::kBFloat16: return onnx::TensorProto_DataType_BFLOAT16;
    case DType::kUInt16: return onnx::TensorProto_DataType_UINT16;
    case DType::kUInt32: return onnx::TensorProto_DataType_UINT32;
    case DType::kUInt64: return onnx::TensorProto_DataType_UINT64;
    case DType::kFloat8E4M3FN: return kOnnxFloat8E4M3FN;
    case DType::kFloat8E4M3FNUZ: return kOnnxFloat8E4M3FNUZ;
    case DType::kFloat8E5M2: return kOnnxFloat8E5M2;
    case DType::kFloat8E5M2FNUZ: return kOnnxFloat8E5M2FNUZ;
    default: break;
  }
  fail(ErrorCode::kUnsupported, "element type " + std::string(ir::dtype_name(dtype)) + " has no ONNX equivalent");
}

int64_t min_ir_version_for(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kFloat8E4M3FN:
    case ir::DType::kFloat8E4M3FNUZ:
    case ir::DType::kFloat8E5M2:
    case ir::DType::kFloat8E5M2FNUZ: return 9;
    default: return 3;
  }
}

bool is_floating(ir::DType dtype) {
  using ir::DType;
  switch (dtype) {
    case DType::kFloat16: case DType::kFloat32: case DType::kFloat64: case DType::kBFloat16:
    case DType::kFloat8E4M3FN: case DType::kFloat8E5M2: case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2FNUZ: case DType::kFloat8E8M0FNU: return true;
    default: return false;
  }
}

bool is_integral(ir::DType dtype) {
  using ir::DType;
  switch (dtype) {
    case DType::kUInt8: case DType::kInt8: case DType::kInt16: case DType::kInt32: case DType::kInt64:
    case DType::kUInt16: case DType::kUInt32: case DType::kUInt64: return true;
    default: return false;
  }
}

bool is_complex(ir::DType dtype) {
  return dtype == ir::DType::kComplex32 || dtype == ir::DType::kComplex64 || dtype == ir::DType::kComplex128;
}

ir::DType promote_types(ir::DType a, ir::DType b) {
  using ir::DType;
  if (a == b || b == DType::kUnknown) return a;
  if (a == DType::kUnknown) return b;
  const int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1) {
    const bool mixed_sign_bytes = (a == DType::kUInt8 && b == DType::kInt8) || (a == DType::kInt8 && b == DType::kUInt8);
    if (mixed_sign_bytes) return DType::kInt16;
  }
  if (ca == 2) {
    const bool half_pair = (a == DType::kFloat16 && b == DType::kBFloat16) || (a == DType::kBFloat16 && b == DType::kFloat16);
    if (half_pair) return DType::kFloat32;
  }
  return ir::dtype_size(a) >= ir::dtype_size(b) ? a : b;
}

}  // namespace pt2onnx::translate
