// _upsample_lanczos2d_aa (F.interpolate(mode="lanczos")): torch's antialiased separable filter
// with the Lanczos-3 kernel, which ONNX Resize lacks. For static sizes, each axis's [out, in] weight
// matrix is computed here as torch's CPU kernel computes it (Pillow's scheme: half-pixel centres, a
// support of 3 widened by the scale when downsampling, taps clipped to the input and renormalised,
// all in the input's floating type), and the image is resampled as W_h . x . W_w^T by MatMul. An
// axis whose size does not change is left alone, as torch's kernel does.
#include "translate/rules/register_all.h"

#include <algorithm>
#include <cmath>
#include <numbers>
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

template <typename T>
T sinc(T x) {
  if (x == T(0)) return T(1);
  x *= std::numbers::pi_v<T>;
  return std::sin(x) / x;
}

template <typename T>
T lanczos3(T x) {
  x = std::abs(x);
  return x < T(3) ? sinc(x) * sinc(static_cast<T>(x / 3.0)) : T(0);
}

// Row-major [out_size, in_size] weights of one axis, in T as torch computes them: the scale is
// 1 / scale_factor when one is given, else in / out.
template <typename T>
std::vector<T> axis_weights(int64_t in_size, int64_t out_size, std::optional<double> scale_factor) {
  const T scale = scale_factor && *scale_factor > 0 ? static_cast<T>(1.0 / *scale_factor)
                                                    : static_cast<T>(in_size) / static_cast<T>(out_size);
  constexpr int kTaps = 6;
  const T support = scale >= T(1) ? static_cast<T>(kTaps * 0.5) * scale : static_cast<T>(kTaps * 0.5);
  const int64_t max_taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  const T invscale = scale >= T(1) ? T(1) / scale : T(1);
  std::vector<T> w(static_cast<size_t>(in_size * out_size), T(0));
  for (int64_t i = 0; i < out_size; ++i) {
    const T center = static_cast<T>(scale * (static_cast<double>(i) + 0.5));
    const int64_t first = std::max(static_cast<int64_t>(center - support + 0.5), int64_t{0});
    const int64_t count = std::clamp(std::min(static_cast<int64_t>(center + support + 0.5), in_size) - first, int64_t{0}, max_taps);
    T total(0);
    T* row = w.data() + i * in_size;
    for (int64_t j = 0; j < count; ++j) {
      row[first + j] = lanczos3(static_cast<T>((static_cast<T>(j + first) - center + 0.5) * invscale));
      total += row[first + j];
    }
    if (total != T(0))
      for (int64_t j = 0; j < count; ++j) row[first + j] /= total;
  }
  return w;
}

// The weights of one axis as an ONNX constant of `type` (float or double), shaped [out, in], or
// [in, out] when `transposed` (the width's, multiplied from the right).
std::string weight_matrix(EmitContext& ctx, int64_t in_size, int64_t out_size, std::optional<double> scale_factor, DType type,
                          bool transposed, const std::string& base) {
  onnx::TensorProto t;
  t.add_dims(transposed ? in_size : out_size);
  t.add_dims(transposed ? out_size : in_size);
  auto fill = [&](const auto& w, auto add) {
    for (int64_t r = 0; r < t.dims(0); ++r)
      for (int64_t c = 0; c < t.dims(1); ++c) add(w[static_cast<size_t>(transposed ? c * in_size + r : r * in_size + c)]);
  };
  if (type == DType::kFloat64) {
    t.set_data_type(onnx::TensorProto_DataType_DOUBLE);
    fill(axis_weights<double>(in_size, out_size, scale_factor), [&](double v) { t.add_double_data(v); });
  } else {
    t.set_data_type(onnx::TensorProto_DataType_FLOAT);
    fill(axis_weights<float>(in_size, out_size, scale_factor), [&](float v) { t.add_float_data(v); });
  }
  return ctx.const_tensor(std::move(t), base);
}

// _upsample_lanczos2d_aa(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None,
//   float? scales_w=None) -> Tensor, and .vec(Tensor input, SymInt[]? output_size, bool align_corners,
//   float[]? scale_factors). align_corners=True is refused (F.interpolate refuses it too).
RuleResult aten_upsample_lanczos2d_aa(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!args.bool_or("align_corners", false), ErrorCode::kUnsupported, "lanczos interpolation with align_corners=True");
  const std::string input_name = node.input("input") ? "input" : "self";
  const DType type = args.dtype_of(input_name);
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported,
                "lanczos interpolation of a " + std::string(ir::dtype_name(type)) + " tensor (torch's uint8 path rounds fixed-point weights)");
  const ir::TensorMeta& in = args.meta(input_name);
  const ir::TensorMeta* out = args.out_meta(0);
  PT2ONNX_CHECK(in.sizes.size() == 4 && out && out->sizes.size() == 4, ErrorCode::kUnsupported, "lanczos interpolation of a tensor that is not 4-D");
  std::optional<double> factors[2];
  if (args.has("scale_factors")) {
    const std::vector<double> f = args.floats("scale_factors");
    for (size_t d = 0; d < 2 && d < f.size(); ++d) factors[d] = f[d];
  }
  if (args.has("scales_h")) factors[0] = args.get_float("scales_h");
  if (args.has("scales_w")) factors[1] = args.get_float("scales_w");
  const DType compute = type == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  std::string x = cast_if_needed(ctx, args.tensor(input_name), type, compute);
  for (int axis = 3; axis >= 2; --axis) {
    const ir::Dim& from = in.sizes[static_cast<size_t>(axis)];
    const ir::Dim& to = out->sizes[static_cast<size_t>(axis)];
    PT2ONNX_CHECK(from.is_static() && to.is_static(), ErrorCode::kUnsupported, "lanczos interpolation with a symbolic height or width");
    if (from.as_int() == to.as_int()) continue;
    const bool width = axis == 3;
    const std::string w = weight_matrix(ctx, from.as_int(), to.as_int(), factors[axis - 2], compute, width, node.name + "_lanczos_weights");
    x = width ? ctx.emit("MatMul", {x, w}) : ctx.emit("MatMul", {w, x});
  }
  return emitted(ctx, cast_if_needed(ctx, x, compute, type));
}

}  // namespace

void register_lanczos_rules(RuleTable& t) {
  t.add("aten._upsample_lanczos2d_aa.default", aten_upsample_lanczos2d_aa);
  t.add("aten._upsample_lanczos2d_aa.vec", aten_upsample_lanczos2d_aa);
}

}  // namespace pt2onnx::translate
