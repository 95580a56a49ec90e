// How a torch tensor appears in the ONNX (see lowering.h).
#include "model/lowering.h"

#include <string>

#include "common/error.h"
#include "ir/onnx_dtype.h"

namespace pt2onnx::model {

ir::DType complex_component(ir::DType complex) {
  if (complex == ir::DType::kComplex64) return ir::DType::kFloat32;
  if (complex == ir::DType::kComplex128) return ir::DType::kFloat64;
  fail(ErrorCode::kUnsupported, "complex values of type " + std::string(ir::dtype_name(complex)) +
                                    " (complex64 and complex128 only)");
}

ir::TensorMeta lowered_meta(const ir::TensorMeta& meta) {
  if (!ir::is_complex(meta.dtype)) return meta;
  ir::TensorMeta out = meta;
  out.dtype = complex_component(meta.dtype);
  out.sizes.push_back(ir::Dim{int64_t{2}});
  out.strides.clear();  // the pair tensor is contiguous in the ONNX; strides say nothing there
  return out;
}

std::vector<int64_t> lowered_dims(ir::DType dtype, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> out = sizes;
  if (ir::is_complex(dtype)) out.push_back(2);
  return out;
}

std::optional<int32_t> onnx_elem_type(const ir::TensorMeta& meta) {
  if (ir::is_complex(meta.dtype) || meta.dtype == ir::DType::kUnknown) return std::nullopt;
  return ir::onnx_type(meta.dtype);
}

}  // namespace pt2onnx::model
