// Complex values as real pairs (see complex_values.h).
#include "translate/complex_values.h"

#include "common/error.h"
#include "translate/onnx_types.h"

namespace pt2onnx::translate {

ir::DType complex_component(ir::DType complex) {
  if (complex == ir::DType::kComplex64) return ir::DType::kFloat32;
  if (complex == ir::DType::kComplex128) return ir::DType::kFloat64;
  fail(ErrorCode::kUnsupported, "complex values of type " + std::string(ir::dtype_name(complex)) +
                                    " (complex64 and complex128 only)");
}

ir::DType complex_of(ir::DType real) {
  return real == ir::DType::kFloat64 ? ir::DType::kComplex128 : ir::DType::kComplex64;
}

ir::TensorMeta lowered_meta(const ir::TensorMeta& meta) {
  if (!is_complex(meta.dtype)) return meta;
  ir::TensorMeta out = meta;
  out.dtype = complex_component(meta.dtype);
  out.sizes.push_back(ir::Dim{int64_t{2}});
  out.strides.clear();  // the pair tensor is contiguous in the ONNX; strides say nothing there
  return out;
}

std::vector<int64_t> lowered_dims(ir::DType dtype, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> out = sizes;
  if (is_complex(dtype)) out.push_back(2);
  return out;
}

bool touches_complex(const ir::TensorValues& tensor_values, const ir::Node& node) {
  auto complex_value = [&](const std::string& name) {
    auto it = tensor_values.find(name);
    return it != tensor_values.end() && is_complex(it->second.dtype);
  };
  auto any_complex = [&](const ir::Argument& arg) {
    if (std::holds_alternative<ir::ComplexArg>(arg)) return true;
    if (const auto* t = std::get_if<ir::TensorArg>(&arg)) return complex_value(t->name);
    if (const auto* l = std::get_if<ir::TensorListArg>(&arg)) {
      for (const std::string& n : l->names)
        if (complex_value(n)) return true;
    }
    if (const auto* l = std::get_if<ir::OptionalTensorListArg>(&arg)) {
      for (const auto& n : l->names)
        if (n && complex_value(*n)) return true;
    }
    return false;
  };
  for (const ir::NamedArgument& in : node.inputs)
    if (any_complex(in.arg)) return true;
  for (const ir::Argument& out : node.outputs)
    if (any_complex(out)) return true;
  return false;
}

ComplexNodes::ComplexNodes(const ir::TensorValues& tensor_values) : tensor_values_(tensor_values) {
  for (const auto& [name, meta] : tensor_values)
    if (is_complex(meta.dtype)) {
      any_complex_tensor_ = true;
      break;
    }
}

bool ComplexNodes::touches(const ir::Node& node) const {
  if (any_complex_tensor_) return touches_complex(tensor_values_, node);
  for (const ir::NamedArgument& in : node.inputs)
    if (std::holds_alternative<ir::ComplexArg>(in.arg)) return true;
  for (const ir::Argument& out : node.outputs)
    if (std::holds_alternative<ir::ComplexArg>(out)) return true;
  return false;
}

}  // namespace pt2onnx::translate
