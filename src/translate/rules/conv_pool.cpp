// Convolution and pooling rules, for 1-d, 2-d and 3-d, and col2im (fold). Unbatched inputs (no N dimension) get one
// added and removed around the ONNX op, which always wants N and C.
#include <algorithm>
#include <optional>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/typed_emit.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// An int[N] argument spread to `spatial` values (torch lets one int stand for all).
std::vector<int64_t> spatial_ints(const ArgReader& args, const std::string& name, size_t spatial, int64_t fallback) {
  std::vector<int64_t> v = args.has(name) ? args.ints(name) : std::vector<int64_t>{};
  if (v.empty()) v.assign(spatial, fallback);
  if (v.size() == 1 && spatial > 1) v.assign(spatial, v.front());
  PT2ONNX_CHECK(v.size() == spatial, ErrorCode::kUnsupported,
                "argument '" + name + "' has " + std::to_string(v.size()) + " values for " + std::to_string(spatial) +
                    " spatial dims");
  return v;
}

// ONNX pads: all begins, then all ends (torch pads both sides alike).
std::vector<int64_t> symmetric_pads(const std::vector<int64_t>& padding) {
  std::vector<int64_t> pads = padding;
  pads.insert(pads.end(), padding.begin(), padding.end());
  return pads;
}

// Adds the batch dim to an unbatched input; `finish` removes it again.
struct BatchGuard {
  bool unbatched = false;
  std::string add(EmitContext& ctx, const std::string& x) { return unbatched ? ctx.unsqueeze(x, {0}) : x; }
  std::string finish(EmitContext& ctx, const std::string& y) { return unbatched ? ctx.squeeze(y, {0}) : y; }
};

// ---- convolution ------------------------------------------------------------------------------

struct ConvParams {
  std::vector<int64_t> stride, padding, dilation, output_padding;
  int64_t groups = 1;
  bool transposed = false;
  std::string padding_mode;  // "same"/"valid" for the conv*.padding overloads
};

// A transposed convolution whose output_padding reaches its stride (torch allows it up to the
// dilation; onnxruntime refuses it). output_padding only adds rows at the end of each dim: the
// end padding shrinks by it, and what it cannot absorb is zeros appended to the result before
// the bias is added.
RuleResult emit_wide_output_padding(EmitContext& ctx, const ConvParams& p, std::vector<std::string> inputs, BatchGuard batch) {
  const size_t spatial = p.padding.size();
  std::vector<int64_t> pads = p.padding;                    // ONNX pads: begins, then ends
  std::vector<int64_t> appended(2 * (spatial + 2), 0);      // Pad's list over N, C and the spatial dims
  bool any_appended = false;
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t end = p.padding[i] - p.output_padding[i];
    pads.push_back(std::max<int64_t>(end, 0));
    appended[spatial + 2 + 2 + i] = std::max<int64_t>(-end, 0);
    any_appended |= end < 0;
  }
  const std::vector<Attr> attrs = {Attr("strides", p.stride), Attr("dilations", p.dilation), Attr("group", p.groups),
                                   Attr("pads", pads)};
  const std::optional<std::string> bias = inputs.size() > 2 ? std::optional<std::string>(inputs[2]) : std::nullopt;
  inputs.resize(2);
  std::string y = ctx.emit("ConvTranspose", inputs, attrs);
  if (any_appended) y = ctx.emit("Pad", {y, ctx.const_i64s(appended)});
  if (bias) {
    std::vector<int64_t> bias_shape(spatial + 1, 1);
    bias_shape[0] = -1;
    y = ctx.emit("Add", {y, ctx.reshape(*bias, ctx.const_i64s(bias_shape))});
  }
  return emitted(ctx, batch.finish(ctx, y));
}

RuleResult emit_convolution(EmitContext& ctx, const ArgReader& args, const ConvParams& p) {
  require_takes(ctx, p.transposed ? "ConvTranspose" : "Conv", args.dtype_of("input"));
  const int64_t weight_rank = args.rank_of("weight");
  const size_t spatial = static_cast<size_t>(weight_rank - 2);
  BatchGuard batch{args.rank_of("input") == weight_rank - 1};
  std::vector<std::string> inputs = {batch.add(ctx, args.tensor("input")), args.tensor("weight")};
  if (auto bias = args.optional_tensor("bias")) inputs.push_back(*bias);

  std::vector<int64_t> padding = p.padding;
  if (p.padding_mode == "valid") padding.assign(spatial, 0);
  std::vector<Attr> attrs = {Attr("strides", p.stride), Attr("dilations", p.dilation), Attr("group", p.groups)};
  if (p.padding_mode == "same") {
    // torch pads dilation*(k-1) in total, the extra one at the end, like SAME_UPPER.
    const ir::TensorMeta& w = args.meta("weight");
    std::vector<int64_t> begin, end;
    for (size_t i = 0; i < spatial; ++i) {
      PT2ONNX_CHECK(w.sizes[i + 2].is_static(), ErrorCode::kUnsupported, "padding='same' with a symbolic kernel size");
      const int64_t total = p.dilation[i] * (w.sizes[i + 2].as_int() - 1);
      begin.push_back(total / 2);
      end.push_back(total - total / 2);
    }
    begin.insert(begin.end(), end.begin(), end.end());
    attrs.emplace_back("pads", begin);
  } else {
    attrs.emplace_back("pads", symmetric_pads(padding));
  }
  if (p.transposed) {
    bool padding_over_stride = false;
    for (size_t i = 0; i < p.output_padding.size(); ++i) padding_over_stride |= p.output_padding[i] >= p.stride[i];
    if (padding_over_stride && p.padding_mode.empty()) return emit_wide_output_padding(ctx, p, inputs, batch);
    if (!p.output_padding.empty() && p.output_padding != std::vector<int64_t>(spatial, 0))
      attrs.emplace_back("output_padding", p.output_padding);
    return emitted(ctx, batch.finish(ctx, ctx.emit("ConvTranspose", inputs, attrs)));
  }
  return emitted(ctx, batch.finish(ctx, ctx.emit("Conv", inputs, attrs)));
}

// convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding,
//             SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor
RuleResult aten_convolution(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const size_t spatial = static_cast<size_t>(args.rank_of("weight") - 2);
  ConvParams p;
  p.stride = spatial_ints(args, "stride", spatial, 1);
  p.padding = spatial_ints(args, "padding", spatial, 0);
  p.dilation = spatial_ints(args, "dilation", spatial, 1);
  p.transposed = args.bool_or("transposed", false);
  p.output_padding = spatial_ints(args, "output_padding", spatial, 0);
  p.groups = args.int_or("groups", 1);
  return emit_convolution(ctx, args, p);
}

// conv1d/conv2d/conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[N] stride=1,
//                      SymInt[N] padding=0, SymInt[N] dilation=1, SymInt groups=1) -> Tensor;
// also the .padding overloads, where padding is "same" or "valid"
RuleResult aten_conv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const size_t spatial = static_cast<size_t>(args.rank_of("weight") - 2);
  ConvParams p;
  p.stride = spatial_ints(args, "stride", spatial, 1);
  p.dilation = spatial_ints(args, "dilation", spatial, 1);
  if (args.has("padding") && std::holds_alternative<std::string>(args.arg("padding"))) {
    p.padding_mode = args.string_or("padding", "valid");
    PT2ONNX_CHECK(p.padding_mode == "same" || p.padding_mode == "valid", ErrorCode::kUnsupported,
                  "padding='" + p.padding_mode + "'");
    p.padding.assign(spatial, 0);
  } else {
    p.padding = spatial_ints(args, "padding", spatial, 0);
  }
  p.groups = args.int_or("groups", 1);
  return emit_convolution(ctx, args, p);
}

// conv_transpose1d/2d/3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[N] stride=1,
//                        SymInt[N] padding=0, SymInt[N] output_padding=0, SymInt groups=1, SymInt[N] dilation=1)
RuleResult aten_conv_transpose(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const size_t spatial = static_cast<size_t>(args.rank_of("weight") - 2);
  ConvParams p;
  p.stride = spatial_ints(args, "stride", spatial, 1);
  p.padding = spatial_ints(args, "padding", spatial, 0);
  p.output_padding = spatial_ints(args, "output_padding", spatial, 0);
  p.dilation = spatial_ints(args, "dilation", spatial, 1);
  p.groups = args.int_or("groups", 1);
  p.transposed = true;
  return emit_convolution(ctx, args, p);
}

// ---- pooling ----------------------------------------------------------------------------------

// ONNX ceil_mode and pads that give torch's pooled sizes. torch drops a last window that would
// start in the end padding, ONNX does not: with static sizes, use ceil_mode only where it agrees
// with torch in every dim, else floor mode with end pads just large enough for torch's windows.
struct PoolWindows {
  std::vector<int64_t> pads;
  int64_t ceil_mode = 0;
};

// `floor_only`: always floor mode (explicit end pads where torch's windows need them), so that
// every window lies inside the padded input; refused for symbolic sizes in ceil mode.
PoolWindows pool_windows(const ir::TensorMeta& meta, size_t spatial, const std::vector<int64_t>& kernel,
                         const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                         const std::vector<int64_t>& dilation, bool ceil_mode, bool floor_only = false) {
  PoolWindows w{symmetric_pads(padding), ceil_mode ? 1 : 0};
  if (!ceil_mode) return w;
  const size_t first = meta.sizes.size() - spatial;
  std::vector<int64_t> torch_out, floor_out, ceil_out;
  for (size_t i = 0; i < spatial; ++i) {
    PT2ONNX_CHECK(!floor_only || meta.sizes[first + i].is_static(), ErrorCode::kUnsupported,
                  "pooling in ceil mode over a symbolic size with divisor_override");
    if (!meta.sizes[first + i].is_static()) return w;  // symbolic: trust ONNX's ceil mode
    const int64_t in = meta.sizes[first + i].as_int();
    const int64_t span = in + 2 * padding[i] - (dilation[i] * (kernel[i] - 1) + 1);
    const int64_t floor_size = span / stride[i] + 1;
    const int64_t ceil_size = (span + stride[i] - 1) / stride[i] + 1;
    const int64_t torch_size = (ceil_size - 1) * stride[i] >= in + padding[i] ? ceil_size - 1 : ceil_size;
    torch_out.push_back(torch_size);
    floor_out.push_back(floor_size);
    ceil_out.push_back(ceil_size);
  }
  if (torch_out == floor_out) return PoolWindows{symmetric_pads(padding), 0};
  if (torch_out == ceil_out && !floor_only) return w;
  PoolWindows explicit_pads{symmetric_pads(padding), 0};
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t in = meta.sizes[first + i].as_int();
    const int64_t needed = (torch_out[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 - in - padding[i];
    explicit_pads.pads[spatial + i] = std::max(padding[i], needed);
  }
  return explicit_pads;
}

// Spatial rank of a pooling node: from kernel_size, else from the target name ("max_pool2d").
size_t pool_spatial(const ir::Node& node) {
  for (char c : {'1', '2', '3'})
    if (node.target.find(std::string(1, c) + "d") != std::string::npos) return static_cast<size_t>(c - '0');
  fail(ErrorCode::kInternal, "cannot tell the spatial rank of " + node.target);
}

// max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1,
//            bool ceil_mode=False) -> Tensor; also max_pool{1,3}d and the _with_indices forms
RuleResult aten_max_pool(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const size_t spatial = pool_spatial(node);
  const std::vector<int64_t> kernel = spatial_ints(args, "kernel_size", spatial, 1);
  std::vector<int64_t> stride = args.has("stride") ? args.ints("stride") : std::vector<int64_t>{};
  stride = stride.empty() ? kernel : spatial_ints(args, "stride", spatial, 1);
  const std::vector<int64_t> padding = spatial_ints(args, "padding", spatial, 0);
  const std::vector<int64_t> dilation = spatial_ints(args, "dilation", spatial, 1);
  BatchGuard batch{args.rank_of("self") == static_cast<int64_t>(spatial) + 1};
  const PoolWindows w = pool_windows(args.meta("self"), spatial, kernel, stride, padding, dilation, args.bool_or("ceil_mode", false));
  const std::vector<Attr> attrs = {Attr("kernel_shape", kernel), Attr("strides", stride), Attr("pads", w.pads),
                                   Attr("dilations", dilation), Attr("ceil_mode", w.ceil_mode)};
  require_takes(ctx, "MaxPool", args.dtype_of("self"));
  const std::string x = batch.add(ctx, args.tensor("self"));
  if (!ctx.output_used(1)) return emitted(ctx, batch.finish(ctx, ctx.emit("MaxPool", {x}, attrs)));
  // ONNX numbers the indices over the whole [N, C, spatial...] tensor, torch within each plane:
  // the remainder by the plane's size is torch's index.
  const std::vector<std::string> outs = ctx.emit("MaxPool", {x}, attrs, 2);
  const std::string plane = ctx.reduce("ReduceProd", ctx.shape_slice(x, 2, 2 + static_cast<int64_t>(spatial)),
                                       std::vector<int64_t>{0}, false);
  ctx.set_output(0, batch.finish(ctx, outs[0]));
  ctx.set_output(1, batch.finish(ctx, ctx.emit("Mod", {outs[1], plane})));
  return RuleResult::kEmitted;
}

// avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False,
//            bool count_include_pad=True, int? divisor_override=None) -> Tensor; also 1d/3d
// With divisor_override each window's sum (padding adds zeros) is divided by the divisor instead:
// in floor mode with end pads for torch's windows every window lies inside the padded input, so
// AveragePool counting the padding divides by the kernel's volume, and times that it is the sum.
RuleResult aten_avg_pool(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::optional<int64_t> divisor = args.optional_int("divisor_override");
  PT2ONNX_CHECK(divisor != 0, ErrorCode::kUnsupported, "avg_pool with divisor_override 0");
  const size_t spatial = pool_spatial(node);
  const std::vector<int64_t> kernel = spatial_ints(args, "kernel_size", spatial, 1);
  std::vector<int64_t> stride = args.has("stride") ? args.ints("stride") : std::vector<int64_t>{};
  stride = stride.empty() ? kernel : spatial_ints(args, "stride", spatial, 1);
  const std::vector<int64_t> padding = spatial_ints(args, "padding", spatial, 0);
  BatchGuard batch{args.rank_of("self") == static_cast<int64_t>(spatial) + 1};
  const PoolWindows w = pool_windows(args.meta("self"), spatial, kernel, stride, padding, std::vector<int64_t>(spatial, 1),
                                     args.bool_or("ceil_mode", false), divisor.has_value());
  const bool count_pad = divisor.has_value() || args.bool_or("count_include_pad", true);
  require_takes(ctx, "AveragePool", args.dtype_of("self"));
  std::string y = ctx.emit("AveragePool", {batch.add(ctx, args.tensor("self"))},
                           {Attr("kernel_shape", kernel), Attr("strides", stride), Attr("pads", w.pads),
                            Attr("ceil_mode", w.ceil_mode), Attr("count_include_pad", count_pad ? 1 : 0)});
  if (divisor) {
    int64_t volume = 1;
    for (int64_t k : kernel) volume *= k;
    const double factor = static_cast<double>(volume) / static_cast<double>(*divisor);
    y = ctx.emit("Mul", {y, ctx.const_scalar(factor, args.dtype_of("self"))});
  }
  return emitted(ctx, batch.finish(ctx, y));
}

// Adaptive average pooling of static spatial sizes that the output sizes do not divide: window o
// of an axis of size I pooled to O spans [floor(o*I/O), ceil((o+1)*I/O)), so the pooling is, per
// axis, a product with an [I, O] matrix of 1/window-length entries.
std::string adaptive_average_by_matmul(EmitContext& ctx, std::string x, DType type, const std::vector<int64_t>& in,
                                       const std::vector<int64_t>& out, int64_t rank) {
  const int64_t spatial = static_cast<int64_t>(in.size());
  for (int64_t i = 0; i < spatial; ++i) {
    onnx::TensorProto weights;
    weights.set_data_type(onnx::TensorProto_DataType_FLOAT);
    weights.add_dims(in[i]);
    weights.add_dims(out[i]);
    std::vector<float> w(static_cast<size_t>(in[i] * out[i]), 0.0f);
    for (int64_t o = 0; o < out[i]; ++o) {
      const int64_t start = o * in[i] / out[i], end = ((o + 1) * in[i] + out[i] - 1) / out[i];
      for (int64_t j = start; j < end; ++j) w[static_cast<size_t>(j * out[i] + o)] = 1.0f / static_cast<float>(end - start);
    }
    for (float v : w) weights.add_float_data(v);
    const std::string matrix = cast_if_needed(ctx, ctx.const_tensor(weights, "adaptive_pool_weights"), DType::kFloat32, type);
    const int64_t axis = rank - spatial + i;
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d) perm.push_back(d);
    std::swap(perm[static_cast<size_t>(axis)], perm.back());
    const bool last = axis == rank - 1;
    if (!last) x = ctx.transpose(x, perm);
    x = ctx.emit("MatMul", {x, matrix});
    if (!last) x = ctx.transpose(x, perm);  // a swap is its own inverse
  }
  return x;
}

// adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor; also 1d/3d and _adaptive_avg_pool2d.
// Output 1 everywhere is a global average; sizes that divide static inputs an AveragePool; other
// static sizes a product with averaging matrices.
RuleResult aten_adaptive_avg_pool(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const size_t spatial = pool_spatial(node);
  const std::vector<int64_t> output = spatial_ints(args, "output_size", spatial, 1);
  const ir::TensorMeta& meta = args.meta("self");
  const int64_t rank = static_cast<int64_t>(meta.sizes.size());
  BatchGuard batch{rank == static_cast<int64_t>(spatial) + 1};
  require_takes(ctx, "AveragePool", args.dtype_of("self"));
  const std::string x = batch.add(ctx, args.tensor("self"));
  if (output == std::vector<int64_t>(spatial, 1)) return emitted(ctx, batch.finish(ctx, ctx.emit("GlobalAveragePool", {x})));

  std::vector<int64_t> kernel, in;
  bool divides = true;
  for (size_t i = 0; i < spatial; ++i) {
    const ir::Dim& d = meta.sizes[rank - static_cast<int64_t>(spatial) + static_cast<int64_t>(i)];
    PT2ONNX_CHECK(d.is_static() && output[i] > 0, ErrorCode::kUnsupported,
                  "adaptive average pooling of a symbolic spatial size (to an output size other than 1)");
    in.push_back(d.as_int());
    divides = divides && d.as_int() % output[i] == 0;
    kernel.push_back(d.as_int() / output[i]);
  }
  if (!divides) {
    const DType type = args.dtype_of("self");
    PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "adaptive average pooling of a non-float tensor");
    const int64_t batched_rank = static_cast<int64_t>(spatial) + 2;
    return emitted(ctx, batch.finish(ctx, adaptive_average_by_matmul(ctx, x, type, in, output, batched_rank)));
  }
  const std::string y = ctx.emit("AveragePool", {x}, {Attr("kernel_shape", kernel), Attr("strides", kernel)});
  return emitted(ctx, batch.finish(ctx, y));
}

// col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding,
// int[2] stride) -> Tensor (F.fold): ONNX Col2Im, opset 18. Unbatched [C*kh*kw, L] input gets N.
RuleResult aten_col2im(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const bool unbatched = args.rank_of("self") == 2;
  std::string x = args.tensor("self");
  if (unbatched) x = ctx.unsqueeze(x, {0});
  const std::vector<Attr> attrs = {Attr("dilations", spatial_ints(args, "dilation", 2, 1)),
                                   Attr("pads", symmetric_pads(spatial_ints(args, "padding", 2, 0))),
                                   Attr("strides", spatial_ints(args, "stride", 2, 1))};
  const std::string image = args.ints_value("output_size");
  const std::string block = ctx.const_i64s(spatial_ints(args, "kernel_size", 2, 1));
  const std::string y = ctx.emit("Col2Im", {x, image, block}, attrs);
  return emitted(ctx, unbatched ? ctx.squeeze(y, {0}) : y);
}

// fractional_max_pool2d's window starts along one axis, [N, C, out] int64, as torch's
// generate_intervals computes them in the input's float type from the sample u of each plane:
// int((i + u) * alpha) - int(u * alpha) (int() truncating) with alpha = (in - pool) / (out - 1), the last at in - pool.
std::string fractional_starts(EmitContext& ctx, const std::string& u, int64_t in, int64_t out, int64_t pool, DType type) {
  const std::string last = ctx.const_i64s({in - pool});
  const std::string planes = ctx.shape_of(u);  // [N, C]
  if (out == 1) return ctx.emit("Expand", {last, ctx.concat({planes, ctx.const_i64s({1})}, 0)});
  const float alpha = static_cast<float>(in - pool) / static_cast<float>(out - 1);
  const std::string a = ctx.const_scalar(alpha, type), sample = ctx.unsqueeze(u, {-1});
  const std::string index = ctx.cast(ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(out - 1), ctx.const_i64(1)}), type);
  // C++'s int() truncates toward zero: samples outside [0, 1) (which torch does not check) give
  // negative products, where Floor would differ.
  const std::string scaled = trunc_values(ctx, ctx.emit("Mul", {ctx.emit("Add", {index, sample}), a}));
  const std::string offset = trunc_values(ctx, ctx.emit("Mul", {sample, a}));
  const std::string starts = ctx.cast(ctx.emit("Sub", {scaled, offset}), DType::kInt64);
  return ctx.concat({starts, ctx.emit("Expand", {last, ctx.concat({planes, ctx.const_i64s({1})}, 0)})}, -1);
}

// fractional_max_pool2d(Tensor self, int[2] kernel_size, int[2] output_size, Tensor random_samples)
// -> (Tensor, Tensor indices), and fractional_max_pool3d (int[3] sizes): windows placed from the given
// samples ([N, C, dims]: torch reads width's then height's in 2-D, time's, height's, width's in 3-D),
// so deterministic; each window gathered axis by axis (GatherElements), its max and first argmax in
// row-major order, the index numbered over the flattened spatial dims as torch numbers it.
RuleResult fractional_max_pool(EmitContext& ctx, const ir::Node& node, int64_t dims) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank == dims + 1 || rank == dims + 2, ErrorCode::kUnsupported,
                node.target + " of a rank-" + std::to_string(rank) + " input");
  const ir::TensorMeta& meta = args.meta("self");
  std::vector<int64_t> in(static_cast<size_t>(dims));
  for (int64_t a = 0; a < dims; ++a) {
    const ir::Dim& d = meta.sizes[static_cast<size_t>(rank - dims + a)];
    PT2ONNX_CHECK(d.is_static(), ErrorCode::kUnsupported, node.target + " of a symbolic spatial size");
    in[static_cast<size_t>(a)] = d.as_int();
  }
  const std::vector<int64_t> kernel = args.ints("kernel_size"), out = args.ints("output_size");
  PT2ONNX_CHECK(static_cast<int64_t>(kernel.size()) == dims && static_cast<int64_t>(out.size()) == dims, ErrorCode::kUnsupported,
                node.target + " with sizes not one per spatial dim");
  const DType type = args.dtype_of("self");
  const bool unbatched = rank == dims + 1;
  std::string x = args.tensor("self");
  if (unbatched) x = ctx.unsqueeze(x, {0});
  const std::string samples = cast_if_needed(ctx, args.tensor("random_samples"), args.dtype_of("random_samples"), type);
  std::vector<std::string> starts;  // per spatial axis, [N, C, out]
  for (int64_t a = 0; a < dims; ++a) {
    const int64_t sample = dims == 2 ? 1 - a : a;
    const std::string u = ctx.emit("Gather", {samples, ctx.const_i64(sample)}, {Attr("axis", int64_t{2})});
    starts.push_back(fractional_starts(ctx, u, in[static_cast<size_t>(a)], out[static_cast<size_t>(a)], kernel[static_cast<size_t>(a)], type));
  }
  // Gather each axis's windows: axis 2 + a becomes out * kernel long.
  std::string windows = x;
  for (int64_t a = 0; a < dims; ++a) {
    const size_t i = static_cast<size_t>(a);
    const std::string offsets = ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(kernel[i]), ctx.const_i64(1)});
    std::string index = ctx.reshape(ctx.emit("Add", {ctx.unsqueeze(starts[i], {-1}), offsets}), ctx.const_i64s({0, 0, -1}));
    std::vector<int64_t> others;  // the window's length goes to axis 2 + a
    for (int64_t b = 0; b < dims; ++b)
      if (b != a) others.push_back(2 + b);
    index = ctx.unsqueeze(index, others);
    const std::string shape = ctx.concat({ctx.shape_slice(windows, 0, 2 + a), ctx.const_i64s({out[i] * kernel[i]}),
                                          ctx.shape_slice(windows, 3 + a, INT64_MAX)}, 0);
    windows = ctx.emit("GatherElements", {windows, ctx.emit("Expand", {index, shape})}, {Attr("axis", 2 + a)});
  }
  std::vector<int64_t> split = {0, 0}, perm = {0, 1}, merged = {0, 0};
  int64_t window_size = 1;
  for (int64_t a = 0; a < dims; ++a) {
    split.push_back(out[static_cast<size_t>(a)]);
    split.push_back(kernel[static_cast<size_t>(a)]);
    perm.push_back(2 + 2 * a);
    merged.push_back(out[static_cast<size_t>(a)]);
    window_size *= kernel[static_cast<size_t>(a)];
  }
  for (int64_t a = 0; a < dims; ++a) perm.push_back(3 + 2 * a);
  merged.push_back(window_size);
  windows = ctx.reshape(ctx.transpose(ctx.reshape(windows, ctx.const_i64s(split)), perm), ctx.const_i64s(merged));
  std::string values = ctx.reduce("ReduceMax", windows, std::vector<int64_t>{-1}, false);
  if (unbatched) values = ctx.squeeze(values, {0});
  if (ctx.output_count() > 1 && ctx.output_used(1)) {
    const std::string k = ctx.emit("ArgMax", {windows}, {Attr("axis", int64_t{-1}), Attr("keepdims", int64_t{0})});
    std::string index;
    int64_t inner_kernel = window_size, stride = 1;
    for (int64_t a = 0; a < dims; ++a) stride *= in[static_cast<size_t>(a)];
    for (int64_t a = 0; a < dims; ++a) {
      const size_t i = static_cast<size_t>(a);
      inner_kernel /= kernel[i];
      stride /= in[i];
      const std::string offset = ctx.emit("Mod", {ctx.emit("Div", {k, ctx.const_i64(inner_kernel)}), ctx.const_i64(kernel[i])});
      std::vector<int64_t> others;
      for (int64_t b = 0; b < dims; ++b)
        if (b != a) others.push_back(2 + b);
      const std::string position = ctx.emit("Add", {others.empty() ? starts[i] : ctx.unsqueeze(starts[i], others), offset});
      const std::string term = ctx.emit("Mul", {position, ctx.const_i64(stride)});
      index = index.empty() ? term : ctx.emit("Add", {index, term});
    }
    if (unbatched) index = ctx.squeeze(index, {0});
    ctx.set_output(1, index);
  }
  return emitted(ctx, values);
}
RuleResult aten_fractional_max_pool2d(EmitContext& ctx, const ir::Node& node) { return fractional_max_pool(ctx, node, 2); }
RuleResult aten_fractional_max_pool3d(EmitContext& ctx, const ir::Node& node) { return fractional_max_pool(ctx, node, 3); }

}  // namespace

void register_conv_pool_rules(RuleTable& t) {
  t.add("aten.fractional_max_pool2d.default", aten_fractional_max_pool2d);
  t.add("aten.fractional_max_pool3d.default", aten_fractional_max_pool3d);
  t.add("aten.convolution.default", aten_convolution);
  t.add("aten._convolution.default", aten_convolution);
  t.add("aten.conv1d.default", aten_conv);
  t.add("aten.conv2d.default", aten_conv);
  t.add("aten.conv3d.default", aten_conv);
  t.add("aten.conv1d.padding", aten_conv);
  t.add("aten.conv2d.padding", aten_conv);
  t.add("aten.conv3d.padding", aten_conv);
  t.add("aten.conv_transpose1d.default", aten_conv_transpose);
  t.add("aten.conv_transpose2d.input", aten_conv_transpose);
  t.add("aten.conv_transpose3d.input", aten_conv_transpose);

  t.add("aten.max_pool1d.default", aten_max_pool);
  t.add("aten.max_pool2d.default", aten_max_pool);
  t.add("aten.max_pool3d.default", aten_max_pool);
  t.add("aten.max_pool1d_with_indices.default", aten_max_pool);
  t.add("aten.max_pool2d_with_indices.default", aten_max_pool);
  t.add("aten.max_pool3d_with_indices.default", aten_max_pool);
  t.add("aten.avg_pool1d.default", aten_avg_pool);
  t.add("aten.avg_pool2d.default", aten_avg_pool);
  t.add("aten.avg_pool3d.default", aten_avg_pool);
  t.add("aten.adaptive_avg_pool1d.default", aten_adaptive_avg_pool);
  t.add("aten.adaptive_avg_pool2d.default", aten_adaptive_avg_pool);
  t.add("aten.adaptive_avg_pool3d.default", aten_adaptive_avg_pool);
  t.add("aten._adaptive_avg_pool2d.default", aten_adaptive_avg_pool);
  t.add("aten._adaptive_avg_pool3d.default", aten_adaptive_avg_pool);
  t.add_since(18, "aten.col2im.default", aten_col2im);
}

}  // namespace pt2onnx::translate
