// dtype_table: every fact pt2onnx knows about an element type, declared once. The DType enum
// (dtype.h), names and sizes (dtype.cpp), kinds and the ONNX mapping (onnx_dtype.cpp), pickle dtype
// and storage names (archive/torch_pickle.cpp) and the kernels' C storage types
// (kernels/codegen.cpp) are derived from it; unit_ir's dtype_table_test checks it against
// libonnx's TensorProto enum and the C types' sizes.
#pragma once

#include <cstdint>
#include <string_view>

// X(enum, schema id, torch name, legacy storage class, ONNX TensorProto type (0: none), ONNX name,
//   lowest ONNX IR version with that type, lowest opset whose Cast takes it, bytes per element,
//   C/CUDA storage type, kind)
// schema id: the export schema's ScalarType (torch/_export/serde/schema.py), not c10::ScalarType.
#define PT2ONNX_DTYPES(X)                                                                                          \
  X(kUInt8, 1, "uint8", "torch.ByteStorage", 2, "UINT8", 3, 1, 1, "unsigned char", kUnsigned)                          \
  X(kInt8, 2, "int8", "torch.CharStorage", 3, "INT8", 3, 1, 1, "signed char", kSigned)                                 \
  X(kInt16, 3, "int16", "torch.ShortStorage", 5, "INT16", 3, 1, 2, "short", kSigned)                                   \
  X(kInt32, 4, "int32", "torch.IntStorage", 6, "INT32", 3, 1, 4, "int", kSigned)                                       \
  X(kInt64, 5, "int64", "torch.LongStorage", 7, "INT64", 3, 1, 8, "long long", kSigned)                                \
  X(kFloat16, 6, "float16", "torch.HalfStorage", 10, "FLOAT16", 3, 1, 2, "unsigned short", kFloat)                     \
  X(kFloat32, 7, "float32", "torch.FloatStorage", 1, "FLOAT", 3, 1, 4, "float", kFloat)                                \
  X(kFloat64, 8, "float64", "torch.DoubleStorage", 11, "DOUBLE", 3, 1, 8, "double", kFloat)                            \
  X(kComplex32, 9, "complex32", "torch.ComplexHalfStorage", 0, "", 3, 1, 4, "", kComplex)                              \
  X(kComplex64, 10, "complex64", "torch.ComplexFloatStorage", 14, "COMPLEX64", 3, 1, 8, "", kComplex)                  \
  X(kComplex128, 11, "complex128", "torch.ComplexDoubleStorage", 15, "COMPLEX128", 3, 1, 16, "", kComplex)             \
  X(kBool, 12, "bool", "torch.BoolStorage", 9, "BOOL", 3, 1, 1, "unsigned char", kBool)                                \
  X(kBFloat16, 13, "bfloat16", "torch.BFloat16Storage", 16, "BFLOAT16", 3, 1, 2, "unsigned short", kFloat)             \
  X(kUInt16, 28, "uint16", "", 4, "UINT16", 3, 1, 2, "unsigned short", kUnsigned)                                      \
  X(kFloat8E4M3FN, 29, "float8_e4m3fn", "", 17, "FLOAT8E4M3FN", 9, 19, 1, "unsigned char", kFloat)                      \
  X(kFloat8E5M2, 30, "float8_e5m2", "", 19, "FLOAT8E5M2", 9, 19, 1, "unsigned char", kFloat)                            \
  X(kFloat8E4M3FNUZ, 31, "float8_e4m3fnuz", "", 18, "FLOAT8E4M3FNUZ", 9, 19, 1, "unsigned char", kFloat)                \
  X(kFloat8E5M2FNUZ, 32, "float8_e5m2fnuz", "", 20, "FLOAT8E5M2FNUZ", 9, 19, 1, "unsigned char", kFloat)                \
  X(kFloat8E8M0FNU, 33, "float8_e8m0fnu", "", 24, "FLOAT8E8M0", 11, 24, 1, "unsigned char", kFloat)                     \
  X(kUInt32, 34, "uint32", "", 12, "UINT32", 3, 1, 4, "unsigned int", kUnsigned)                                       \
  X(kUInt64, 35, "uint64", "", 13, "UINT64", 3, 1, 8, "unsigned long long", kUnsigned)

namespace pt2onnx::ir {

enum class DType : int {
  kUnknown = 0,
#define PT2ONNX_DTYPE_ENUM(e, id, ...) e = id,
  PT2ONNX_DTYPES(PT2ONNX_DTYPE_ENUM)
#undef PT2ONNX_DTYPE_ENUM
};

enum class DTypeKind { kBool, kSigned, kUnsigned, kFloat, kComplex };

struct DTypeFacts {
  DType dtype;
  std::string_view torch_name;     // "float32" (torch.float32)
  std::string_view storage_class;  // legacy typed storage ("torch.FloatStorage"); "" for none
  int32_t onnx_type;               // TensorProto.DataType; 0: no ONNX type
  std::string_view onnx_name;      // "FLOAT"; "" for none
  int64_t min_ir_version;          // ONNX IR version that introduced onnx_type
  int min_opset;                   // lowest opset whose operators (Cast first) take onnx_type
  int64_t size;                    // bytes per element
  std::string_view c_type;         // C/CUDA type holding one element ("" for none)
  DTypeKind kind;
};

inline constexpr DTypeFacts kDTypeTable[] = {
#define PT2ONNX_DTYPE_FACTS(e, id, torch, storage, onnx, onnx_name, ir, opset, bytes, c, kind) \
  {DType::e, torch, storage, onnx, onnx_name, ir, opset, bytes, c, DTypeKind::kind},
    PT2ONNX_DTYPES(PT2ONNX_DTYPE_FACTS)
#undef PT2ONNX_DTYPE_FACTS
};

// The row of `t`, or nullptr (kUnknown).
constexpr const DTypeFacts* dtype_facts(DType t) {
  for (const DTypeFacts& f : kDTypeTable)
    if (f.dtype == t) return &f;
  return nullptr;
}

// The row whose ONNX type is `onnx_type`, or nullptr.
constexpr const DTypeFacts* dtype_facts_for_onnx(int32_t onnx_type) {
  if (onnx_type == 0) return nullptr;
  for (const DTypeFacts& f : kDTypeTable)
    if (f.onnx_type == onnx_type) return &f;
  return nullptr;
}

}  // namespace pt2onnx::ir
