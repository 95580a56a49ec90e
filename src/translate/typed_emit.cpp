// Emitting an op in a type its ONNX schema takes (typed_emit.h).
#include "translate/typed_emit.h"

#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <optional>

#include "common/error.h"
#include "translate/onnx_types.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// The wider types that hold every value of `type` exactly, narrowest first.
std::vector<DType> exact_carriers(DType type) {
  switch (type) {
    case DType::kBool: return {DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64};
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kInt16:
    case DType::kUInt16: return {DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64};
    case DType::kInt32: return {DType::kInt64, DType::kFloat64};
    case DType::kFloat16:
    case DType::kBFloat16: return {DType::kFloat32, DType::kFloat64};
    case DType::kFloat32: return {DType::kFloat64};
    default: return {};
  }
}

// "tensor(float)" and the like: the spelling of schema type constraints.
std::string type_string(DType type) {
  onnx::TypeProto proto;
  proto.mutable_tensor_type()->set_elem_type(onnx_dtype(type));
  return *onnx::Utils::DataTypeUtils::ToType(proto);
}

const onnx::OpSchema* schema_of(const EmitContext& ctx, std::string_view op_type) {
  return onnx::OpSchemaRegistry::Schema(std::string(op_type), ctx.opset(), onnx::ONNX_DOMAIN);
}

// The types the first input's type parameter takes; nullopt where the schema is unknown or the
// input is not typed by a parameter (then the op is emitted as it is).
std::optional<std::vector<std::string>> first_input_types(const onnx::OpSchema& schema, std::string& param) {
  if (schema.inputs().empty()) return std::nullopt;
  param = schema.inputs()[0].GetTypeStr();
  for (const onnx::OpSchema::TypeConstraintParam& constraint : schema.typeConstraintParams())
    if (constraint.type_param_str == param) return constraint.allowed_type_strs;
  return std::nullopt;
}

bool takes(const std::vector<std::string>& allowed, DType type) {
  return std::find(allowed.begin(), allowed.end(), type_string(type)) != allowed.end();
}

}  // namespace

std::optional<DType> computing_type(const EmitContext& ctx, std::string_view op_type, DType type) {
  const onnx::OpSchema* schema = schema_of(ctx, op_type);
  std::string param;
  const std::optional<std::vector<std::string>> allowed = schema ? first_input_types(*schema, param) : std::nullopt;
  if (!allowed || takes(*allowed, type)) return std::nullopt;
  const std::vector<DType> carriers = exact_carriers(type);
  const auto carrier = std::find_if(carriers.begin(), carriers.end(), [&](DType t) { return takes(*allowed, t); });
  PT2ONNX_CHECK(carrier != carriers.end(), ErrorCode::kUnsupported,
                "ONNX's " + std::string(op_type) + " (opset " + std::to_string(ctx.opset()) + ") takes no " +
                    std::string(ir::dtype_name(type)) + " input, nor a type that holds its values exactly");
  return *carrier;
}

void require_takes(const EmitContext& ctx, std::string_view op_type, DType type) {
  const onnx::OpSchema* schema = schema_of(ctx, op_type);
  std::string param;
  const std::optional<std::vector<std::string>> allowed = schema ? first_input_types(*schema, param) : std::nullopt;
  PT2ONNX_CHECK(!allowed || takes(*allowed, type), ErrorCode::kUnsupported,
                "ONNX's " + std::string(op_type) + " (opset " + std::to_string(ctx.opset()) + ") takes no " +
                    std::string(ir::dtype_name(type)) + " input");
}

std::string reduce_in(EmitContext& ctx, std::string_view op, const std::string& x, DType type,
                      const std::optional<std::vector<int64_t>>& axes, bool keepdims) {
  const std::optional<DType> carrier = computing_type(ctx, op, type);
  if (!carrier) return ctx.reduce(op, x, axes, keepdims);
  return ctx.cast(ctx.reduce(op, ctx.cast(x, *carrier), axes, keepdims), type);
}

std::vector<std::string> emit_in(EmitContext& ctx, std::string_view op_type, const std::vector<std::string>& inputs,
                                 DType type, const std::vector<Attr>& attrs, int num_outputs) {
  const std::optional<DType> carrier = computing_type(ctx, op_type, type);
  if (!carrier) return ctx.emit(op_type, inputs, attrs, num_outputs);
  const onnx::OpSchema* schema = schema_of(ctx, op_type);
  const std::string param = schema->inputs()[0].GetTypeStr();
  // Formal inputs past the last repeat the last one (variadic inputs such as Max's).
  auto formal_param = [&](const std::vector<onnx::OpSchema::FormalParameter>& formals, size_t i) {
    return formals.empty() ? std::string() : formals[std::min(i, formals.size() - 1)].GetTypeStr();
  };
  std::vector<std::string> cast_inputs = inputs;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty() && formal_param(schema->inputs(), i) == param) cast_inputs[i] = ctx.cast(inputs[i], *carrier);
  std::vector<std::string> outputs = ctx.emit(op_type, cast_inputs, attrs, num_outputs);
  for (size_t i = 0; i < outputs.size(); ++i)
    if (formal_param(schema->outputs(), i) == param) outputs[i] = ctx.cast(outputs[i], type);
  return outputs;
}

std::string emit_in(EmitContext& ctx, std::string_view op_type, const std::vector<std::string>& inputs, DType type,
                    const std::vector<Attr>& attrs) {
  return emit_in(ctx, op_type, inputs, type, attrs, 1).front();
}

}  // namespace pt2onnx::translate
