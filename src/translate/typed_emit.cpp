// Emitting an op in a type its ONNX schema takes (typed_emit.h).
#include "translate/typed_emit.h"

#include <algorithm>
#include <variant>
#include <map>
#include <optional>
#include <tuple>

#include "common/error.h"
#include "model/onnx_type_table.h"
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

// What an op's schema at an opset says of one dtype for its first input's type parameter. Asked
// for every elementwise node a rule emits, so each answer is looked up once per thread.
struct TypeAnswer {
  const model::OpTypeFacts* schema = nullptr;  // null: unknown op (emitted as it is)
  bool takes = true;                           // the schema takes the dtype (or says nothing of it)
  std::optional<DType> carrier;                // else the narrowest exact wider type it takes
};

const TypeAnswer& answer_for(const EmitContext& ctx, std::string_view op_type, DType type) {
  thread_local std::map<std::tuple<std::string, int, DType>, TypeAnswer, std::less<>> answers;
  auto key = std::make_tuple(std::string(op_type), ctx.opset(), type);
  auto found = answers.find(key);
  if (found != answers.end()) return found->second;
  TypeAnswer answer;
  answer.schema = model::op_type_facts(std::get<0>(key), ctx.opset());
  if (answer.schema && answer.schema->inputs > 0) {
    auto takes = [&](DType t) { return answer.schema->takes(onnx_dtype(t)); };
    answer.takes = takes(type);
    if (!answer.takes) {
      const std::vector<DType> carriers = exact_carriers(type);
      const auto carrier = std::find_if(carriers.begin(), carriers.end(), takes);
      if (carrier != carriers.end()) answer.carrier = *carrier;
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
  // Formal inputs past the last repeat the last one (variadic inputs such as Max's).
  const model::OpTypeFacts& schema = *answer_for(ctx, op_type, type).schema;
  std::vector<std::string> cast_inputs = inputs;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty() && schema.input_shares(i)) cast_inputs[i] = ctx.cast(inputs[i], *carrier);
  std::vector<std::string> outputs = ctx.emit(op_type, cast_inputs, attrs, num_outputs);
  for (size_t i = 0; i < outputs.size(); ++i)
    if (schema.output_shares(i)) outputs[i] = ctx.cast(outputs[i], type);
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
