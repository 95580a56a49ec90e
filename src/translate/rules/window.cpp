// Window functions: bartlett as its triangle, kaiser as a constant of a static length, and hann,
// hamming and blackman as the cosine sums they are,
// a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) with N the length (periodic) or the length - 1
// (symmetric), computed in the result dtype. ONNX's HammingWindow fixes alpha = 25/46, where torch
// takes 0.54 and 0.46 by default, so one formula serves all three at every opset. A window of
// length 1 is [1], as in torch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>

#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

struct CosineSum {
  double a0, a1, a2;
};

RuleResult cosine_window(EmitContext& ctx, const ir::Node& node, const CosineSum& c) {
  ArgReader args(ctx, node);
  const DType type = args.dtype("dtype").value_or(DType::kFloat32);
  PT2ONNX_CHECK(type == DType::kFloat32 || type == DType::kFloat64, ErrorCode::kUnsupported,
                "window functions in " + std::string(ir::dtype_name(type)) + " (float32 and float64 only)");
  const bool periodic = args.bool_or("periodic", true);
  const std::string length = ctx.cast(args.int_value("window_length"), type);
  const std::string n = ctx.emit("Range", {ctx.const_scalar(0, type), length, ctx.const_scalar(1, type)});
  const std::string period = periodic ? length : ctx.emit("Sub", {length, ctx.const_scalar(1, type)});
  const std::string phase = ctx.emit("Div", {ctx.emit("Mul", {n, ctx.const_scalar(2 * std::numbers::pi, type)}), period});
  std::string w = ctx.emit("Sub", {ctx.const_scalar(c.a0, type),
                                   ctx.emit("Mul", {ctx.const_scalar(c.a1, type), ctx.emit("Cos", {phase})})});
  if (c.a2 != 0) {
    const std::string twice = ctx.emit("Mul", {phase, ctx.const_scalar(2, type)});
    w = ctx.emit("Add", {w, ctx.emit("Mul", {ctx.const_scalar(c.a2, type), ctx.emit("Cos", {twice})})});
  }
  // length 1: torch returns [1] (the formula divides 0 by 0 for a symmetric window)
  if (args.is_static_int("window_length") && args.get_int("window_length") != 1) return emitted(ctx, w);
  const std::string one = ctx.emit("Equal", {length, ctx.const_scalar(1, type)});
  return emitted(ctx, ctx.emit("Where", {one, ctx.const_scalar(1, type), w}));
}

// hann_window(int window_length, *, ScalarType? dtype=None, ...) -> Tensor;
// hann_window.periodic(int window_length, bool periodic, *, ...)
RuleResult aten_hann_window(EmitContext& ctx, const ir::Node& node) { return cosine_window(ctx, node, {0.5, 0.5, 0}); }
// hamming_window(int window_length, ...); .periodic(.., bool periodic); .periodic_alpha(.., float alpha);
// .periodic_alpha_beta(.., float alpha, float beta)
RuleResult aten_hamming_window(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return cosine_window(ctx, node, {args.float_or("alpha", 0.54), args.float_or("beta", 0.46), 0});
}
// blackman_window(int window_length, *, ...); .periodic(int window_length, bool periodic, *, ...)
RuleResult aten_blackman_window(EmitContext& ctx, const ir::Node& node) {
  return cosine_window(ctx, node, {0.42, 0.5, 0.08});
}

// bartlett_window(int window_length, *, ScalarType? dtype=None, ...) and .periodic: the triangle
// 1 - |2 n / N - 1|, N the length (periodic) or the length - 1; [1] for length 1.
RuleResult aten_bartlett_window(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype("dtype").value_or(DType::kFloat32);
  PT2ONNX_CHECK(type == DType::kFloat32 || type == DType::kFloat64, ErrorCode::kUnsupported,
                "window functions in " + std::string(ir::dtype_name(type)) + " (float32 and float64 only)");
  const std::string length = ctx.cast(args.int_value("window_length"), type);
  const std::string n = ctx.emit("Range", {ctx.const_scalar(0, type), length, ctx.const_scalar(1, type)});
  const std::string period = args.bool_or("periodic", true) ? length : ctx.emit("Sub", {length, ctx.const_scalar(1, type)});
  const std::string ramp = ctx.emit("Sub", {ctx.emit("Div", {ctx.emit("Mul", {n, ctx.const_scalar(2, type)}), period}), ctx.const_scalar(1, type)});
  const std::string w = ctx.emit("Sub", {ctx.const_scalar(1, type), ctx.emit("Abs", {ramp})});
  if (args.is_static_int("window_length") && args.get_int("window_length") != 1) return emitted(ctx, w);
  return emitted(ctx, ctx.emit("Where", {ctx.emit("Equal", {length, ctx.const_scalar(1, type)}), ctx.const_scalar(1, type), w}));
}

// kaiser_window(int window_length, *, ...), .periodic(.., bool periodic), .beta(.., bool periodic,
// float beta=12): I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2 with N the length
// (+ 1 when periodic, the last value dropped). A static length's window is a constant computed here
// in float64 (std::cyl_bessel_i); a symbolic length is refused.
RuleResult aten_kaiser_window(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype("dtype").value_or(DType::kFloat32);
  PT2ONNX_CHECK(type == DType::kFloat32 || type == DType::kFloat64, ErrorCode::kUnsupported,
                "window functions in " + std::string(ir::dtype_name(type)) + " (float32 and float64 only)");
  PT2ONNX_CHECK(args.is_static_int("window_length"), ErrorCode::kUnsupported, "kaiser_window of a symbolic length");
  const int64_t length = args.get_int("window_length");
  PT2ONNX_CHECK(length >= 0, ErrorCode::kUnsupported, "kaiser_window of a negative length");
  const double beta = args.float_or("beta", 12.0);
  const int64_t n_total = args.bool_or("periodic", true) ? length + 1 : length;
  const double a = static_cast<double>(n_total - 1) / 2.0;
  onnx::TensorProto t;
  t.add_dims(length);
  t.set_data_type(onnx::TensorProto_DataType_DOUBLE);
  for (int64_t i = 0; i < length; ++i) {
    const double r = length == 1 ? 0.0 : (static_cast<double>(i) - a) / a;
    t.add_double_data(std::cyl_bessel_i(0.0, beta * std::sqrt(std::max(0.0, 1.0 - r * r))) / std::cyl_bessel_i(0.0, beta));
  }
  return emitted(ctx, cast_if_needed(ctx, ctx.const_tensor(std::move(t), node.name + "_kaiser"), DType::kFloat64, type));
}

}  // namespace

void register_window_rules(RuleTable& t) {
  t.add("aten.hann_window.default", aten_hann_window);
  t.add("aten.hann_window.periodic", aten_hann_window);
  t.add("aten.hamming_window.default", aten_hamming_window);
  t.add("aten.hamming_window.periodic", aten_hamming_window);
  t.add("aten.hamming_window.periodic_alpha", aten_hamming_window);
  t.add("aten.hamming_window.periodic_alpha_beta", aten_hamming_window);
  t.add("aten.blackman_window.default", aten_blackman_window);
  t.add("aten.blackman_window.periodic", aten_blackman_window);
  t.add("aten.bartlett_window.default", aten_bartlett_window);
  t.add("aten.bartlett_window.periodic", aten_bartlett_window);
  t.add("aten.kaiser_window.default", aten_kaiser_window);
  t.add("aten.kaiser_window.periodic", aten_kaiser_window);
  t.add("aten.kaiser_window.beta", aten_kaiser_window);
}

}  // namespace pt2onnx::translate
