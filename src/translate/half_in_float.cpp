#include "translate/half_in_float.h"

#include <algorithm>
#include <variant>

#include "ir/program.h"
#include "translate/emit_context.h"

namespace pt2onnx::translate {

namespace {

bool is_half(const ir::TensorMeta* meta) {
  return meta && (meta->dtype == ir::DType::kFloat16 || meta->dtype == ir::DType::kBFloat16);
}

}  // namespace

HalfInFloat::HalfInFloat(EmitContext& ctx, const ir::Node& node) : ctx_(ctx) {
  for (const ir::NamedArgument& in : node.inputs) {
    if (const auto* t = std::get_if<ir::TensorArg>(&in.arg)) operand(t->name);
    if (const auto* list = std::get_if<ir::TensorListArg>(&in.arg))
      for (const std::string& name : list->names) operand(name);
    if (const auto* list = std::get_if<ir::OptionalTensorListArg>(&in.arg))
      for (const auto& name : list->names)
        if (name) operand(*name);
  }
  for (size_t i = 0; i < ctx_.output_count(); ++i) {
    const std::string& name = ctx_.output_name(i);
    const ir::TensorMeta* meta = name.empty() ? nullptr : ctx_.meta(name);
    if (!is_half(meta)) continue;
    results_.emplace_back(i, meta->dtype);
    ir::TensorMeta as_float = *meta;
    as_float.dtype = ir::DType::kFloat32;
    ctx_.override_meta(name, std::move(as_float));
  }
}

void HalfInFloat::operand(const std::string& fx_name) {
  const ir::TensorMeta* meta = ctx_.meta(fx_name);
  if (!is_half(meta) || !ctx_.is_bound(fx_name)) return;
  if (std::any_of(rebound_.begin(), rebound_.end(), [&](const auto& r) { return r.first == fx_name; })) return;
  const std::string value = ctx_.value_of(fx_name);
  rebound_.emplace_back(fx_name, value);
  ir::TensorMeta as_float = *meta;
  as_float.dtype = ir::DType::kFloat32;
  ctx_.override_meta(fx_name, std::move(as_float));
  ctx_.bind(fx_name, ctx_.cast(value, ir::DType::kFloat32));
}

void HalfInFloat::round_results() {
  for (const auto& [i, dtype] : results_)
    if (!ctx_.output_value(i).empty()) ctx_.set_output(i, ctx_.cast(ctx_.output_value(i), dtype));
}

HalfInFloat::~HalfInFloat() {
  for (const auto& [fx_name, value] : rebound_) ctx_.bind(fx_name, value);
  ctx_.clear_meta_overrides();
}

}  // namespace pt2onnx::translate
