// Normalisation rules: layer_norm (ONNX LayerNormalization, opset 17), batch_norm (inference form,
// or batch statistics when training, with the running statistics' update), rms_norm (decomposed:
// RMSNormalization is opset 23), instance_norm and group_norm (InstanceNormalization on float32, over
// [N, G, -1] for groups, as torchlib writes them: GroupNormalization changed meaning at 21;
// decomposed for the other types, which onnxruntime's kernel lacks, and where a statistic is used).
#include "common/error.h"
#include "translate/constant_tensors.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// Axes 0, 2, 3, ... of a rank-`rank` tensor: every axis but the channel one.
std::vector<int64_t> non_channel_axes(int64_t rank) {
  std::vector<int64_t> axes = {0};
  for (int64_t i = 2; i < rank; ++i) axes.push_back(i);
  return axes;
}

// `v` of shape [C] reshaped to [C, 1, ..., 1] so that it broadcasts along dim 1 of a rank-`rank` tensor.
std::string per_channel(EmitContext& ctx, const std::string& v, int64_t rank) {
  std::vector<int64_t> axes;
  for (int64_t i = 1; i < rank - 1; ++i) axes.push_back(i);
  return axes.empty() ? v : ctx.unsqueeze(v, axes);
}

// The biased mean and variance of x over `axes` (kept), and x - mean.
struct Moments {
  std::string mean;
  std::string var;
  std::string centered;
};

Moments moments(EmitContext& ctx, const std::string& x, const std::optional<std::vector<int64_t>>& axes) {
  const std::string mean = ctx.reduce("ReduceMean", x, axes, true);
  const std::string centered = ctx.emit("Sub", {x, mean});
  return {mean, ctx.reduce("ReduceMean", ctx.emit("Mul", {centered, centered}), axes, true), centered};
}

// (m.centered) / sqrt(m.var + eps).
std::string standardized(EmitContext& ctx, const Moments& m, double eps, DType type) {
  return ctx.emit("Div", {m.centered, ctx.emit("Sqrt", {ctx.emit("Add", {m.var, ctx.const_scalar(eps, type)})})});
}

// (x - mean) / sqrt(var + eps) with the biased mean and variance over `axes` (kept).
std::string standardize(EmitContext& ctx, const std::string& x, const std::optional<std::vector<int64_t>>& axes,
                        double eps, DType type) {
  return standardized(ctx, moments(ctx, x, axes), eps, type);
}

// y * weight + bias along the channel axis (dim 1), for whichever of the two the node has.
std::string channel_affine(EmitContext& ctx, const ArgReader& args, std::string y, int64_t rank) {
  if (auto weight = args.optional_tensor("weight")) y = ctx.emit("Mul", {y, per_channel(ctx, *weight, rank)});
  if (auto bias = args.optional_tensor("bias")) y = ctx.emit("Add", {y, per_channel(ctx, *bias, rank)});
  return y;
}

// ---- layer norm -------------------------------------------------------------------------------

// Sets output 0 and, when the node uses them, outputs 1 (mean) and 2 (rstd).
RuleResult emit_layer_norm(EmitContext& ctx, const ArgReader& args, bool has_stats) {
  const std::vector<int64_t> normalized_shape = args.ints("normalized_shape");
  const DType type = args.dtype_of("input");
  const int64_t axis = -static_cast<int64_t>(normalized_shape.size());
  // LayerNormalization requires a scale; a missing weight is ones of normalized_shape.
  const std::string scale = args.has("weight") ? args.tensor("weight")
                                               : ctx.emit("Expand", {ctx.const_scalar(1, type), ctx.const_i64s(normalized_shape)});
  std::vector<std::string> inputs = {args.tensor("input"), scale};
  if (auto bias = args.optional_tensor("bias")) inputs.push_back(*bias);
  const bool stats_used = has_stats && (ctx.output_used(1) || ctx.output_used(2));
  const std::vector<std::string> outs = ctx.emit("LayerNormalization", inputs,
                                                 {Attr("axis", axis), Attr("epsilon", args.float_or("eps", 1e-5))},
                                                 stats_used ? 3 : 1);
  ctx.set_output(0, outs[0]);
  if (stats_used) {
    // ONNX keeps the statistics in float32 (stash_type 1).
    ctx.set_output(1, cast_if_needed(ctx, outs[1], DType::kFloat32, args.out_dtype(1)));
    ctx.set_output(2, cast_if_needed(ctx, outs[2], DType::kFloat32, args.out_dtype(2)));
  }
  return RuleResult::kEmitted;
}

// layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
//            float eps=1e-05, bool cudnn_enable=True) -> Tensor
RuleResult aten_layer_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emit_layer_norm(ctx, args, false);
}

// native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps)
//   -> (Tensor, Tensor, Tensor)
RuleResult aten_native_layer_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emit_layer_norm(ctx, args, true);
}

// ---- batch norm -------------------------------------------------------------------------------

// The running statistics after a training step, as torch updates them:
// (1 - momentum) * running + momentum * batch, the batch variance made unbiased (times n / (n - 1),
// n the elements per channel). Computed in the running statistics' dtype.
// The running statistics, new or old.
struct RunningStats {
  std::string mean;
  std::string var;
};

RunningStats updated_running_stats(EmitContext& ctx, const ArgReader& args, const Moments& batch) {
  const std::string mean = args.tensor("running_mean");
  const std::string var = args.tensor("running_var");
  const DType input = args.dtype_of("input");
  const DType stat = args.dtype_of("running_mean");
  const double momentum = args.float_or("momentum", 0.1);
  const std::string x = args.tensor("input");
  const std::string count = ctx.cast(ctx.emit("Div", {ctx.emit("Size", {x}), ctx.size_of(args.tensor_fx("input"), 1)}), stat);
  const std::string unbias = ctx.emit("Div", {count, ctx.emit("Sub", {count, ctx.const_scalar(1, stat)})});
  const std::string keep = ctx.const_scalar(1 - momentum, stat);
  const std::string take = ctx.const_scalar(momentum, stat);
  // [1, C, 1, ...] -> [C], the running statistics' shape.
  auto per_channel_stat = [&](const std::string& v) { return cast_if_needed(ctx, ctx.reshape(v, ctx.shape_of(mean)), input, stat); };
  const std::string batch_mean = per_channel_stat(batch.mean);
  const std::string batch_var = ctx.emit("Mul", {per_channel_stat(batch.var), unbias});
  return {ctx.emit("Add", {ctx.emit("Mul", {mean, keep}), ctx.emit("Mul", {batch_mean, take})}),
          ctx.emit("Add", {ctx.emit("Mul", {var, keep}), ctx.emit("Mul", {batch_var, take})})};
}

// Whether output i exists and is used (batch_norm has one output, the native forms three or more).
bool uses_output(EmitContext& ctx, size_t i) { return ctx.output_count() > i && ctx.output_used(i); }

// A [0] tensor of `type`: what torch's CPU kernels return for the saved statistics outside
// training, and for _batch_norm_with_update's reserve.
std::string empty_vector(EmitContext& ctx, DType type) {
  onnx::TensorProto t;
  t.set_data_type(onnx_dtype(type));
  t.add_dims(0);
  return ctx.const_tensor(std::move(t), "empty");
}

// Outputs 1 and 2, where used: the saved mean and inverse standard deviation 1 / sqrt(var + eps)
// of the batch per channel ([C]; `batch` null: empty, as outside training).
void set_saved_stats(EmitContext& ctx, const ArgReader& args, const Moments* batch, double eps) {
  const DType type = args.dtype_of("input");
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!uses_output(ctx, i)) continue;
    if (!batch) {
      ctx.set_output(i, empty_vector(ctx, args.out_dtype(i)));
      continue;
    }
    const std::string v = i == 1 ? batch->mean
                                 : ctx.emit("Reciprocal", {ctx.emit("Sqrt", {ctx.emit("Add", {batch->var, ctx.const_scalar(eps, type)})})});
    ctx.set_output(i, cast_if_needed(ctx, ctx.reshape(v, ctx.const_i64s({-1})), type, args.out_dtype(i)));
  }
}

// Normalises with the running statistics (inference) or the batch's own (training, or no running
// statistics), then applies the optional affine weight and bias; sets the saved statistics where
// the node has them and uses them. Returns the updated running statistics in training (empty
// otherwise).
std::optional<RunningStats> emit_batch_norm_value(EmitContext& ctx, const ArgReader& args, bool training) {
  const std::string x = args.tensor("input");
  const DType type = args.dtype_of("input");
  const int64_t rank = args.rank_of("input");
  const double eps = args.float_or("eps", 1e-5);
  const bool has_running = args.has("running_mean") && args.has("running_var");

  if (!training && has_running) {
    // BatchNormalization needs scale and bias; missing ones are ones/zeros shaped like the mean.
    const std::string mean = args.tensor("running_mean");
    const std::string stat_shape = ctx.shape_of(mean);
    const std::string scale = args.has("weight") ? args.tensor("weight")
                                                 : ctx.emit("Expand", {ctx.const_scalar(1, type), stat_shape});
    const std::string bias = args.has("bias") ? args.tensor("bias") : ctx.emit("Expand", {ctx.const_scalar(0, type), stat_shape});
    ctx.set_output(0, ctx.emit("BatchNormalization", {x, scale, bias, mean, args.tensor("running_var")},
                               {Attr("epsilon", eps)}));
    set_saved_stats(ctx, args, nullptr, eps);
    return std::nullopt;
  }
  // ONNX BatchNormalization's training_mode would give the batch statistics too, but its
  // running_var takes the biased variance (torch's is unbiased), and onnxruntime's standard builds
  // refuse training_mode; explicit ops run everywhere.
  const Moments batch = moments(ctx, x, non_channel_axes(rank));
  ctx.set_output(0, channel_affine(ctx, args, standardized(ctx, batch, eps, type), rank));
  set_saved_stats(ctx, args, &batch, eps);
  if (!has_running) return std::nullopt;
  return updated_running_stats(ctx, args, batch);
}

// batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var,
//            bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor;
// also native_batch_norm and _native_batch_norm_legit(.no_stats), which have `training` too.
// In training they update running_mean and running_var in place: later readers of those values
// (a buffer's state output among them, program_state.h) read the new statistics.
RuleResult aten_batch_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (const std::optional<RunningStats> updated = emit_batch_norm_value(ctx, args, args.bool_or("training", false))) {
    ctx.bind(args.tensor_fx("running_mean"), updated->mean);
    ctx.bind(args.tensor_fx("running_var"), updated->var);
  }
  return RuleResult::kEmitted;
}

// _batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean,
//     Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor): training
// batch norm (its running statistics updated in place, as aten_batch_norm's); output 3 is the
// reserve, empty uint8 on the CPU.
RuleResult aten_batch_norm_with_update(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::optional<RunningStats> updated = emit_batch_norm_value(ctx, args, true);
  PT2ONNX_CHECK(updated.has_value(), ErrorCode::kUnsupported, "_batch_norm_with_update without running statistics");
  ctx.bind(args.tensor_fx("running_mean"), updated->mean);
  ctx.bind(args.tensor_fx("running_var"), updated->var);
  if (uses_output(ctx, 3)) ctx.set_output(3, empty_vector(ctx, DType::kUInt8));
  return RuleResult::kEmitted;
}

// _batch_norm_with_update_functional(...same...) -> (Tensor, Tensor, Tensor, Tensor, Tensor running_mean_out,
//     Tensor running_var_out): the functional form, the new statistics as outputs 4 and 5.
RuleResult aten_batch_norm_with_update_functional(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::optional<RunningStats> updated = emit_batch_norm_value(ctx, args, true);
  PT2ONNX_CHECK(updated.has_value(), ErrorCode::kUnsupported, "_batch_norm_with_update without running statistics");
  if (uses_output(ctx, 3)) ctx.set_output(3, empty_vector(ctx, DType::kUInt8));
  ctx.set_output(4, updated->mean);
  ctx.set_output(5, updated->var);
  return RuleResult::kEmitted;
}

// _batch_norm_no_update(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var,
//     float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor): inference batch norm.
RuleResult aten_batch_norm_no_update(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  emit_batch_norm_value(ctx, args, false);
  if (uses_output(ctx, 3)) ctx.set_output(3, empty_vector(ctx, DType::kUInt8));
  return RuleResult::kEmitted;
}

// _native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean,
//                                      Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)
RuleResult aten_native_batch_norm_legit_no_training(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  emit_batch_norm_value(ctx, args, false);
  return RuleResult::kEmitted;
}

// _native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean,
//     Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor, Tensor)
// Outputs 3 and 4 are the new running statistics (core IR returns them as BUFFER_MUTATION).
RuleResult aten_native_batch_norm_legit_functional(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::optional<RunningStats> updated = emit_batch_norm_value(ctx, args, args.bool_or("training", true));
  ctx.set_output(3, updated ? updated->mean : args.tensor("running_mean"));
  ctx.set_output(4, updated ? updated->var : args.tensor("running_var"));
  return RuleResult::kEmitted;
}

// ---- rms norm ---------------------------------------------------------------------------------

// finfo(dtype).eps, torch's default rms_norm epsilon.
double machine_epsilon(DType type) {
  switch (type) {
    case DType::kFloat16: return 0.0009765625;
    case DType::kBFloat16: return 0.0078125;
    case DType::kFloat64: return 2.220446049250313e-16;
    default: return 1.1920928955078125e-07;
  }
}

// rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor;
// _fused_rms_norm(Tensor input, int[] normalized_shape, Tensor? weight, float? eps) -> (Tensor,
// Tensor), the kernel the default IR keeps, also gives rstd (kept dims, the compute dtype).
RuleResult aten_rms_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("input");
  // torch computes in float32 for the half types, then casts back before the weight.
  const DType compute = (type == DType::kFloat16 || type == DType::kBFloat16) ? DType::kFloat32 : type;
  const std::string x = cast_if_needed(ctx, args.tensor("input"), type, compute);
  const int64_t count = static_cast<int64_t>(args.ints("normalized_shape").size());
  std::vector<int64_t> axes;
  for (int64_t i = -count; i < 0; ++i) axes.push_back(i);
  const double eps = args.has("eps") ? args.get_float("eps") : machine_epsilon(type);
  const std::string mean_square = ctx.reduce("ReduceMean", ctx.emit("Mul", {x, x}), axes, true);
  const std::string rstd = ctx.emit("Reciprocal", {ctx.emit("Sqrt", {ctx.emit("Add", {mean_square, ctx.const_scalar(eps, compute)})})});
  std::string y = cast_if_needed(ctx, ctx.emit("Mul", {x, rstd}), compute, type);
  if (auto weight = args.optional_tensor("weight")) {
    // The weight multiplies with torch's promotion (e.g. bfloat16 input, float32 weight).
    const DType out = result_dtype(args, type);
    y = ctx.emit("Mul", {cast_if_needed(ctx, y, type, out), cast_if_needed(ctx, *weight, args.dtype_of("weight"), out)});
  }
  if (ctx.output_count() > 1 && ctx.output_used(1)) ctx.set_output(1, rstd);
  return emitted(ctx, y);
}

// ---- group norm -------------------------------------------------------------------------------

// Axes 2, 3, ... of a rank-`rank` tensor.
std::vector<int64_t> spatial_axes(int64_t rank) {
  std::vector<int64_t> axes;
  for (int64_t i = 2; i < rank; ++i) axes.push_back(i);
  return axes;
}

// InstanceNormalization of x (float32 [N, C, *], rank >= 3, C static): x standardized per
// (sample, channel) over the other axes, then scaled and shifted per channel by `scale` and `bias`
// ([C]; ones and zeros where absent). nullopt for other types, which onnxruntime's kernel lacks.
std::optional<std::string> instance_normalized(EmitContext& ctx, const std::string& x, DType type, int64_t rank,
                                               std::optional<int64_t> channels, double eps,
                                               std::optional<std::string> scale = std::nullopt,
                                               std::optional<std::string> bias = std::nullopt) {
  if (type != DType::kFloat32 || rank < 3 || !channels) return std::nullopt;
  if (!scale) scale = ctx.const_tensor(filled_tensor(1, DType::kFloat32, {*channels}), "ones");
  if (!bias) bias = ctx.const_tensor(filled_tensor(0, DType::kFloat32, {*channels}), "zeros");
  return ctx.emit("InstanceNormalization", {x, *scale, *bias}, {Attr("epsilon", eps)});
}

// Whether the node's weight and bias, where present, are float32 (InstanceNormalization's scale and
// bias share the input's type).
bool float32_affine(const ArgReader& args) {
  for (const char* name : {"weight", "bias"})
    if (args.optional_tensor(name) && args.dtype_of(name) != DType::kFloat32) return false;
  return true;
}

std::optional<int64_t> static_dim(const ir::TensorMeta& meta, size_t i) {
  if (i >= meta.sizes.size() || !meta.sizes[i].is_static()) return std::nullopt;
  return meta.sizes[i].as_int();
}

// The shape of x with dim 0 copied (0) and the others spelled out, or Shape(x) where one is dynamic.
std::string shape_but_batch(EmitContext& ctx, const std::string& x, const ir::TensorMeta& meta) {
  std::vector<int64_t> dims = {0};
  for (size_t i = 1; i < meta.sizes.size(); ++i) {
    if (!meta.sizes[i].is_static()) return ctx.shape_of(x);
    dims.push_back(meta.sizes[i].as_int());
  }
  return ctx.const_i64s(dims);
}

RuleResult emit_group_norm(EmitContext& ctx, const ArgReader& args, int64_t groups, double eps) {
  const std::string x = args.tensor("input");
  const DType type = args.dtype_of("input");
  const int64_t rank = args.rank_of("input");
  // One group per channel is instance normalization: x as it is, the affine its scale and bias.
  if (!uses_output(ctx, 1) && !uses_output(ctx, 2) && groups > 0 && static_dim(args.meta("input"), 1) == groups &&
      float32_affine(args))
    if (auto y = instance_normalized(ctx, x, type, rank, groups, eps, args.optional_tensor("weight"),
                                     args.optional_tensor("bias")))
      return emitted(ctx, *y);
  // [N, C, *] -> [N, G, C/G * prod(*)], statistics over the last axis.
  // The group size spelled out where the dims are static: with a batch of 0, -1 is ambiguous.
  const ir::TensorMeta& meta = args.meta("input");
  int64_t per_group = groups > 0 ? 1 : -1;
  for (int64_t i = 1; i < rank && per_group > 0; ++i)
    per_group = meta.sizes[i].is_static() ? per_group * meta.sizes[i].as_int() : -1;
  if (per_group > 0) per_group /= groups;
  const std::string grouped = ctx.reshape(x, ctx.const_i64s({0, groups, per_group > 0 ? per_group : -1}));
  const std::string back = shape_but_batch(ctx, x, meta);
  if (!uses_output(ctx, 1) && !uses_output(ctx, 2) && groups > 0 && float32_affine(args))
    if (auto y = instance_normalized(ctx, grouped, type, 3, groups, eps))
      return emitted(ctx, channel_affine(ctx, args, ctx.reshape(*y, back), rank));
  const Moments m = moments(ctx, grouped, std::vector<int64_t>{2});
  const std::string normalized = standardized(ctx, m, eps, type);
  // native_group_norm's outputs 1 and 2: the mean and 1 / sqrt(var + eps) per group, [N, G].
  if (uses_output(ctx, 1)) ctx.set_output(1, cast_if_needed(ctx, ctx.squeeze(m.mean, {2}), type, args.out_dtype(1)));
  if (uses_output(ctx, 2)) {
    const std::string rstd = ctx.emit("Reciprocal", {ctx.emit("Sqrt", {ctx.emit("Add", {m.var, ctx.const_scalar(eps, type)})})});
    ctx.set_output(2, cast_if_needed(ctx, ctx.squeeze(rstd, {2}), type, args.out_dtype(2)));
  }
  return emitted(ctx, channel_affine(ctx, args, ctx.reshape(normalized, back), rank));
}

// instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var,
//               bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor
RuleResult aten_instance_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("input");
  const std::string x = args.tensor("input");
  const DType type = args.dtype_of("input");
  const double eps = args.float_or("eps", 1e-5);
  if (!args.bool_or("use_input_stats", true)) {
    // Running statistics per channel: a plain BatchNormalization.
    PT2ONNX_CHECK(args.has("running_mean") && args.has("running_var"), ErrorCode::kUnsupported,
                  "instance_norm without input statistics nor running statistics");
    emit_batch_norm_value(ctx, args, false);
    return RuleResult::kEmitted;
  }
  if (float32_affine(args))
    if (auto y = instance_normalized(ctx, x, type, rank, static_dim(args.meta("input"), 1), eps,
                                     args.optional_tensor("weight"), args.optional_tensor("bias")))
      return emitted(ctx, *y);
  return emitted(ctx, channel_affine(ctx, args, standardize(ctx, x, spatial_axes(rank), eps, type), rank));
}

// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05,
//            bool cudnn_enabled=True) -> Tensor
RuleResult aten_group_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emit_group_norm(ctx, args, args.get_int("num_groups"), args.float_or("eps", 1e-5));
}

// native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group,
//                   float eps) -> (Tensor, Tensor, Tensor)
RuleResult aten_native_group_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emit_group_norm(ctx, args, args.get_int("group"), args.get_float("eps"));
}

}  // namespace

void register_norm_rules(RuleTable& t) {
  t.add("aten.layer_norm.default", aten_layer_norm);
  t.add("aten.native_layer_norm.default", aten_native_layer_norm);
  t.add("aten.batch_norm.default", aten_batch_norm);
  t.add("aten.native_batch_norm.default", aten_batch_norm);
  t.add("aten._native_batch_norm_legit.default", aten_batch_norm);
  t.add("aten._native_batch_norm_legit.no_stats", aten_batch_norm);
  t.add("aten._native_batch_norm_legit_no_training.default", aten_native_batch_norm_legit_no_training);
  t.add("aten._native_batch_norm_legit_functional.default", aten_native_batch_norm_legit_functional);
  t.add("aten._batch_norm_with_update.default", aten_batch_norm_with_update);
  t.add("aten._batch_norm_with_update_functional.default", aten_batch_norm_with_update_functional);
  t.add("aten._batch_norm_no_update.default", aten_batch_norm_no_update);
  t.add("aten.rms_norm.default", aten_rms_norm);
  t.add("aten._fused_rms_norm.default", aten_rms_norm);
  t.add("aten.instance_norm.default", aten_instance_norm);
  t.add("aten.group_norm.default", aten_group_norm);
  t.add("aten.native_group_norm.default", aten_native_group_norm);
}

}  // namespace pt2onnx::translate
