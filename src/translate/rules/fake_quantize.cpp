// Fake quantization: the ops a QAT program carries before convert_pt2e (quantize then dequantize
// in float, so that training sees the rounding), as torch's arithmetic in float32. A prepared QAT
// program's observers (aten.fused_moving_avg_obs_fake_quant) also update their running min/max,
// scale and zero point on every call: those buffers are state (program_state.h, liveness.cpp's
// writers), and the rule binds their new values the way a training batch norm binds its running
// statistics.
//
// torch's kernels (aten/src/ATen/native/quantized) multiply by the reciprocal of the float32
// scale and round half to even: (clamp(round(x * (1 / scale)) + zero_point, qmin, qmax) -
// zero_point) * scale. The same order here, so that ties fall as torch's do.
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// A fake-quantized `x` (float32) and its mask (qmin <= round(x / scale) + zero <= qmax), for a scale
// and zero point already shaped to broadcast against `x` (float32 both, the zero point integral).
struct FakeQuantized {
  std::string value, mask;
};
FakeQuantized fake_quantize(EmitContext& ctx, const std::string& x, const std::string& scale, const std::string& zero,
                            int64_t qmin, int64_t qmax, bool want_mask) {
  const std::string lo = ctx.const_scalar(static_cast<double>(qmin), DType::kFloat32);
  const std::string hi = ctx.const_scalar(static_cast<double>(qmax), DType::kFloat32);
  const std::string q = ctx.emit("Add", {ctx.emit("Round", {ctx.emit("Mul", {x, ctx.emit("Reciprocal", {scale})})}), zero});
  FakeQuantized r;
  r.value = ctx.emit("Mul", {ctx.emit("Sub", {ctx.emit("Clip", {q, lo, hi}), zero}), scale});
  if (want_mask) r.mask = ctx.emit("And", {ctx.emit("GreaterOrEqual", {q, lo}), ctx.emit("LessOrEqual", {q, hi})});
  return r;
}

// A per-tensor parameter as a float32 0-D value (a tensor of one element, or a number).
std::string scalar_param(EmitContext& ctx, const ArgReader& args, const std::string& name) {
  if (!args.is_tensor(name)) return ctx.const_scalar(args.get_float(name), DType::kFloat32);
  return ctx.reshape(cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kFloat32), ctx.const_i64s({}));
}

// A per-channel parameter (float32) shaped [C, 1, ...] to broadcast along `axis` of a tensor of `rank`.
std::string channel_param(EmitContext& ctx, const std::string& v, int64_t axis, int64_t rank) {
  std::vector<int64_t> trailing;
  for (int64_t d = axis + 1; d < rank; ++d) trailing.push_back(d - axis);
  return trailing.empty() ? v : ctx.unsqueeze(v, trailing);
}

void require_float32(const ArgReader& args, const std::string& name, const char* op) {
  PT2ONNX_CHECK(args.dtype_of(name) == DType::kFloat32, ErrorCode::kUnsupported,
                std::string(op) + " on " + std::string(ir::dtype_name(args.dtype_of(name))) + " (torch takes float32 only)");
}

// The value, in the input's type `type` (torch computes float16 and bfloat16 inputs in float32
// too), and, when a second output is read, the mask.
RuleResult fake_quantized(EmitContext& ctx, const FakeQuantized& r, DType type = DType::kFloat32) {
  ctx.set_output(0, cast_if_needed(ctx, r.value, DType::kFloat32, type));
  if (!r.mask.empty()) ctx.set_output(1, r.mask);
  return RuleResult::kEmitted;
}

// fake_quantize_per_tensor_affine_cachemask(Tensor self, float scale, int zero_point, int quant_min, int quant_max)
//   -> (Tensor output, Tensor mask)
// _fake_quantize_per_tensor_affine_cachemask_tensor_qparams(Tensor self, Tensor scale, Tensor zero_point,
//   Tensor fake_quant_enabled, int quant_min, int quant_max) -> (Tensor output, Tensor mask)   (self, all true, when disabled)
RuleResult fake_quantize_per_tensor_cachemask(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  const std::string x = cast_if_needed(ctx, args.tensor("self"), type, DType::kFloat32);
  FakeQuantized r = fake_quantize(ctx, x, scalar_param(ctx, args, "scale"), scalar_param(ctx, args, "zero_point"),
                                  args.get_int("quant_min"), args.get_int("quant_max"), ctx.output_used(1));
  if (args.has("fake_quant_enabled")) {
    const std::string on = ctx.cast(ctx.reshape(args.tensor("fake_quant_enabled"), ctx.const_i64s({})), DType::kBool);
    r.value = ctx.emit("Where", {on, r.value, x});
    if (!r.mask.empty()) r.mask = ctx.emit("Or", {r.mask, ctx.emit("Not", {on})});
  }
  return fake_quantized(ctx, r, type);
}

// fake_quantize_per_channel_affine_cachemask(Tensor self, Tensor scale, Tensor zero_point, int axis,
//   int quant_min, int quant_max) -> (Tensor output, Tensor mask)
// quantized_decomposed.fake_quant_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis,
//   int quant_min, int quant_max) -> Tensor   (scales as float32, zero points as int32, input float32)
RuleResult fake_quantize_per_channel(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const bool decomposed = args.has("input");
  const std::string self = decomposed ? "input" : "self", scale = decomposed ? "scales" : "scale",
                    zero = decomposed ? "zero_points" : "zero_point";
  if (decomposed) require_float32(args, self, "fake_quant_per_channel");
  const int64_t rank = args.rank_of(self), axis = normalize_dim(args.get_int("axis"), rank);
  const std::string s = channel_param(ctx, cast_if_needed(ctx, args.tensor(scale), args.dtype_of(scale), DType::kFloat32), axis, rank);
  // torch reads the zero points as integers (int32 in the decomposed op): a float one is truncated
  std::string z = args.tensor(zero);
  if (ir::dtype_facts(args.dtype_of(zero))->kind == ir::DTypeKind::kFloat) z = ctx.cast(z, DType::kInt32);
  z = channel_param(ctx, ctx.cast(z, DType::kFloat32), axis, rank);
  const DType type = args.dtype_of(self);
  const std::string x = cast_if_needed(ctx, args.tensor(self), type, DType::kFloat32);
  return fake_quantized(ctx, fake_quantize(ctx, x, s, z, args.get_int("quant_min"), args.get_int("quant_max"),
                                           !decomposed && ctx.output_used(1)),
                        type);
}

// _fake_quantize_learnable_per_tensor_affine(Tensor self, Tensor scale, Tensor zero_point, int quant_min,
//   int quant_max, float grad_factor=1.) -> Tensor
// _fake_quantize_learnable_per_channel_affine(Tensor self, Tensor scale, Tensor zero_point, int axis, ...)
// The learned (float) zero point is rounded half to even and clamped to [quant_min, quant_max].
RuleResult fake_quantize_learnable(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t qmin = args.get_int("quant_min"), qmax = args.get_int("quant_max");
  const bool per_channel = args.has("axis");
  const int64_t rank = args.rank_of("self"), axis = per_channel ? normalize_dim(args.get_int("axis"), rank) : 0;
  auto param = [&](const std::string& name) {
    return per_channel ? channel_param(ctx, cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kFloat32), axis, rank)
                       : scalar_param(ctx, args, name);
  };
  const std::string zero = ctx.emit("Clip", {ctx.emit("Round", {param("zero_point")}),
                                             ctx.const_scalar(static_cast<double>(qmin), DType::kFloat32),
                                             ctx.const_scalar(static_cast<double>(qmax), DType::kFloat32)});
  return fake_quantized(ctx, fake_quantize(ctx, args.tensor("self"), param("scale"), zero, qmin, qmax, false));
}

// ---- QAT observers: fused_moving_avg_obs_fake_quant ----------------------------------------------

// torch's ChooseQuantizationParams (aten/src/ATen/native/quantized/cpu/QuantUtils.h) on float32
// min/max of any shape, elementwise, in the precisions torch uses: the range made to hold 0 (and,
// symmetric, widened to the symmetric one) in float32, the scale in float64 (0.1 when it or its
// float32 reciprocal degenerates; a scale under 6.1e-5 raised to it and the range scaled with
// it), the zero point from whichever end adds the smaller terms, nudged to an integer in range
// (the middle of the range when symmetric and the range straddles 0). Returns the float32 scale
// and the zero point as float64 (integral).
struct MinMaxQParams {
  std::string scale, zero;
};
MinMaxQParams choose_qparams_from_min_max(EmitContext& ctx, std::string min, std::string max, int64_t qmin, int64_t qmax,
                                          bool symmetric) {
  auto f = [&](double v) { return ctx.const_scalar(v, DType::kFloat32); };
  auto d = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  auto straddles = [&]() {
    return ctx.emit("And", {ctx.emit("Less", {min, f(0)}), ctx.emit("Greater", {max, f(0)})});
  };
  if (symmetric) {
    const int64_t sym_min = -((qmax - qmin) / 2 + 1), sym_max = (qmax - qmin) / 2;
    const std::string widest = ctx.emit("Max", {ctx.emit("Abs", {ctx.emit("Div", {min, f(static_cast<double>(sym_min))})}),
                                                ctx.emit("Abs", {ctx.emit("Div", {max, f(static_cast<double>(sym_max))})})});
    const std::string both = straddles();
    min = ctx.emit("Where", {both, ctx.emit("Mul", {widest, f(static_cast<double>(sym_min))}), min});
    max = ctx.emit("Where", {both, ctx.emit("Mul", {widest, f(static_cast<double>(sym_max))}), max});
  }
  min = ctx.emit("Min", {min, f(0)});
  max = ctx.emit("Max", {max, f(0)});
  const double span = static_cast<double>(qmax - qmin);
  std::string scale = ctx.emit("Div", {ctx.emit("Sub", {ctx.cast(max, DType::kFloat64), ctx.cast(min, DType::kFloat64)}), d(span)});
  const std::string scale32 = ctx.cast(scale, DType::kFloat32);
  const std::string degenerate = ctx.emit("Or", {ctx.emit("Equal", {scale32, f(0)}), ctx.emit("IsInf", {ctx.emit("Reciprocal", {scale32})})});
  scale = ctx.emit("Where", {degenerate, d(0.1), scale});
  // scales under float16's smallest normal are raised to it, the range with them
  const float threshold = 6.1e-5f;
  const std::string small = ctx.emit("Less", {scale, d(static_cast<double>(threshold))});
  const std::string amplifier = ctx.emit("Div", {f(static_cast<double>(threshold)), ctx.cast(scale, DType::kFloat32)});
  const std::string min_zero = ctx.emit("Equal", {min, f(0)}), max_zero = ctx.emit("Equal", {max, f(0)});
  const float full = threshold * static_cast<float>(qmax - qmin);
  const std::string small_min = ctx.emit("Where", {min_zero, min, ctx.emit("Where", {max_zero, f(static_cast<double>(-full)),
                                                                                       ctx.emit("Mul", {min, amplifier})})});
  const std::string small_max = ctx.emit("Where", {min_zero, f(static_cast<double>(full)),
                                                   ctx.emit("Where", {max_zero, max, ctx.emit("Mul", {max, amplifier})})});
  min = ctx.emit("Where", {small, small_min, min});
  max = ctx.emit("Where", {small, small_max, max});
  scale = ctx.emit("Where", {small, d(static_cast<double>(threshold)), scale});

  const std::string min_steps = ctx.emit("Div", {ctx.cast(min, DType::kFloat64), scale});
  const std::string max_steps = ctx.emit("Div", {ctx.cast(max, DType::kFloat64), scale});
  const double lo = static_cast<double>(qmin), hi = static_cast<double>(qmax);
  const std::string from_min = ctx.emit("Sub", {d(lo), min_steps}), from_max = ctx.emit("Sub", {d(hi), max_steps});
  const std::string min_error = ctx.emit("Sub", {d(std::abs(lo)), ctx.emit("Abs", {min_steps})});
  const std::string max_error = ctx.emit("Sub", {d(std::abs(hi)), ctx.emit("Abs", {max_steps})});
  std::string zero = ctx.emit("Where", {ctx.emit("Less", {min_error, max_error}), from_min, from_max});
  if (symmetric) zero = ctx.emit("Where", {straddles(), d(static_cast<double>(qmin + qmax) / 2), zero});
  zero = ctx.emit("Where", {ctx.emit("Less", {zero, d(lo)}), d(lo),
                            ctx.emit("Where", {ctx.emit("Greater", {zero, d(hi)}), d(hi), ctx.emit("Round", {zero})})});
  return {ctx.cast(scale, DType::kFloat32), zero};
}

// The running min or max after one observation: the batch's where it was +-inf (never observed),
// else running + c * (batch - running), in float32.
std::string moving_average(EmitContext& ctx, const std::string& running, const std::string& batch, double c) {
  const std::string step = ctx.emit("Mul", {ctx.const_scalar(c, DType::kFloat32), ctx.emit("Sub", {batch, running})});
  return ctx.emit("Where", {ctx.emit("IsInf", {running}), batch, ctx.emit("Add", {running, step})});
}

// A 0-D bool of a one-element int64 switch buffer (observer_on, fake_quant_on).
std::string switch_on(EmitContext& ctx, const ArgReader& args, const std::string& name) {
  return ctx.cast(ctx.reshape(args.tensor(name), ctx.const_i64s({})), DType::kBool);
}

// fused_moving_avg_obs_fake_quant(Tensor self, Tensor observer_on, Tensor fake_quant_on, Tensor(a!) running_min,
//   Tensor(b!) running_max, Tensor(c!) scale, Tensor(d!) zero_point, float averaging_const, int quant_min,
//   int quant_max, int ch_axis, bool per_row_fake_quant=False, bool symmetric_quant=False) -> Tensor
// _fused_moving_avg_obs_fq_helper(...same...) -> (Tensor output, Tensor mask)
// _fused_moving_avg_obs_fq_helper_functional(...same, nothing written...) -> (output, mask, running_min_out,
//   running_max_out, scale_out, zero_point_out)
// torch (fused_obs_fake_quant.cpp): when observer_on, the running min/max (per tensor, or per row
// of dim 0) move towards the batch's; when fake_quant_on, scale and zero point are chosen from them
// and the input fake-quantized with them, else the input passes unchanged and they keep their values.
// The switches are read at run time (Where), as torch reads them.
RuleResult fused_moving_avg_obs_fake_quant(EmitContext& ctx, const ir::Node& node, bool functional) {
  ArgReader args(ctx, node);
  require_float32(args, "self", "fused_moving_avg_obs_fake_quant");
  const bool per_row = args.bool_or("per_row_fake_quant", false);
  const int64_t rank = args.rank_of("self");
  const int64_t qmin = args.get_int("quant_min"), qmax = args.get_int("quant_max");
  for (const char* name : {"running_min", "running_max", "scale", "zero_point"}) {
    int64_t n = 1;
    for (const ir::Dim& dim : args.meta(name).sizes) n *= dim.is_static() ? dim.as_int() : 1;
    PT2ONNX_CHECK(n > 0, ErrorCode::kUnsupported,
                  "fused_moving_avg_obs_fake_quant (node " + node.name + ") with an empty " + name +
                      " (an observer that has seen no data: torch resizes its buffers on the first call, ONNX state cannot)");
  }
  PT2ONNX_CHECK(!per_row || normalize_dim(args.get_int("ch_axis"), rank) == 0, ErrorCode::kUnsupported,
                "fused_moving_avg_obs_fake_quant per row along axis " + std::to_string(args.get_int("ch_axis")) +
                    " (torch observes rows of axis 0 only)");
  const std::string x = args.tensor("self");
  const std::string running_min = args.tensor("running_min"), running_max = args.tensor("running_max");
  const std::string old_scale = args.tensor("scale"), old_zero = args.tensor("zero_point");
  const DType scale_type = args.dtype_of("scale"), zero_type = args.dtype_of("zero_point");

  // observation: the batch's min/max per tensor or per row of axis 0, shaped as the running ones
  std::vector<int64_t> axes;
  for (int64_t a = per_row ? 1 : 0; a < rank; ++a) axes.push_back(a);
  auto batch = [&](const char* reduce, const std::string& like) {
    return ctx.reshape(ctx.reduce(reduce, x, axes, false), ctx.shape_of(like));
  };
  const double c = args.get_float("averaging_const");
  const std::string observe = switch_on(ctx, args, "observer_on");
  const std::string new_min = ctx.emit("Where", {observe, moving_average(ctx, running_min, batch("ReduceMin", running_min), c), running_min});
  const std::string new_max = ctx.emit("Where", {observe, moving_average(ctx, running_max, batch("ReduceMax", running_max), c), running_max});

  // fake quantization with the parameters chosen from the (new) running range
  const MinMaxQParams p = choose_qparams_from_min_max(ctx, new_min, new_max, qmin, qmax, args.bool_or("symmetric_quant", false));
  const std::string zero32 = ctx.cast(p.zero, DType::kFloat32);
  std::string s = p.scale, z = zero32;
  if (per_row) {
    s = channel_param(ctx, ctx.reshape(s, ctx.const_i64s({-1})), 0, rank);
    z = channel_param(ctx, ctx.reshape(z, ctx.const_i64s({-1})), 0, rank);
  } else {
    s = ctx.reshape(s, ctx.const_i64s({}));
    z = ctx.reshape(z, ctx.const_i64s({}));
  }
  const bool want_mask = ctx.output_used(1);
  const FakeQuantized r = fake_quantize(ctx, x, s, z, qmin, qmax, want_mask);
  const std::string quantize = switch_on(ctx, args, "fake_quant_on");
  ctx.set_output(0, ctx.emit("Where", {quantize, r.value, x}));
  if (want_mask) ctx.set_output(1, ctx.emit("Or", {r.mask, ctx.emit("Not", {quantize})}));
  const std::string new_scale = ctx.emit("Where", {quantize, ctx.reshape(cast_if_needed(ctx, p.scale, DType::kFloat32, scale_type),
                                                                         ctx.shape_of(old_scale)), old_scale});
  const std::string new_zero = ctx.emit("Where", {quantize, ctx.reshape(ctx.cast(p.zero, zero_type), ctx.shape_of(old_zero)), old_zero});
  if (functional) {
    ctx.set_output(2, new_min);
    ctx.set_output(3, new_max);
    ctx.set_output(4, new_scale);
    ctx.set_output(5, new_zero);
  } else {  // in place: later readers (the buffers' state outputs) read the new values
    ctx.bind(args.tensor_fx("running_min"), new_min);
    ctx.bind(args.tensor_fx("running_max"), new_max);
    ctx.bind(args.tensor_fx("scale"), new_scale);
    ctx.bind(args.tensor_fx("zero_point"), new_zero);
  }
  return RuleResult::kEmitted;
}

RuleResult fused_obs_fake_quant_in_place(EmitContext& ctx, const ir::Node& node) {
  return fused_moving_avg_obs_fake_quant(ctx, node, false);
}
RuleResult fused_obs_fake_quant_functional(EmitContext& ctx, const ir::Node& node) {
  return fused_moving_avg_obs_fake_quant(ctx, node, true);
}

}  // namespace

void register_fake_quantize_rules(RuleTable& t) {
  // torch's fake_quantize_*_affine return the cachemask forms' value (ATen calls them)
  t.add("aten.fake_quantize_per_tensor_affine.default", fake_quantize_per_tensor_cachemask);
  t.add("aten.fake_quantize_per_tensor_affine.tensor_qparams", fake_quantize_per_tensor_cachemask);
  t.add("aten.fake_quantize_per_channel_affine.default", fake_quantize_per_channel);
  t.add("aten.fake_quantize_per_tensor_affine_cachemask.default", fake_quantize_per_tensor_cachemask);
  t.add("aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams.default", fake_quantize_per_tensor_cachemask);
  t.add("aten.fake_quantize_per_channel_affine_cachemask.default", fake_quantize_per_channel);
  t.add("quantized_decomposed.fake_quant_per_channel.default", fake_quantize_per_channel);
  t.add("aten._fake_quantize_learnable_per_tensor_affine.default", fake_quantize_learnable);
  t.add("aten._fake_quantize_learnable_per_channel_affine.default", fake_quantize_learnable);
  t.add("aten.fused_moving_avg_obs_fake_quant.default", fused_obs_fake_quant_in_place);
  t.add("aten._fused_moving_avg_obs_fq_helper.default", fused_obs_fake_quant_in_place);
  t.add("aten._fused_moving_avg_obs_fq_helper_functional.default", fused_obs_fake_quant_functional);
}

}  // namespace pt2onnx::translate
