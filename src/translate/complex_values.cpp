// Complex values as real pairs (see complex_values.h).
#include "translate/complex_values.h"

#include "common/error.h"
#include "translate/onnx_types.h"

namespace pt2onnx::translate {

ir::DType complex_of(ir::DType real) {
  return real == ir::DType::kFloat64 ? ir::DType::kComplex128 : ir::DType::kComplex64;
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
