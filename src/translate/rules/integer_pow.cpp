#include "translate/rules/integer_pow.h"

#include <vector>

#include "translate/emit_context.h"
#include "translate/onnx_types.h"
#include "translate/rule_helpers.h"
#include "translate/subgraph_body.h"

namespace pt2onnx::translate {

using ir::DType;

std::string integer_pow(EmitContext& ctx, const std::string& base, const std::string& exponent, DType type) {
  // Computed in int64, whose wrapped products reduce to the narrower type's by the final Cast.
  const DType wide = DType::kInt64;
  auto c = [&](double v) { return ctx.const_scalar(v, wide); };
  const std::string a0 = cast_if_needed(ctx, base, type, wide), e0 = cast_if_needed(ctx, exponent, type, wide);
  const std::string shape = ctx.emit("Shape", {ctx.emit("Add", {a0, e0})});  // the broadcast shape
  const std::string a = ctx.emit("Expand", {a0, shape});
  const std::string e = ctx.emit("Max", {ctx.emit("Expand", {e0, shape}), c(0)});
  const std::string one = ctx.emit("Expand", {c(1), shape});

  onnx::GraphProto body;
  body.set_name(ctx.fresh_name("integer_pow_step"));
  add_scalar_input(ctx, body, "i", DType::kInt64);
  add_scalar_input(ctx, body, "cond", DType::kBool);
  const std::string result = add_typed_input(ctx, body, "result", wide);
  const std::string factor = add_typed_input(ctx, body, "factor", wide);
  const std::string bits = add_typed_input(ctx, body, "bits", wide);
  auto step = [&](const char* op, const std::vector<std::string>& in, const std::vector<Attr>& attrs = {}) {
    return append_body_node(ctx, body, op, in, attrs);
  };
  const std::string odd = step("Equal", {step("Mod", {bits, c(2)}), c(1)});
  const std::string next_result = step("Where", {odd, step("Mul", {result, factor}), result});
  const std::string next_factor = step("Mul", {factor, factor});
  const std::string next_bits = step("Div", {bits, c(2)});
  // Another round while any exponent has bits left (ReduceMax of nothing is the lowest int64).
  const std::string more = step("Greater", {step("ReduceMax", {next_bits}, {Attr("keepdims", int64_t{0})}), c(0)});
  add_typed_output(body, more, DType::kBool, true);
  add_typed_output(body, next_result, wide);
  add_typed_output(body, next_factor, wide);
  add_typed_output(body, next_bits, wide);
  const std::string any = ctx.emit("Greater", {ctx.reduce("ReduceMax", e, std::nullopt, false), c(0)});
  const std::string positive = ctx.emit("Loop", {ctx.const_i64(64), any, one, a, e}, {Attr("body", std::move(body))}, 3)[0];

  // Negative exponents: 1 for base 1, -1 for base -1 and an odd exponent, 1 for an even one, else 0.
  const std::string e_full = ctx.emit("Expand", {e0, shape});
  const std::string odd_exponent = ctx.emit("Equal", {ctx.emit("Abs", {ctx.emit("Mod", {e_full, c(2)}, {Attr("fmod", int64_t{1})})}), c(1)});
  const std::string minus_one = ctx.emit("Where", {odd_exponent, c(-1), c(1)});
  const std::string negative = ctx.emit("Where", {ctx.emit("Equal", {a, c(1)}), c(1),
                                                  ctx.emit("Where", {ctx.emit("Equal", {a, c(-1)}), minus_one, c(0)})});
  const std::string value = ctx.emit("Where", {ctx.emit("Less", {e_full, c(0)}), negative, positive});
  return cast_if_needed(ctx, value, wide, type);
}

}  // namespace pt2onnx::translate
