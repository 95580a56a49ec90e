// ArgReader: the ONNX values of a node's arguments (node_args.h reads the rest).
#include "translate/arg_reader.h"

#include "common/error.h"

namespace pt2onnx::translate {

// ---- tensors ----------------------------------------------------------------------------------

std::string ArgReader::tensor(const std::string& name) const { return ctx_.value_of(tensor_fx(name)); }

std::optional<std::string> ArgReader::optional_tensor(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return tensor(name);
}

std::vector<std::string> ArgReader::tensors(const std::string& name) const {
  const ir::Argument& a = arg(name);
  std::vector<std::string> out;
  if (const auto* list = std::get_if<ir::TensorListArg>(&a)) {
    for (const auto& n : list->names) out.push_back(ctx_.value_of(n));
  } else if (const auto* opt = std::get_if<ir::OptionalTensorListArg>(&a)) {
    for (const auto& n : opt->names) {
      if (!n) wrong_kind(name, "a Tensor[] without None");
      out.push_back(ctx_.value_of(*n));
    }
  } else {
    wrong_kind(name, "a Tensor[]");
  }
  return out;
}

std::vector<std::optional<std::string>> ArgReader::optional_tensors(const std::string& name) const {
  const ir::Argument& a = arg(name);
  std::vector<std::optional<std::string>> out;
  if (const auto* opt = std::get_if<ir::OptionalTensorListArg>(&a)) {
    for (const auto& n : opt->names) out.push_back(n ? std::optional(ctx_.value_of(*n)) : std::nullopt);
  } else if (const auto* list = std::get_if<ir::TensorListArg>(&a)) {
    for (const auto& n : list->names) out.push_back(ctx_.value_of(n));
  } else {
    wrong_kind(name, "a Tensor?[]");
  }
  return out;
}

// ---- ints -------------------------------------------------------------------------------------

std::string ArgReader::int_value(const std::string& name) const {
  const auto* s = std::get_if<ir::SymIntArg>(&arg(name));
  if (!s) wrong_kind(name, "an int");
  return ctx_.sym_int(*s);
}

std::string ArgReader::ints_value(const std::string& name) const { return ctx_.sym_ints(sym_ints(name)); }

// ---- other constants --------------------------------------------------------------------------

// ---- Scalars ----------------------------------------------------------------------------------

std::string ArgReader::scalar(const std::string& name, ir::DType dtype) const {
  const ir::Argument& a = arg(name);
  if (const auto* s = std::get_if<ir::SymIntArg>(&a)) {
    if (const auto* v = std::get_if<int64_t>(&s->v)) return ctx_.const_scalar(static_cast<double>(*v), dtype);
    const std::string value = ctx_.sym_int(*s);
    return dtype == ir::DType::kInt64 ? value : ctx_.cast(value, dtype);
  }
  if (const auto* f = std::get_if<ir::SymFloatArg>(&a); f && std::holds_alternative<std::string>(f->v)) {
    const std::string value = ctx_.sym_float(*f);
    return dtype == ir::DType::kFloat64 ? value : ctx_.cast(value, dtype);
  }
  if (const auto* b = std::get_if<ir::SymBoolArg>(&a); b && std::holds_alternative<std::string>(b->v)) {
    const std::string value = ctx_.sym_bool(*b);
    return dtype == ir::DType::kBool ? value : ctx_.cast(value, dtype);
  }
  return ctx_.const_scalar(get_float(name), dtype);
}

// ---- outputs ----------------------------------------------------------------------------------

const ir::TensorMeta* ArgReader::out_meta(size_t i) const {
  if (i >= ctx_.output_count() || ctx_.output_name(i).empty()) return nullptr;
  return ctx_.meta(ctx_.output_name(i));
}

ir::DType ArgReader::out_dtype(size_t i) const {
  const ir::TensorMeta* m = out_meta(i);
  return m ? m->dtype : ir::DType::kUnknown;
}

}  // namespace pt2onnx::translate
