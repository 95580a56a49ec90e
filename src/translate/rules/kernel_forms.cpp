// Ops torch registers as kernels of their own, which a program reaches by calling them directly
// (torch._C._nn, torch.ops.aten) or through older APIs: range (end inclusive), conv_tbc, _convolution_mode (string padding), _trilinear (bilinear's kernel),
// _compute_linear_combination, the single-step RNN cells, rrelu, and the norm kernels
// frobenius_norm, linalg__powsum and norm_except_dim (weight_norm's).
#include "translate/rules/register_all.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/arg_reader.h"
#include "translate/onnx_types.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {
namespace {

using ir::DType;

// range(Scalar start, Scalar end, *, ScalarType? dtype=None, ...) and .step(.., Scalar step=1, ..):
// torch.range, end included: trunc((end - start) / step) + 1 values start + i step, computed in
// float64 and cast to the dtype (default float32).
RuleResult aten_range(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const double start = args.scalar_number("start"), end = args.scalar_number("end");
  const double step = args.has("step") ? args.scalar_number("step") : 1.0;
  PT2ONNX_CHECK(step != 0 && std::isfinite(start) && std::isfinite(end), ErrorCode::kUnsupported, "range with a zero step or an infinite bound");
  const double span = (end - start) / step;
  PT2ONNX_CHECK(span >= 0, ErrorCode::kUnsupported, "range whose step does not lead from start to end");
  const int64_t count = static_cast<int64_t>(span) + 1;
  const DType f = DType::kFloat64;
  const std::string index = ctx.emit("Range", {ctx.const_scalar(0, f), ctx.const_scalar(static_cast<double>(count), f), ctx.const_scalar(1, f)});
  const std::string values = ctx.emit("Add", {ctx.const_scalar(start, f), ctx.emit("Mul", {index, ctx.const_scalar(step, f)})});
  return emitted(ctx, cast_if_needed(ctx, values, f, args.dtype("dtype").value_or(DType::kFloat32)));
}

// conv_tbc(Tensor self, Tensor weight, Tensor bias, int pad=0) -> Tensor: a 1-D convolution of a
// [time, batch, channels] input with a [kernel, in, out] weight, time padded by pad both sides.
RuleResult aten_conv_tbc(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t pad = args.int_or("pad", 0);
  const std::string x = ctx.transpose(args.tensor("self"), {1, 2, 0});
  const std::string w = ctx.transpose(args.tensor("weight"), {2, 1, 0});
  const std::string y = ctx.emit("Conv", {x, w, args.tensor("bias")}, {Attr("pads", std::vector<int64_t>{pad, pad})});
  return emitted(ctx, ctx.transpose(y, {2, 0, 1}));
}

// _convolution_mode(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, str padding,
// SymInt[] dilation, SymInt groups) -> Tensor: padding "valid" (none) or "same" (dilation (k - 1)
// per dim, the odd one on the end side, as torch pads), for a weight of static spatial size.
RuleResult aten_convolution_mode(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string padding = args.string_or("padding", "valid");
  PT2ONNX_CHECK(padding == "valid" || padding == "same", ErrorCode::kUnsupported, "convolution with padding '" + padding + "'");
  const ir::TensorMeta& weight = args.meta("weight");
  const size_t spatial = weight.sizes.size() - 2;
  std::vector<int64_t> strides = args.ints("stride"), dilations = args.ints("dilation");
  if (strides.size() == 1) strides.assign(spatial, strides[0]);
  if (dilations.size() == 1) dilations.assign(spatial, dilations[0]);
  std::vector<int64_t> pads(2 * spatial, 0);
  if (padding == "same") {
    for (size_t d = 0; d < spatial; ++d) {
      const ir::Dim& k = weight.sizes[d + 2];
      PT2ONNX_CHECK(k.is_static(), ErrorCode::kUnsupported, "'same' convolution with a symbolic kernel size");
      const int64_t total = dilations[d] * (k.as_int() - 1);
      pads[d] = total / 2;
      pads[d + spatial] = total - total / 2;
    }
  }
  std::vector<std::string> inputs = {args.tensor("input"), args.tensor("weight")};
  if (auto bias = args.optional_tensor("bias")) inputs.push_back(*bias);
  return emitted(ctx, ctx.emit("Conv", inputs, {Attr("strides", strides), Attr("dilations", dilations), Attr("pads", pads),
                                                 Attr("group", args.get_int("groups"))}));
}

// _trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] expand3, int[] sumdim,
// int unroll_dim=1) -> Tensor: the three operands unsqueezed at their expand dims, multiplied, and
// summed over sumdim (unroll_dim only picks torch's loop order).
RuleResult aten_trilinear(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  auto expanded = [&](const char* name, const char* dims) {
    std::vector<int64_t> axes = args.ints(dims);
    std::sort(axes.begin(), axes.end());
    return axes.empty() ? args.tensor(name) : ctx.unsqueeze(args.tensor(name), axes);
  };
  const std::string product = ctx.emit("Mul", {ctx.emit("Mul", {expanded("i1", "expand1"), expanded("i2", "expand2")}), expanded("i3", "expand3")});
  const std::vector<int64_t> sum = args.ints("sumdim");
  return emitted(ctx, sum.empty() ? product : ctx.reduce("ReduceSum", product, sum, false));
}

// _compute_linear_combination(Tensor input, Tensor coefficients) -> Tensor: out[i] = sum_j
// coefficients[i, j] input[j], over input's leading dim.
RuleResult aten_compute_linear_combination(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string input = args.tensor("input");
  const std::string flat = ctx.reshape(input, ctx.concat({ctx.shape_slice(input, 0, 1), ctx.const_i64s({-1})}, 0));
  PT2ONNX_CHECK(args.rank_of("coefficients") == 2, ErrorCode::kUnsupported, "_compute_linear_combination with coefficients that are not 2-D");
  const std::string coefficients = args.tensor("coefficients");
  const std::string mixed = ctx.emit("MatMul", {coefficients, flat});
  return emitted(ctx, ctx.reshape(mixed, ctx.concat({ctx.shape_slice(coefficients, 0, 1), ctx.shape_slice(input, 1, INT64_MAX)}, 0)));
}

// x W^T (+ b) for a cell's input or hidden state.
std::string gates(EmitContext& ctx, const ArgReader& args, const std::string& x, const char* weight, const char* bias) {
  std::string g = ctx.emit("MatMul", {x, ctx.transpose(args.tensor(weight), {1, 0})});
  if (auto b = args.optional_tensor(bias)) g = ctx.emit("Add", {g, *b});
  return g;
}

// The k-th of n equal chunks of the last dim.
std::string chunk(EmitContext& ctx, const std::string& x, int64_t k, int64_t size) {
  return ctx.emit("Slice", {x, ctx.const_i64s({k * size}), ctx.const_i64s({(k + 1) * size}), ctx.const_i64s({-1})});
}

int64_t hidden_size(const ArgReader& args) {
  const ir::Dim& h = args.meta("w_hh").sizes.back();
  PT2ONNX_CHECK(h.is_static(), ErrorCode::kUnsupported, "an RNN cell of symbolic hidden size");
  return h.as_int();
}

// rnn_tanh_cell / rnn_relu_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None,
// Tensor? b_hh=None) -> Tensor: act(x W_ih^T + b_ih + h W_hh^T + b_hh).
RuleResult simple_cell(EmitContext& ctx, const ir::Node& node, const char* activation) {
  ArgReader args(ctx, node);
  const std::string sum = ctx.emit("Add", {gates(ctx, args, args.tensor("input"), "w_ih", "b_ih"), gates(ctx, args, args.tensor("hx"), "w_hh", "b_hh")});
  return emitted(ctx, ctx.emit(activation, {sum}));
}
RuleResult aten_rnn_tanh_cell(EmitContext& ctx, const ir::Node& node) { return simple_cell(ctx, node, "Tanh"); }
RuleResult aten_rnn_relu_cell(EmitContext& ctx, const ir::Node& node) { return simple_cell(ctx, node, "Relu"); }

// lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None)
// -> (Tensor, Tensor): gates i, f, g, o in torch's order; c' = f c + i g, h' = o tanh(c').
RuleResult aten_lstm_cell(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<std::string> hx = args.tensors("hx");
  PT2ONNX_CHECK(hx.size() == 2, ErrorCode::kUnsupported, "lstm_cell with hx of other than (h, c)");
  const int64_t h = hidden_size(args);
  const std::string all = ctx.emit("Add", {gates(ctx, args, args.tensor("input"), "w_ih", "b_ih"), gates(ctx, args, hx[0], "w_hh", "b_hh")});
  const std::string i = ctx.emit("Sigmoid", {chunk(ctx, all, 0, h)}), f = ctx.emit("Sigmoid", {chunk(ctx, all, 1, h)});
  const std::string g = ctx.emit("Tanh", {chunk(ctx, all, 2, h)}), o = ctx.emit("Sigmoid", {chunk(ctx, all, 3, h)});
  const std::string c = ctx.emit("Add", {ctx.emit("Mul", {f, hx[1]}), ctx.emit("Mul", {i, g})});
  ctx.set_output(0, ctx.emit("Mul", {o, ctx.emit("Tanh", {c})}));
  ctx.set_output(1, c);
  return RuleResult::kEmitted;
}

// gru_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None):
// r, z, n in torch's order; n = tanh(x_n + r (h W_hn^T + b_hn)); h' = (1 - z) n + z h.
RuleResult aten_gru_cell(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t h = hidden_size(args);
  const std::string hx = args.tensor("hx");
  const std::string xi = gates(ctx, args, args.tensor("input"), "w_ih", "b_ih"), hh = gates(ctx, args, hx, "w_hh", "b_hh");
  const std::string r = ctx.emit("Sigmoid", {ctx.emit("Add", {chunk(ctx, xi, 0, h), chunk(ctx, hh, 0, h)})});
  const std::string z = ctx.emit("Sigmoid", {ctx.emit("Add", {chunk(ctx, xi, 1, h), chunk(ctx, hh, 1, h)})});
  const std::string n = ctx.emit("Tanh", {ctx.emit("Add", {chunk(ctx, xi, 2, h), ctx.emit("Mul", {r, chunk(ctx, hh, 2, h)})})});
  return emitted(ctx, ctx.emit("Add", {n, ctx.emit("Mul", {z, ctx.emit("Sub", {hx, n})})}));
}

// rrelu(Tensor self, Scalar lower=1/8, Scalar upper=1/3, bool training=False, Generator? generator=None):
// negative inputs scaled by (lower + upper) / 2 in eval mode, by a uniform draw from [lower, upper)
// per element in training mode (which matches torch in distribution only).
RuleResult aten_rrelu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string x = args.tensor("self");
  const DType type = args.dtype_of("self");
  const double lower = args.has("lower") ? args.scalar_number("lower") : 0.125, upper = args.has("upper") ? args.scalar_number("upper") : 1.0 / 3.0;
  const std::string slope = args.bool_or("training", false)
      ? ctx.emit("RandomUniformLike", {x}, {Attr("low", lower), Attr("high", upper), Attr("dtype", int64_t{onnx_dtype(type)})})
      : ctx.const_scalar((lower + upper) / 2, type);
  const std::string negative = ctx.emit("Less", {x, ctx.const_scalar(0, type)});
  return emitted(ctx, ctx.emit("Where", {negative, ctx.emit("Mul", {x, slope}), x}));
}

// The dims of an optional int list argument (absent or empty: every dim).
std::optional<std::vector<int64_t>> norm_dims(const ArgReader& args, const char* name) {
  if (!args.has(name)) return std::nullopt;
  std::vector<int64_t> dims = normalize_dims(args.ints(name), args.rank_of("self"));
  if (dims.empty()) return std::nullopt;
  return dims;
}

// frobenius_norm.dim(Tensor self, int[1] dim, bool keepdim=False): the 2-norm over dim.
RuleResult aten_norm_kernel(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype("dtype").value_or(args.dtype_of("self"));
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "a norm of " + std::string(ir::dtype_name(type)));
  const double p = args.has("p") ? args.scalar_number("p") : 2.0;
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type);
  return emitted(ctx, vector_norm(ctx, x, p, norm_dims(args, "dim"), args.bool_or("keepdim", false), type));
}

// linalg__powsum(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None):
// sum |x|^ord over dim, without the root (vector_norm's inner sum).
RuleResult aten_powsum(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype("dtype").value_or(args.dtype_of("self"));
  const double ord = args.has("ord") ? args.scalar_number("ord") : 2.0;
  const std::string x = ctx.emit("Abs", {cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), type)});
  const std::string powered = ord == 0 ? ctx.cast(ctx.emit("Not", {ctx.emit("Equal", {x, ctx.const_scalar(0, type)})}), type)
                                       : ctx.emit("Pow", {x, ctx.const_scalar(ord, type)});
  return emitted(ctx, ctx.reduce("ReduceSum", powered, norm_dims(args, "dim"), args.bool_or("keepdim", false)));
}

// norm_except_dim(Tensor v, int pow=2, int dim=0) -> Tensor: the pow-norm over every dim but dim,
// kept as size-1 dims (dim -1: over everything, a 0-d result).
RuleResult aten_norm_except_dim(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("v"), dim = args.int_or("dim", 0);
  const DType type = args.dtype_of("v");
  const double p = static_cast<double>(args.int_or("pow", 2));
  if (dim == -1) return emitted(ctx, vector_norm(ctx, args.tensor("v"), p, std::nullopt, false, type));
  const int64_t kept = normalize_dim(dim, rank);
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    if (i != kept) axes.push_back(i);
  return emitted(ctx, vector_norm(ctx, args.tensor("v"), p, axes, true, type));
}

}  // namespace

void register_kernel_form_rules(RuleTable& t) {
  t.add("aten.range.default", aten_range);
  t.add("aten.range.step", aten_range);
  t.add("aten.conv_tbc.default", aten_conv_tbc);
  t.add("aten._convolution_mode.default", aten_convolution_mode);
  t.add("aten._trilinear.default", aten_trilinear);
  t.add("aten._compute_linear_combination.default", aten_compute_linear_combination);
  t.add("aten.rnn_tanh_cell.default", aten_rnn_tanh_cell);
  t.add("aten.rnn_relu_cell.default", aten_rnn_relu_cell);
  t.add("aten.lstm_cell.default", aten_lstm_cell);
  t.add("aten.gru_cell.default", aten_gru_cell);
  t.add("aten.rrelu.default", aten_rrelu);
  t.add("aten.frobenius_norm.dim", aten_norm_kernel);
  t.add("aten.linalg__powsum.default", aten_powsum);
  t.add("aten.norm_except_dim.default", aten_norm_except_dim);
}

}  // namespace pt2onnx::translate
