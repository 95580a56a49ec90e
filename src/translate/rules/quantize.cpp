// Quantization rules: torch's quantized_decomposed ops, which PT2E's convert_pt2e (torchao) and
// the dynamic and weight-only flows leave in an exported program, as ONNX QuantizeLinear /
// DequantizeLinear. A quantized weight stays the int8/uint8 initializer of the archive, read by a
// DequantizeLinear (nothing here turns it into floats), and each Q/DQ stays where torch wrote it,
// so that runtimes fuse the pairs around a Conv or MatMul into integer kernels.
//
// Semantics (torch/ao/quantization/fx/_decomposed.py): quantize is clamp(round(x * (1 / scale)) +
// zero_point, quant_min, quant_max) in float32; QuantizeLinear divides by the scale instead, which
// can fall on the other side of a rounding tie, so a quantized value may differ from torch's by one
// step. Dequantize is (q - zero_point) * scale in float32, which is DequantizeLinear exactly.
// Forms QuantizeLinear cannot hold (int32 results, float8, whose torch form rounds to integers
// first, ranges narrower than the dtype's) get the same arithmetic or a Clip after it. Per-token
// and per-group forms and the choose_qparams ops (dynamic quantization) are written out as the
// arithmetic torch does, in the dtypes torch does it in.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// How a quantized dtype is expressed at the target opset.
enum class QForm { kLinear, kArithmetic };

struct QRange {
  int64_t min, max;
};

// The full range of an integer quantized dtype.
std::optional<QRange> dtype_range(DType t) {
  switch (t) {
    case DType::kUInt8: return QRange{0, 255};
    case DType::kInt8: return QRange{-128, 127};
    case DType::kUInt16: return QRange{0, 65535};
    case DType::kInt16: return QRange{-32768, 32767};
    case DType::kInt32: return QRange{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default: return std::nullopt;
  }
}

bool is_float8(DType t) { return t == DType::kFloat8E4M3FN || t == DType::kFloat8E5M2; }

// The form of quantizing to (or dequantizing from) `t`, refusing what no form at this opset holds.
QForm qform(const EmitContext& ctx, DType t, bool quantize) {
  const std::string name(ir::dtype_name(t));
  if (t == DType::kUInt8 || t == DType::kInt8) return QForm::kLinear;
  if (t == DType::kUInt16 || t == DType::kInt16) {
    PT2ONNX_CHECK(ctx.opset() >= 21, ErrorCode::kUnsupported,
                  name + " quantization needs opset 21 (QuantizeLinear/DequantizeLinear take 16-bit types from 21 on)");
    return QForm::kLinear;
  }
  if (t == DType::kInt32) return quantize ? QForm::kArithmetic : QForm::kLinear;  // QuantizeLinear has no int32 result
  if (is_float8(t)) {
    PT2ONNX_CHECK(ctx.opset() >= 19, ErrorCode::kUnsupported, name + " quantization needs opset 19 (float8 types)");
    return QForm::kArithmetic;  // torch rounds to integers before the float8 cast; QuantizeLinear does not
  }
  throw Error(ErrorCode::kUnsupported, "quantization to " + name + " (no ONNX form)");
}

// ---- 4-bit values: int4/uint4 held in int8/uint8 -------------------------------------------------

// The ONNX 4-bit type (INT4 or UINT4) that holds the values a quant range allows in `stored`
// (torchao's int4 weights are -8..7 in int8, uint4 0..15 in uint8), or 0 when they need 8 bits.
int64_t four_bit_type(DType stored, QRange r) {
  if (stored == DType::kInt8 && r.min >= -8 && r.max <= 7) return kOnnxInt4;
  if (stored == DType::kUInt8 && r.min >= 0 && r.max <= 15) return kOnnxUInt4;
  return 0;
}

// The 4-bit type of a dequantized weight (as four_bit_type; 0 for values that are not a weight's),
// refused below opset 21: a 4-bit weight is one the file should hold at half a byte an element,
// which only INT4/UINT4 tensors can. A computed 4-bit value stays int8 (exact, nothing stored).
int64_t four_bit_form(EmitContext& ctx, const std::string& input, DType stored, QRange r) {
  const auto& inits = ctx.graph().initializer();
  const bool weight = std::any_of(inits.begin(), inits.end(), [&](const onnx::TensorProto& t) { return t.name() == input; });
  const int64_t t = weight ? four_bit_type(stored, r) : 0;
  PT2ONNX_CHECK(t == 0 || ctx.opset() >= 21, ErrorCode::kUnsupported,
                std::string(t == kOnnxInt4 ? "int4" : "uint4") + " quantization (values " +
                    std::to_string(r.min) + ".." + std::to_string(r.max) + " in " + std::string(ir::dtype_name(stored)) +
                    ") needs opset 21 (INT4/UINT4 tensors, so that the weight stays 4-bit)");
  if (t != 0) ctx.require_ir_version(kOnnx4BitIrVersion);
  return t;
}

// `v` cast to the 4-bit type `t` (unchanged when 0). Of a weight, clean-up packs the Cast into the
// initializer (clean/pack_4bit_weights.cpp). Cast after any Reshape: onnxruntime has no 4-bit
// Reshape (it folds Reshape and Cast of a constant zero point into one at load).
std::string as_four_bit(EmitContext& ctx, const std::string& v, int64_t t) {
  return t ? ctx.emit("Cast", {v}, {Attr("to", t)}) : v;
}

// A per-tensor parameter (scale or zero point): a number, or a one-element tensor made 0-D, in `type`.
std::string per_tensor_param(EmitContext& ctx, const ArgReader& args, const std::string& name, DType type) {
  if (!args.is_tensor(name)) return ctx.const_scalar(args.get_float(name), type);
  std::string v = cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), type);
  return args.rank_of(name) == 0 ? v : ctx.reshape(v, ctx.const_i64s({}));
}

// A per-channel parameter along `axis` of a tensor of `rank`, shaped to broadcast against it.
std::string broadcast_along(EmitContext& ctx, const std::string& v, int64_t axis, int64_t rank) {
  std::vector<int64_t> trailing;
  for (int64_t d = axis + 1; d < rank; ++d) trailing.push_back(d - axis);
  return trailing.empty() ? v : ctx.unsqueeze(v, trailing);
}

// Clip of `q` (of `type`) to [quant_min, quant_max] unless that is the whole range of `type`
// (QuantizeLinear saturates to it already).
std::string clip_to_range(EmitContext& ctx, const ArgReader& args, const std::string& q, DType type, bool always) {
  if (args.is_tensor("quant_min") || args.is_tensor("quant_max"))  // .tensor2: the bounds are tensors
    return ctx.emit("Clip", {q, per_tensor_param(ctx, args, "quant_min", type),
                             per_tensor_param(ctx, args, "quant_max", type)});
  const int64_t lo = args.get_int("quant_min"), hi = args.get_int("quant_max");
  const std::optional<QRange> full = dtype_range(type);
  if (!always && full && full->min == lo && full->max == hi) return q;
  return ctx.emit("Clip", {q, ctx.const_scalar(static_cast<double>(lo), type), ctx.const_scalar(static_cast<double>(hi), type)});
}

// torch's arithmetic: clamp(round(x * inv_scale) + zero_point, quant_min, quant_max) cast to `qtype`.
std::string quantize_arithmetic(EmitContext& ctx, const ArgReader& args, const std::string& x, const std::string& inv_scale,
                                const std::string& zero, DType qtype) {
  const std::string rounded = ctx.emit("Add", {ctx.emit("Round", {ctx.emit("Mul", {x, inv_scale})}), zero});
  return ctx.cast(clip_to_range(ctx, args, rounded, DType::kFloat32, true), qtype);
}

// The dequantized value in the node's result dtype (DequantizeLinear gives float32).
RuleResult dequantized(EmitContext& ctx, const ArgReader& args, const std::string& y) {
  return emitted(ctx, cast_if_needed(ctx, y, DType::kFloat32, result_dtype(args, DType::kFloat32)));
}

// quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype)
// .tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, ScalarType dtype)
// .tensor2(Tensor input, Tensor scale, Tensor zero_point, Tensor quant_min, Tensor quant_max, ScalarType dtype)
RuleResult quantize_per_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType qtype = *args.dtype("dtype");
  const std::string x = cast_if_needed(ctx, args.tensor("input"), args.dtype_of("input"), DType::kFloat32);
  const std::string scale = per_tensor_param(ctx, args, "scale", DType::kFloat32);
  if (qform(ctx, qtype, true) == QForm::kArithmetic) {
    const std::string inv = args.is_tensor("scale") ? ctx.emit("Reciprocal", {scale})
                                                    : ctx.const_scalar(1.0 / args.get_float("scale"), DType::kFloat32);
    return emitted(ctx, quantize_arithmetic(ctx, args, x, inv, per_tensor_param(ctx, args, "zero_point", DType::kFloat32), qtype));
  }
  const std::string q = ctx.emit("QuantizeLinear", {x, scale, per_tensor_param(ctx, args, "zero_point", qtype)});
  return emitted(ctx, clip_to_range(ctx, args, q, qtype, false));
}

// dequantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None)
// .tensor(Tensor input, Tensor scale, Tensor zero_point, ...); .tensor2(..., Tensor quant_min, Tensor quant_max, ...)
RuleResult dequantize_per_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType qtype = args.dtype_of("input");
  const std::string scale = per_tensor_param(ctx, args, "scale", DType::kFloat32);
  if (qform(ctx, qtype, false) == QForm::kArithmetic) {
    const std::string q = ctx.cast(args.tensor("input"), DType::kFloat32);
    const std::string zero = per_tensor_param(ctx, args, "zero_point", DType::kFloat32);
    return dequantized(ctx, args, ctx.emit("Mul", {ctx.emit("Sub", {q, zero}), scale}));
  }
  return dequantized(ctx, args, ctx.emit("DequantizeLinear", {args.tensor("input"), scale,
                                                               per_tensor_param(ctx, args, "zero_point", qtype)}));
}

// quantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, int quant_max, ScalarType dtype)
RuleResult quantize_per_channel(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType qtype = *args.dtype("dtype");
  const int64_t rank = args.rank_of("input"), axis = normalize_dim(args.get_int("axis"), rank);
  const std::string x = cast_if_needed(ctx, args.tensor("input"), args.dtype_of("input"), DType::kFloat32);
  const std::string scales = cast_if_needed(ctx, args.tensor("scales"), args.dtype_of("scales"), DType::kFloat32);
  if (qform(ctx, qtype, true) == QForm::kArithmetic) {
    const std::string inv = broadcast_along(ctx, ctx.emit("Reciprocal", {scales}), axis, rank);
    const std::string zero = broadcast_along(ctx, ctx.cast(args.tensor("zero_points"), DType::kFloat32), axis, rank);
    return emitted(ctx, quantize_arithmetic(ctx, args, x, inv, zero, qtype));
  }
  const std::string zero = cast_if_needed(ctx, args.tensor("zero_points"), args.dtype_of("zero_points"), qtype);
  const std::string q = ctx.emit("QuantizeLinear", {x, scales, zero}, {Attr("axis", axis)});
  return emitted(ctx, clip_to_range(ctx, args, q, qtype, false));
}

// dequantize_per_channel(Tensor input, Tensor scales, Tensor? zero_points, int axis, int quant_min, int quant_max,
//                        ScalarType dtype, *, ScalarType? out_dtype=None)
RuleResult dequantize_per_channel(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType qtype = args.dtype_of("input");
  const int64_t rank = args.rank_of("input"), axis = normalize_dim(args.get_int("axis"), rank);
  const std::string scales = cast_if_needed(ctx, args.tensor("scales"), args.dtype_of("scales"), DType::kFloat32);
  if (qform(ctx, qtype, false) == QForm::kArithmetic) {
    std::string q = ctx.cast(args.tensor("input"), DType::kFloat32);
    if (args.has("zero_points"))
      q = ctx.emit("Sub", {q, broadcast_along(ctx, ctx.cast(args.tensor("zero_points"), DType::kFloat32), axis, rank)});
    return dequantized(ctx, args, ctx.emit("Mul", {q, broadcast_along(ctx, scales, axis, rank)}));
  }
  std::vector<std::string> inputs = {args.tensor("input"), scales};
  if (args.has("zero_points"))
    inputs.push_back(cast_if_needed(ctx, args.tensor("zero_points"), args.dtype_of("zero_points"), qtype));
  return dequantized(ctx, args, ctx.emit("DequantizeLinear", inputs, {Attr("axis", axis)}));
}


// ---- dynamic quantization: scale and zero point from the data ------------------------------------

// min/max of `x` (float32) over `axes` (nullopt: all), and torch's determine_qparams /
// torchao's choose_qparams_affine on them: affine scale = (max(max, 0) - min(min, 0)) / (qmax -
// qmin) clamped below by eps, zero point = qmin - round(min(min, 0) / scale) clamped to the range;
// symmetric scale = max(|min(min, 0)|, max(max, 0)) / ((qmax - qmin) / 2), zero point the middle of
// the range (0 for int8, 128 for uint8). Both float32, shaped as the reduction leaves them.
struct QParams {
  std::string scale, zero;
};
QParams choose_qparams(EmitContext& ctx, const std::string& x, const std::optional<std::vector<int64_t>>& axes,
                       bool symmetric, int64_t qmin, int64_t qmax, double eps) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat32); };
  const std::string min_neg = ctx.emit("Min", {ctx.reduce("ReduceMin", x, axes, false), c(0)});
  const std::string max_pos = ctx.emit("Max", {ctx.reduce("ReduceMax", x, axes, false), c(0)});
  const double span = static_cast<double>(qmax - qmin);
  if (symmetric) {
    const std::string amax = ctx.emit("Max", {ctx.emit("Neg", {min_neg}), max_pos});
    const std::string scale = ctx.emit("Max", {ctx.emit("Div", {amax, c(span / 2)}), c(eps)});
    const double middle = static_cast<double>((qmin + qmax + 1) / 2);
    return {scale, ctx.emit("Expand", {c(middle), ctx.shape_of(scale)})};
  }
  const std::string scale = ctx.emit("Max", {ctx.emit("Div", {ctx.emit("Sub", {max_pos, min_neg}), c(span)}), c(eps)});
  const std::string zero = ctx.emit("Sub", {c(static_cast<double>(qmin)), ctx.emit("Round", {ctx.emit("Div", {min_neg, scale})})});
  return {scale, ctx.emit("Clip", {zero, c(static_cast<double>(qmin)), c(static_cast<double>(qmax))})};
}

// Output i of the node: `v` (float32) cast to the output's dtype and reshaped to its sizes (symbolic
// ones computed from the program's symbols).
void set_param_output(EmitContext& ctx, const ArgReader& args, size_t i, const std::string& v) {
  const ir::TensorMeta* meta = args.out_meta(i);
  PT2ONNX_CHECK(meta, ErrorCode::kUnsupported, "quantization parameters without tensor metadata");
  std::vector<int64_t> sizes;
  bool is_static = true;
  for (const ir::Dim& d : meta->sizes) {
    is_static = is_static && d.is_static();
    if (d.is_static()) sizes.push_back(d.as_int());
  }
  std::string shape;
  if (is_static) {
    shape = ctx.const_i64s(sizes);
  } else {
    std::vector<std::string> parts;
    for (const ir::Dim& d : meta->sizes)
      parts.push_back(d.is_static() ? ctx.const_i64s({d.as_int()}) : ctx.unsqueeze(ctx.sym_expr(d.as_expr()), {0}));
    shape = ctx.concat(parts, 0);
  }
  ctx.set_output(i, ctx.cast(ctx.reshape(v, shape), meta->dtype));
}

// choose_qparams.tensor(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)
// choose_qparams_symmetric.tensor(...): per tensor, float64 scale and int64 zero point of shape [1]
RuleResult choose_qparams_tensor(EmitContext& ctx, const ir::Node& node, bool symmetric) {
  ArgReader args(ctx, node);
  const std::string x = cast_if_needed(ctx, args.tensor("input"), args.dtype_of("input"), DType::kFloat32);
  const QParams p = choose_qparams(ctx, x, std::nullopt, symmetric, args.get_int("quant_min"), args.get_int("quant_max"),
                                   args.get_float("eps"));
  set_param_output(ctx, args, 0, p.scale);
  set_param_output(ctx, args, 1, p.zero);
  return RuleResult::kEmitted;
}
RuleResult choose_qparams_affine_tensor(EmitContext& ctx, const ir::Node& node) {
  return choose_qparams_tensor(ctx, node, false);
}
RuleResult choose_qparams_symmetric_tensor(EmitContext& ctx, const ir::Node& node) {
  return choose_qparams_tensor(ctx, node, true);
}

// ---- torchao's affine ops: one scale per block of `block_size` elements ------------------------

// How a block_size lays scales over a tensor, and the ONNX form that holds it.
struct BlockLayout {
  enum Kind { kPerTensor, kPerAxis, kBlocked, kOther } kind = kOther;
  int64_t axis = 0, block = 0;
  std::vector<int64_t> split_shape;  // the input viewed with each split dim as [size / block, block]
  std::vector<int64_t> param_shape;  // the scale's shape against split_shape (reduced dims 1)
  std::vector<int64_t> onnx_param_shape;  // the scale's shape for the ONNX form (kPerAxis: [C]; kBlocked: input rank)
  std::vector<int64_t> reduce_axes;  // axes of split_shape that the scale spans
  bool needs_split = false;
};

// torchao's _get_reduction_params: a dim with 1 < block < size is split into [size / block, block]
// and reduced over its second part; a dim with block == size is reduced whole; block 1 keeps it.
BlockLayout block_layout(const ArgReader& args, const std::string& input) {
  const std::vector<int64_t> block = args.ints("block_size");
  const ir::TensorMeta& meta = args.meta(input);
  PT2ONNX_CHECK(block.size() == meta.sizes.size(), ErrorCode::kUnsupported, "block_size of another rank than the input");
  BlockLayout l;
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < block.size(); ++i) {
    const ir::Dim& d = meta.sizes[i];
    if (block[i] == 1) {
      sizes.push_back(d.is_static() ? d.as_int() : -1);
      continue;
    }
    PT2ONNX_CHECK(d.is_static(), ErrorCode::kUnsupported, "a quantization block over a dynamic dim");
    sizes.push_back(d.as_int());
  }
  int split = 0, whole = 0, kept = 0;
  for (size_t i = 0; i < block.size(); ++i) {
    const int64_t size = sizes[i];
    if (block[i] > 1 && block[i] != size) {
      PT2ONNX_CHECK(size % block[i] == 0, ErrorCode::kUnsupported, "a quantization block that does not divide its dim");
      l.split_shape.insert(l.split_shape.end(), {size / block[i], block[i]});
      l.param_shape.insert(l.param_shape.end(), {size / block[i], 1});
      l.reduce_axes.push_back(static_cast<int64_t>(l.split_shape.size()) - 1);
      l.onnx_param_shape.push_back(size / block[i]);
      l.axis = static_cast<int64_t>(i), l.block = block[i];
      ++split;
    } else if (block[i] != 1) {
      l.split_shape.push_back(size);
      l.param_shape.push_back(1);
      l.reduce_axes.push_back(static_cast<int64_t>(l.split_shape.size()) - 1);
      if (size != 1) ++whole;
      l.onnx_param_shape.push_back(1);
    } else {
      l.split_shape.push_back(size);
      l.param_shape.push_back(size);
      l.onnx_param_shape.push_back(size);
      if (size != 1) {
        ++kept;
        if (split == 0) l.axis = static_cast<int64_t>(i);
      }
    }
  }
  l.needs_split = split > 0;
  if (split == 0 && kept == 0) l.kind = BlockLayout::kPerTensor;
  else if (split == 0 && kept == 1) {
    l.kind = BlockLayout::kPerAxis;
    l.onnx_param_shape = {sizes[static_cast<size_t>(l.axis)]};
  } else if (split == 1 && whole == 0) l.kind = BlockLayout::kBlocked;
  // A dynamic kept dim (-1 above) is 0 in a Reshape's shape: the parameter's own dim, which torch
  // shapes like the input's.
  for (std::vector<int64_t>* shape : {&l.param_shape, &l.onnx_param_shape})
    for (int64_t& d : *shape)
      if (d < 0) d = 0;
  return l;
}

// Whether `layout` has a QuantizeLinear/DequantizeLinear form at this opset.
bool linear_form(const EmitContext& ctx, const BlockLayout& l) {
  if (l.kind == BlockLayout::kPerTensor || l.kind == BlockLayout::kPerAxis) return true;
  return l.kind == BlockLayout::kBlocked && ctx.opset() >= 21;
}

// A scale or zero point reshaped for the ONNX form of `l` (or, `split`, for the arithmetic form).
std::string shaped_param(EmitContext& ctx, const BlockLayout& l, const std::string& v, bool split) {
  if (!split && l.kind == BlockLayout::kPerTensor) return ctx.reshape(v, ctx.const_i64s({}));
  return ctx.reshape(v, ctx.const_i64s(split ? l.param_shape : l.onnx_param_shape));
}

std::vector<Attr> layout_attrs(const BlockLayout& l) {
  if (l.kind == BlockLayout::kPerAxis) return {Attr("axis", l.axis)};
  if (l.kind == BlockLayout::kBlocked) return {Attr("axis", l.axis), Attr("block_size", l.block)};
  return {};
}

// `x` viewed as the layout's split shape, or `x` itself when nothing is split.
std::string split_view(EmitContext& ctx, const BlockLayout& l, const std::string& x) {
  return l.needs_split ? ctx.reshape(x, ctx.const_i64s(l.split_shape)) : x;
}
std::string unsplit(EmitContext& ctx, const BlockLayout& l, const std::string& x, const std::string& like) {
  return l.needs_split ? ctx.reshape(x, ctx.shape_of(like)) : x;
}

// quant_min/quant_max of torchao's ops: the arguments, or the range of the quantized dtype.
QRange affine_range(const ArgReader& args, DType qtype) {
  const std::optional<QRange> full = dtype_range(qtype);
  const std::optional<int64_t> lo = args.optional_int("quant_min"), hi = args.optional_int("quant_max");
  PT2ONNX_CHECK(full || (lo && hi), ErrorCode::kUnsupported,
                "torchao quantization to " + std::string(ir::dtype_name(qtype)) + " without quant_min/quant_max");
  return {lo.value_or(full ? full->min : 0), hi.value_or(full ? full->max : 0)};
}

// dequantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point, ScalarType input_dtype,
//                   Scalar? quant_min=None, Scalar? quant_max=None, *, ScalarType output_dtype=float32)
// (input - zero_point) * scale per block: DequantizeLinear (per tensor, per axis, or blocked at
// opset 21+) when the zero point is an integer of the input's type family, else the arithmetic.
RuleResult torchao_dequantize_affine(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType qtype = args.dtype_of("input");
  const BlockLayout l = block_layout(args, "input");
  const bool int_zero = !args.has("zero_point") || !ir::dtype_facts(args.dtype_of("zero_point")) ||
                        ir::dtype_facts(args.dtype_of("zero_point"))->kind != ir::DTypeKind::kFloat;
  const int64_t four_bit = four_bit_form(ctx, args.tensor("input"), qtype, affine_range(args, qtype));
  const std::string scale = cast_if_needed(ctx, args.tensor("scale"), args.dtype_of("scale"), DType::kFloat32);
  if (int_zero && linear_form(ctx, l) && qform(ctx, qtype, false) == QForm::kLinear) {
    std::vector<std::string> inputs = {as_four_bit(ctx, args.tensor("input"), four_bit), shaped_param(ctx, l, scale, false)};
    if (args.has("zero_point")) {
      const std::string zero = cast_if_needed(ctx, args.tensor("zero_point"), args.dtype_of("zero_point"), qtype);
      inputs.push_back(as_four_bit(ctx, shaped_param(ctx, l, zero, false), four_bit));
    }
    return dequantized(ctx, args, ctx.emit("DequantizeLinear", inputs, layout_attrs(l)));
  }
  // (a 4-bit weight is stored as INT4 here too: Cast from it)
  std::string q = split_view(ctx, l, ctx.cast(as_four_bit(ctx, args.tensor("input"), four_bit), DType::kFloat32));
  if (args.has("zero_point"))
    q = ctx.emit("Sub", {q, shaped_param(ctx, l, ctx.cast(args.tensor("zero_point"), DType::kFloat32), true)});
  return dequantized(ctx, args, unsplit(ctx, l, ctx.emit("Mul", {q, shaped_param(ctx, l, scale, true)}), args.tensor("input")));
}

// quantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point, ScalarType output_dtype,
//                 Scalar? quant_min=None, Scalar? quant_max=None)
// clamp(round(input * (1 / scale)) + zero_point, quant_min, quant_max) per block
RuleResult torchao_quantize_affine(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType qtype = *args.dtype("output_dtype");
  const DType stored = result_dtype(args, qtype);  // sub-byte dtypes are stored in uint8
  const QRange range = affine_range(args, qtype);
  const BlockLayout l = block_layout(args, "input");
  const std::string x = cast_if_needed(ctx, args.tensor("input"), args.dtype_of("input"), DType::kFloat32);
  const std::string scale = cast_if_needed(ctx, args.tensor("scale"), args.dtype_of("scale"), DType::kFloat32);
  const std::optional<QRange> full = dtype_range(stored);
  if (stored == qtype && args.has("zero_point") && linear_form(ctx, l) && qform(ctx, qtype, true) == QForm::kLinear) {
    const std::string zero = shaped_param(ctx, l, cast_if_needed(ctx, args.tensor("zero_point"), args.dtype_of("zero_point"), qtype), false);
    std::string q = ctx.emit("QuantizeLinear", {x, shaped_param(ctx, l, scale, false), zero}, layout_attrs(l));
    if (!full || full->min != range.min || full->max != range.max)
      q = ctx.emit("Clip", {q, ctx.const_scalar(static_cast<double>(range.min), qtype), ctx.const_scalar(static_cast<double>(range.max), qtype)});
    return emitted(ctx, q);
  }
  const std::string inv = ctx.emit("Reciprocal", {shaped_param(ctx, l, scale, true)});
  std::string q = ctx.emit("Round", {ctx.emit("Mul", {split_view(ctx, l, x), inv})});
  if (args.has("zero_point"))
    q = ctx.emit("Add", {q, shaped_param(ctx, l, ctx.cast(args.tensor("zero_point"), DType::kFloat32), true)});
  q = ctx.emit("Clip", {q, ctx.const_scalar(static_cast<double>(range.min), DType::kFloat32),
                        ctx.const_scalar(static_cast<double>(range.max), DType::kFloat32)});
  return emitted(ctx, ctx.cast(unsplit(ctx, l, q, x), stored));
}

// choose_qparams_affine(Tensor input, str mapping_type, int[] block_size, ScalarType target_dtype,
//   Scalar? quant_min=None, Scalar? quant_max=None, float? eps=None, ScalarType? scale_dtype=None,
//   ScalarType? zero_point_dtype=None, bool keepdim=False) -> (Tensor, Tensor)
RuleResult torchao_choose_qparams_affine(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string mapping = args.string_or("mapping_type", "");
  PT2ONNX_CHECK(mapping == "ASYMMETRIC" || mapping == "SYMMETRIC", ErrorCode::kUnsupported,
                "torchao choose_qparams_affine with mapping_type " + mapping + " (ASYMMETRIC and SYMMETRIC convert)");
  const QRange range = affine_range(args, *args.dtype("target_dtype"));
  const BlockLayout l = block_layout(args, "input");
  const std::string x = split_view(ctx, l, cast_if_needed(ctx, args.tensor("input"), args.dtype_of("input"), DType::kFloat32));
  // eps defaults to the smallest normal of the input dtype (float32's here)
  const double eps = args.optional_float("eps").value_or(static_cast<double>(std::numeric_limits<float>::min()));
  const QParams p = choose_qparams(ctx, x, l.reduce_axes, mapping == "SYMMETRIC", range.min, range.max, eps);
  set_param_output(ctx, args, 0, p.scale);
  set_param_output(ctx, args, 1, p.zero);
  return RuleResult::kEmitted;
}

// ---- per token and per channel group (quantized_decomposed, as torch writes them out) --------------

// The float type torch computes `a op b` in for two dimensioned tensors, one of them float.
DType float_promotion(DType a, DType b) {
  const auto is_float = [](DType t) { return ir::dtype_facts(t) && ir::dtype_facts(t)->kind == ir::DTypeKind::kFloat; };
  if (!is_float(a)) return is_float(b) ? b : DType::kFloat32;
  if (!is_float(b) || a == b) return a;
  if (a == DType::kFloat64 || b == DType::kFloat64) return DType::kFloat64;
  return DType::kFloat32;
}

// clamp(round(x * (1 / scales) + zero_points), quant_min, quant_max) in type `t`, cast to `qtype`.
std::string quantize_in(EmitContext& ctx, const ArgReader& args, const std::string& x, const std::string& scales,
                        const std::string& zero, DType t, DType qtype) {
  const std::string y = ctx.emit("Round", {ctx.emit("Add", {ctx.emit("Mul", {x, ctx.emit("Reciprocal", {scales})}), zero})});
  return ctx.cast(ctx.emit("Clip", {y, ctx.const_scalar(static_cast<double>(args.get_int("quant_min")), t),
                                    ctx.const_scalar(static_cast<double>(args.get_int("quant_max")), t)}),
                  qtype);
}

// quantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, ScalarType dtype)
// (scales and zero points of shape [..., 1]: one per row of the last dim)
RuleResult quantize_per_token(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType t = float_promotion(args.dtype_of("input"), args.dtype_of("scales"));
  auto in_t = [&](const char* name) { return cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), t); };
  return emitted(ctx, quantize_in(ctx, args, in_t("input"), in_t("scales"), in_t("zero_points"), t, *args.dtype("dtype")));
}

// dequantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max,
//                      ScalarType dtype, ScalarType output_dtype)   ((input - zero_points) * scales)
RuleResult dequantize_per_token(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType t = float_promotion(float_promotion(args.dtype_of("input"), args.dtype_of("zero_points")), args.dtype_of("scales"));
  auto in_t = [&](const char* name) { return cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), t); };
  const std::string y = ctx.emit("Mul", {ctx.emit("Sub", {in_t("input"), in_t("zero_points")}), in_t("scales")});
  return emitted(ctx, cast_if_needed(ctx, y, t, result_dtype(args, DType::kFloat32)));
}

// choose_qparams_per_token(Tensor input, ScalarType dtype) -> (Tensor, Tensor)
// scale = max(amax(|x|, -1), 1e-5) / 127, zero point 0; int8 only
RuleResult choose_qparams_per_token(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(*args.dtype("dtype") == DType::kInt8, ErrorCode::kUnsupported, "choose_qparams_per_token to a dtype other than int8");
  const DType t = float_promotion(args.dtype_of("input"), DType::kFloat32);  // float16 scales are computed in float32
  auto c = [&](double v) { return ctx.const_scalar(v, t); };
  const std::string x = cast_if_needed(ctx, args.tensor("input"), args.dtype_of("input"), t);
  const std::string amax = ctx.reduce("ReduceMax", ctx.emit("Abs", {x}), std::vector<int64_t>{-1}, true);
  const std::string scale = ctx.emit("Div", {ctx.emit("Max", {amax, c(1e-5)}), c(127)});
  ctx.set_output(0, cast_if_needed(ctx, scale, t, args.out_dtype(0)));
  ctx.set_output(1, ctx.cast(ctx.emit("Sub", {scale, scale}), args.out_dtype(1)));
  return RuleResult::kEmitted;
}

// choose_qparams_per_token_asymmetric(Tensor input, ScalarType dtype) -> (Tensor, Tensor); and its _impl
// int8 range; scale = max((max(amax, 0) - min(amin, 0)) / 255, float32 eps); the zero point from
// whichever end has the smaller error, clamped and rounded
RuleResult choose_qparams_per_token_asymmetric(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType t = float_promotion(args.dtype_of("input"), args.dtype_of("input"));
  auto c = [&](double v) { return ctx.const_scalar(v, t); };
  const std::string x = args.tensor("input");
  const std::vector<int64_t> last = {-1};
  const std::string min_neg = ctx.emit("Min", {ctx.reduce("ReduceMin", x, last, true), c(0)});
  const std::string max_pos = ctx.emit("Max", {ctx.reduce("ReduceMax", x, last, true), c(0)});
  const std::string scale = ctx.emit("Max", {ctx.emit("Div", {ctx.emit("Sub", {max_pos, min_neg}), c(255)}),
                                             c(static_cast<double>(std::numeric_limits<float>::epsilon()))});
  const std::string lo = ctx.emit("Div", {min_neg, scale}), hi = ctx.emit("Div", {max_pos, scale});
  const std::string from_min = ctx.emit("Add", {c(-128), lo}), from_max = ctx.emit("Add", {c(127), hi});
  const std::string zero = ctx.emit("Where", {ctx.emit("Greater", {ctx.emit("Add", {from_min, from_max}), c(0)}),
                                              ctx.emit("Sub", {c(-128), lo}), ctx.emit("Sub", {c(127), hi})});
  ctx.set_output(0, cast_if_needed(ctx, scale, t, args.out_dtype(0)));
  ctx.set_output(1, ctx.cast(ctx.emit("Round", {ctx.emit("Clip", {zero, c(-128), c(127)})}), args.out_dtype(1)));
  return RuleResult::kEmitted;
}

// The group size of a per-channel-group op on a 2-D [N, K] input: group_size, or K when larger
// (torch's rule when the scales have one column).
int64_t group_of(const ArgReader& args, const std::string& input) {
  PT2ONNX_CHECK(args.rank_of(input) == 2, ErrorCode::kUnsupported, "per-channel-group quantization of a tensor that is not 2-D");
  const ir::Dim& k = args.meta(input).sizes[1];
  PT2ONNX_CHECK(k.is_static(), ErrorCode::kUnsupported, "per-channel-group quantization over a dynamic dim");
  const int64_t group = std::min(args.get_int("group_size"), k.as_int());
  PT2ONNX_CHECK(group > 1 && k.as_int() % group == 0, ErrorCode::kUnsupported, "a group size that does not divide the dim");
  return group;
}

// quantize_per_channel_group(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max,
//                            ScalarType dtype, int group_size)   (rows of `group_size` along the last dim)
RuleResult quantize_per_channel_group(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t group = group_of(args, "input");
  const DType t = float_promotion(args.dtype_of("input"), args.dtype_of("scales"));
  auto column = [&](const char* name) {
    return ctx.reshape(cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), t), ctx.const_i64s({-1, 1}));
  };
  const std::string x = ctx.reshape(cast_if_needed(ctx, args.tensor("input"), args.dtype_of("input"), t), ctx.const_i64s({-1, group}));
  const std::string q = quantize_in(ctx, args, x, column("scales"), column("zero_points"), t, *args.dtype("dtype"));
  return emitted(ctx, ctx.reshape(q, ctx.shape_of(args.tensor("input"))));
}

// dequantize_per_channel_group(Tensor input, Tensor scales, Tensor? zero_points, int quant_min, int quant_max,
//                              ScalarType dtype, int group_size, ScalarType output_dtype)
// A blocked DequantizeLinear at opset 21+ (axis 1, block_size = group), else (q - zero) * scale in groups.
RuleResult dequantize_per_channel_group(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t group = group_of(args, "input");
  const DType qtype = args.dtype_of("input");
  const int64_t n = args.meta("input").sizes[0].is_static() ? args.meta("input").sizes[0].as_int() : -1;
  const int64_t k = args.meta("input").sizes[1].as_int();
  const bool int_zero = !args.has("zero_points") || ir::dtype_facts(args.dtype_of("zero_points"))->kind != ir::DTypeKind::kFloat;
  const int64_t four_bit = four_bit_form(ctx, args.tensor("input"), qtype, QRange{args.get_int("quant_min"), args.get_int("quant_max")});
  if (ctx.opset() >= 21 && int_zero && n > 0 && qform(ctx, qtype, false) == QForm::kLinear) {
    const std::string grid = ctx.const_i64s({n, k / group});
    std::vector<std::string> inputs = {
        as_four_bit(ctx, args.tensor("input"), four_bit),
        ctx.reshape(cast_if_needed(ctx, args.tensor("scales"), args.dtype_of("scales"), DType::kFloat32), grid)};
    if (args.has("zero_points")) {
      const std::string zero = cast_if_needed(ctx, args.tensor("zero_points"), args.dtype_of("zero_points"), qtype);
      inputs.push_back(as_four_bit(ctx, ctx.reshape(zero, grid), four_bit));
    }
    return dequantized(ctx, args, ctx.emit("DequantizeLinear", inputs, {Attr("axis", int64_t{1}), Attr("block_size", group)}));
  }
  const DType t = float_promotion(args.dtype_of("scales"), args.dtype_of("scales"));
  auto column = [&](const char* name) {
    return ctx.reshape(cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), t), ctx.const_i64s({-1, 1}));
  };
  std::string q = ctx.reshape(ctx.cast(as_four_bit(ctx, args.tensor("input"), four_bit), t), ctx.const_i64s({-1, group}));
  if (args.has("zero_points")) q = ctx.emit("Sub", {q, column("zero_points")});
  const std::string y = ctx.reshape(ctx.emit("Mul", {q, column("scales")}), ctx.shape_of(args.tensor("input")));
  return emitted(ctx, cast_if_needed(ctx, y, t, result_dtype(args, DType::kFloat32)));
}

// ---- torchao's float8 ops (a scale per tensor, per row, or per block) ------------------------------

// The largest finite value of a float8 type (torch.finfo(dtype).max).
double float8_max(DType t) { return t == DType::kFloat8E5M2 ? 57344.0 : 448.0; }

// `x op scale` with torchao's _maybe_expand_scale_to_tensor_shape: a scale of one element or one
// that broadcasts applies as it is; otherwise each dim of `x` the scale divides into blocks is
// split into [scale dim, block] so that the scale broadcasts over its blocks.
std::string apply_scale(EmitContext& ctx, const ArgReader& args, const std::string& x_arg, const std::string& x,
                        const std::string& op) {
  const ir::TensorMeta& xm = args.meta(x_arg);
  const ir::TensorMeta& sm = args.meta("scale");
  const std::string scale = cast_if_needed(ctx, args.tensor("scale"), args.dtype_of("scale"), DType::kFloat32);
  bool one = true, broadcasts = sm.sizes.size() == xm.sizes.size();
  for (size_t i = 0; i < sm.sizes.size(); ++i) {
    const ir::Dim& d = sm.sizes[i];
    one = one && d.is_static() && d.as_int() == 1;
    const ir::Dim& e = i < xm.sizes.size() ? xm.sizes[i] : d;
    const bool same = d.is_static() == e.is_static() &&
                      (d.is_static() ? d.as_int() == e.as_int() : ctx.dim_param(d.as_expr()) == ctx.dim_param(e.as_expr()));
    broadcasts = broadcasts && ((d.is_static() && d.as_int() == 1) || same);
  }
  if (one) return ctx.emit(op, {x, ctx.reshape(scale, ctx.const_i64s({}))});
  if (broadcasts) return ctx.emit(op, {x, scale});
  PT2ONNX_CHECK(sm.sizes.size() == xm.sizes.size(), ErrorCode::kUnsupported,
                "a float8 scale of rank " + std::to_string(sm.sizes.size()) + " for a tensor of rank " +
                    std::to_string(xm.sizes.size()) + " (torchao expands only same-rank block scales)");
  std::vector<int64_t> split, scale_split;
  for (size_t i = 0; i < xm.sizes.size(); ++i) {
    PT2ONNX_CHECK(xm.sizes[i].is_static() && sm.sizes[i].is_static(), ErrorCode::kUnsupported,
                  "a block-wise float8 scale over a dynamic dim");
    const int64_t n = xm.sizes[i].as_int(), s = sm.sizes[i].as_int();
    if (s == n || s == 1) {
      split.push_back(n);
      scale_split.push_back(s);
      continue;
    }
    PT2ONNX_CHECK(n % s == 0, ErrorCode::kUnsupported, "a float8 scale whose blocks do not divide the tensor");
    split.insert(split.end(), {s, n / s});
    scale_split.insert(scale_split.end(), {s, 1});
  }
  const std::string y = ctx.emit(op, {ctx.reshape(x, ctx.const_i64s(split)), ctx.reshape(scale, ctx.const_i64s(scale_split))});
  return ctx.reshape(y, ctx.shape_of(x));
}

// quantize_affine_float8_non_decomposed(Tensor tensor, Tensor scale, ScalarType float8_dtype=float8_e4m3fn)
// clamp(tensor / scale, -max, max) cast to float8 (round to nearest even), opset 19+
RuleResult torchao_quantize_float8(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType f8 = args.dtype("float8_dtype").value_or(DType::kFloat8E4M3FN);
  qform(ctx, f8, true);  // refuses below opset 19
  const std::string x = cast_if_needed(ctx, args.tensor("tensor"), args.dtype_of("tensor"), DType::kFloat32);
  const double m = float8_max(f8);
  const std::string scaled = apply_scale(ctx, args, "tensor", x, "Div");
  return emitted(ctx, ctx.cast(ctx.emit("Clip", {scaled, ctx.const_scalar(-m, DType::kFloat32), ctx.const_scalar(m, DType::kFloat32)}), f8));
}

// dequantize_affine_float8_non_decomposed(Tensor tensor, Tensor scale, ScalarType output_dtype=float32)
// float32(tensor) * scale, in output_dtype
RuleResult torchao_dequantize_float8(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  qform(ctx, args.dtype_of("tensor"), false);
  const std::string y = apply_scale(ctx, args, "tensor", ctx.cast(args.tensor("tensor"), DType::kFloat32), "Mul");
  return dequantized(ctx, args, y);
}

// choose_scale_float8(Tensor tensor, SymInt[] block_size, ScalarType float8_dtype=float8_e4m3fn,
//   ScalarType scale_dtype=float32, float? hp_value_lb=None, float? hp_value_ub=None) -> Tensor
// amax(|tensor|) per block, clamped to [lb, ub], / the float8 max; float32 (an e8m0 power-of-two
// scale is refused)
RuleResult torchao_choose_scale_float8(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType f8 = args.dtype("float8_dtype").value_or(DType::kFloat8E4M3FN);
  const DType scale_type = args.dtype("scale_dtype").value_or(DType::kFloat32);
  PT2ONNX_CHECK(scale_type == DType::kFloat32, ErrorCode::kUnsupported,
                "choose_scale_float8 with scale_dtype " + std::string(ir::dtype_name(scale_type)) +
                    " (a power-of-two scale rounded in log2; float32 scales convert)");
  const BlockLayout l = block_layout(args, "tensor");
  const std::string x = split_view(ctx, l, cast_if_needed(ctx, args.tensor("tensor"), args.dtype_of("tensor"), DType::kFloat32));
  std::string amax = ctx.reduce("ReduceMax", ctx.emit("Abs", {x}), l.reduce_axes, true);
  const std::optional<double> lb = args.optional_float("hp_value_lb"), ub = args.optional_float("hp_value_ub");
  if (lb) amax = ctx.emit("Max", {amax, ctx.const_scalar(*lb, DType::kFloat32)});
  if (ub) amax = ctx.emit("Min", {amax, ctx.const_scalar(*ub, DType::kFloat32)});
  set_param_output(ctx, args, 0, ctx.emit("Div", {amax, ctx.const_scalar(float8_max(f8), DType::kFloat32)}));
  return RuleResult::kEmitted;
}

// convert_element_type.no_fuse(Tensor input, ScalarType dtype) -> Tensor: prims.convert_element_type
// (a Cast) that PT2E writes where inductor must not fuse the cast into its neighbours.
RuleResult convert_element_type_no_fuse(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, cast_if_needed(ctx, args.tensor("input"), args.dtype_of("input"), *args.dtype("dtype")));
}

}  // namespace

void register_quantize_rules(RuleTable& t) {
  for (const char* overload : {"default", "tensor", "tensor2"}) {
    t.add(std::string("quantized_decomposed.quantize_per_tensor.") + overload, quantize_per_tensor);
    t.add(std::string("quantized_decomposed.dequantize_per_tensor.") + overload, dequantize_per_tensor);
  }
  t.add("quantized_decomposed.quantize_per_channel.default", quantize_per_channel);
  t.add("quantized_decomposed.dequantize_per_channel.default", dequantize_per_channel);
  t.add("quantized_decomposed.choose_qparams.tensor", choose_qparams_affine_tensor);
  t.add("quantized_decomposed.choose_qparams_symmetric.tensor", choose_qparams_symmetric_tensor);
  t.add("quantized_decomposed.quantize_per_token.default", quantize_per_token);
  t.add("quantized_decomposed.dequantize_per_token.default", dequantize_per_token);
  t.add("quantized_decomposed.choose_qparams_per_token.default", choose_qparams_per_token);
  t.add("quantized_decomposed.choose_qparams_per_token_asymmetric.default", choose_qparams_per_token_asymmetric);
  t.add("quantized_decomposed._choose_qparams_per_token_asymmetric_impl.default", choose_qparams_per_token_asymmetric);
  t.add("quantized_decomposed.quantize_per_channel_group.default", quantize_per_channel_group);
  t.add("quantized_decomposed.dequantize_per_channel_group.default", dequantize_per_channel_group);
  t.add("quantized_decomposed.convert_element_type.no_fuse", convert_element_type_no_fuse);
  t.add("torchao.dequantize_affine.default", torchao_dequantize_affine);
  t.add("torchao.quantize_affine.default", torchao_quantize_affine);
  t.add("torchao.choose_qparams_affine.default", torchao_choose_qparams_affine);
  t.add("torchao.quantize_affine_float8_non_decomposed.default", torchao_quantize_float8);
  t.add("torchao.dequantize_affine_float8_non_decomposed.default", torchao_dequantize_float8);
  t.add("torchao.choose_scale_float8.default", torchao_choose_scale_float8);
}

}  // namespace pt2onnx::translate
