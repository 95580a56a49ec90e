// Emitting an op in a type its ONNX schema takes (typed_emit.h).
#include "translate/typed_emit.h"

#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <variant>
#include <map>
#include <optional>
#include <tuple>

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

// What an op's schema at an opset says of one dtype for its first input's type parameter. Asked
// for every elementwise node a rule emits, so each answer is looked up once per thread.
struct TypeAnswer {
  const onnx::OpSchema* schema = nullptr;  // null: unknown op (emitted as it is)
  std::string param;                       // the first input's type parameter ("T")
  bool takes = true;                       // the schema takes the dtype (or says nothing of it)
  std::optional<DType> carrier;            // else the narrowest exact wider type it takes
};

const TypeAnswer& answer_for(const EmitContext& ctx, std::string_view op_type, DType type) {
  thread_local std::map<std::tuple<std::string, int, DType>, TypeAnswer, std::less<>> answers;
  auto key = std::make_tuple(std::string(op_type), ctx.opset(), type);
  auto found = answers.find(key);
  if (found != answers.end()) return found->second;
  TypeAnswer answer;
  answer.schema = onnx::OpSchemaRegistry::Schema(std::get<0>(key), ctx.opset(), onnx::ONNX_DOMAIN);
  if (answer.schema && !answer.schema->inputs().empty()) {
    answer.param = answer.schema->inputs()[0].GetTypeStr();
    for (const onnx::OpSchema::TypeConstraintParam& constraint : answer.schema->typeConstraintParams()) {
      if (constraint.type_param_str != answer.param) continue;
      const std::vector<std::string>& allowed = constraint.allowed_type_strs;
      auto takes = [&](DType t) { return std::find(allowed.begin(), allowed.end(), type_string(t)) != allowed.end(); };
      answer.takes = takes(type);
      if (!answer.takes) {
        const std::vector<DType> carriers = exact_carriers(type);
        const auto carrier = std::find_if(carriers.begin(), carriers.end(), takes);
        if (carrier != carriers.end()) answer.carrier = *carrier;
      }
    }
  }
  return answers.emplace(std::move(key), std::move(answer)).first->second;
}

std::string takes_no(const EmitContext& ctx, std::string_view op_type, DType type) {
  return "ONNX's " + std::string(op_type) + " (opset " + std::to_string(ctx.opset()) + ") takes no " +
         std::string(ir::dtype_name(type)) + " input";
}

}  // namespace

std::optional<DType> computing_type(const EmitContext& ctx, std::string_view op_type, DType type) {
  const TypeAnswer& answer = answer_for(ctx, op_type, type);
  if (answer.takes) return std::nullopt;
  PT2ONNX_CHECK(answer.carrier.has_value(), ErrorCode::kUnsupported,
                takes_no(ctx, op_type, type) + ", nor a type that holds its values exactly");
  return answer.carrier;
}

void require_takes(const EmitContext& ctx, std::string_view op_type, DType type) {
  PT2ONNX_CHECK(answer_for(ctx, op_type, type).takes, ErrorCode::kUnsupported, takes_no(ctx, op_type, type));
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
  const TypeAnswer& answer = answer_for(ctx, op_type, type);
  const onnx::OpSchema* schema = answer.schema;
  const std::string& param = answer.param;
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

std::string emit_scatter(EmitContext& ctx, std::string_view op_type, const std::vector<std::string>& inputs, DType type,
                         const std::vector<Attr>& attrs) {
  const bool reduces = std::any_of(attrs.begin(), attrs.end(), [](const Attr& a) {
    const auto* v = std::get_if<std::string>(&a.value);
    return a.name == "reduction" && v && *v != "none";
  });
  if (!reduces || (type != DType::kFloat16 && type != DType::kBFloat16) || inputs.size() != 3)
    return ctx.emit(op_type, inputs, attrs);
  const std::string out = ctx.emit(op_type, {ctx.cast(inputs[0], DType::kFloat32), inputs[1], ctx.cast(inputs[2], DType::kFloat32)}, attrs);
  return ctx.cast(out, type);
}

std::string emit_where(EmitContext& ctx, const std::string& cond, const std::string& x, const std::string& y, DType type) {
  if (type != DType::kBool) return ctx.emit("Where", {cond, x, y});
  return ctx.emit("Or", {ctx.emit("And", {cond, x}), ctx.emit("And", {ctx.emit("Not", {cond}), y})});
}

}  // namespace pt2onnx::translate
