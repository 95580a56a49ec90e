// torch's antialiased separable filters where ONNX Resize has no counterpart: Lanczos-3
// (_upsample_lanczos2d_aa, which Resize lacks) and the bilinear and bicubic filters with
// align_corners=True (Resize's align_corners mapping under antialias differs from torch's). For
// static sizes, each axis's [out, in] weight matrix is computed here as torch's CPU kernel computes
// it, in the input's floating type, and the image is resampled as W_h . x . W_w^T by MatMul.
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

template <typename T>
T triangle(T x) {
  x = std::abs(x);
  return x < T(1) ? T(1) - x : T(0);
}

// Keys' cubic with a = -0.5, as torch's antialiased bicubic (Pillow's) takes it.
template <typename T>
T cubic_half(T x) {
  constexpr T a = T(-0.5);
  x = std::abs(x);
  if (x < T(1)) return ((a + T(2)) * x - (a + T(3))) * x * x + T(1);
  if (x < T(2)) return (((x - T(5)) * x + T(8)) * x - T(4)) * a;
  return T(0);
}

// A filter of torch's antialiased kernels: its function and its taps (twice its support).
enum class Filter { kLanczos3, kTriangle, kCubic };

template <typename T>
T filter_value(Filter f, T x) {
  return f == Filter::kLanczos3 ? lanczos3(x) : f == Filter::kTriangle ? triangle(x) : cubic_half(x);
}

int filter_taps(Filter f) { return f == Filter::kLanczos3 ? 6 : f == Filter::kTriangle ? 2 : 4; }

// How one axis maps output to input coordinates, as torch's area_pixel_compute_scale decides:
// with align_corners (in - 1) / (out - 1) (0 for one output), else 1 / scale_factor when one is
// given, else in / out.
struct AxisMapping {
  int64_t in_size = 0, out_size = 0;
  std::optional<double> scale_factor;
  bool align_corners = false;
};

template <typename T>
T axis_scale(const AxisMapping& m) {
  if (m.align_corners)
    return m.out_size > 1 ? static_cast<T>(m.in_size - 1) / static_cast<T>(m.out_size - 1) : T(0);
  return m.scale_factor && *m.scale_factor > 0 ? static_cast<T>(1.0 / *m.scale_factor)
                                               : static_cast<T>(m.in_size) / static_cast<T>(m.out_size);
}

// Row-major [out_size, in_size] weights of one axis, in T as torch's CPU kernel computes them
// (Pillow's scheme: output i centred at scale * (i + 0.5), a support widened by the scale when
// downsampling, taps clipped to the input and renormalised).
template <typename T>
std::vector<T> axis_weights(const AxisMapping& m, Filter filter) {
  const int64_t in_size = m.in_size, out_size = m.out_size;
  const T scale = axis_scale<T>(m);
  const int taps = filter_taps(filter);
  const T support = scale >= T(1) ? static_cast<T>(taps * 0.5) * scale : static_cast<T>(taps * 0.5);
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
      row[first + j] = filter_value(filter, static_cast<T>((static_cast<T>(j + first) - center + 0.5) * invscale));
      total += row[first + j];
    }
    if (total != T(0))
      for (int64_t j = 0; j < count; ++j) row[first + j] /= total;
  }
  return w;
}

// The weights of one axis as an ONNX constant of `type` (float or double), shaped [out, in], or
// [in, out] when `transposed` (the width's, multiplied from the right).
std::string weight_matrix(EmitContext& ctx, const AxisMapping& m, Filter filter, DType type, bool transposed,
                          const std::string& base) {
  onnx::TensorProto t;
  t.add_dims(transposed ? m.in_size : m.out_size);
  t.add_dims(transposed ? m.out_size : m.in_size);
  auto fill = [&](const auto& w, auto add) {
    for (int64_t r = 0; r < t.dims(0); ++r)
      for (int64_t c = 0; c < t.dims(1); ++c) add(w[static_cast<size_t>(transposed ? c * m.in_size + r : r * m.in_size + c)]);
  };
  if (type == DType::kFloat64) {
    t.set_data_type(onnx::TensorProto_DataType_DOUBLE);
    fill(axis_weights<double>(m, filter), [&](double v) { t.add_double_data(v); });
  } else {
    t.set_data_type(onnx::TensorProto_DataType_FLOAT);
    fill(axis_weights<float>(m, filter), [&](float v) { t.add_float_data(v); });
  }
  return ctx.const_tensor(std::move(t), base);
}

// A 4-D image resampled along height and width by `filter` as W_h . x . W_w^T (MatMul), in float
// (double for double inputs); an axis whose size does not change is left alone, as torch's
// kernel leaves it. Needs static heights and widths.
RuleResult resample_by_matrices(EmitContext& ctx, const ir::Node& node, Filter filter, const char* what) {
  ArgReader args(ctx, node);
  const std::string input_name = node.input("input") ? "input" : "self";
  const DType type = args.dtype_of(input_name);
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported,
                std::string(what) + " of a " + std::string(ir::dtype_name(type)) + " tensor (torch's uint8 path rounds fixed-point weights)");
  const ir::TensorMeta& in = args.meta(input_name);
  const ir::TensorMeta* out = args.out_meta(0);
  PT2ONNX_CHECK(in.sizes.size() == 4 && out && out->sizes.size() == 4, ErrorCode::kUnsupported, std::string(what) + " of a tensor that is not 4-D");
  std::optional<double> factors[2];
  if (args.has("scale_factors")) {
    const std::vector<double> f = args.floats("scale_factors");
    for (size_t d = 0; d < 2 && d < f.size(); ++d) factors[d] = f[d];
  }
  if (args.has("scales_h")) factors[0] = args.get_float("scales_h");
  if (args.has("scales_w")) factors[1] = args.get_float("scales_w");
  const bool align_corners = args.bool_or("align_corners", false);
  const DType compute = type == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  std::string x = cast_if_needed(ctx, args.tensor(input_name), type, compute);
  for (int axis = 3; axis >= 2; --axis) {
    const ir::Dim& from = in.sizes[static_cast<size_t>(axis)];
    const ir::Dim& to = out->sizes[static_cast<size_t>(axis)];
    PT2ONNX_CHECK(from.is_static() && to.is_static(), ErrorCode::kUnsupported, std::string(what) + " with a symbolic height or width");
    if (from.as_int() == to.as_int()) continue;
    const bool width = axis == 3;
    const AxisMapping m{from.as_int(), to.as_int(), factors[axis - 2], align_corners};
    const std::string w = weight_matrix(ctx, m, filter, compute, width, node.name + "_filter_weights");
    x = width ? ctx.emit("MatMul", {x, w}) : ctx.emit("MatMul", {w, x});
  }
  return emitted(ctx, cast_if_needed(ctx, x, compute, type));
}

// _upsample_lanczos2d_aa(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None,
//   float? scales_w=None) -> Tensor, and .vec(Tensor input, SymInt[]? output_size, bool align_corners,
//   float[]? scale_factors). align_corners=True is refused (F.interpolate refuses it too).
RuleResult aten_upsample_lanczos2d_aa(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!args.bool_or("align_corners", false), ErrorCode::kUnsupported, "lanczos interpolation with align_corners=True");
  return resample_by_matrices(ctx, node, Filter::kLanczos3, "lanczos interpolation");
}

// _upsample_bilinear2d_aa and _upsample_bicubic2d_aa with align_corners=True: ONNX Resize's
// align_corners mapping under antialias is not torch's, so the weights are computed here (the
// Resize form in resize.cpp takes align_corners=False and declines this case).
RuleResult aten_upsample_bilinear2d_aa_corners(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!args.bool_or("align_corners", false)) return RuleResult::kDeclined;
  return resample_by_matrices(ctx, node, Filter::kTriangle, "antialiased bilinear interpolation");
}
RuleResult aten_upsample_bicubic2d_aa_corners(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!args.bool_or("align_corners", false)) return RuleResult::kDeclined;
  return resample_by_matrices(ctx, node, Filter::kCubic, "antialiased bicubic interpolation");
}

}  // namespace

void register_separable_filter_rules(RuleTable& t) {
  t.add("aten._upsample_lanczos2d_aa.default", aten_upsample_lanczos2d_aa);
  t.add("aten._upsample_lanczos2d_aa.vec", aten_upsample_lanczos2d_aa);
  for (const char* target : {"aten._upsample_bilinear2d_aa.default", "aten._upsample_bilinear2d_aa.vec"})
    t.add(target, aten_upsample_bilinear2d_aa_corners);
  for (const char* target : {"aten._upsample_bicubic2d_aa.default", "aten._upsample_bicubic2d_aa.vec"})
    t.add(target, aten_upsample_bicubic2d_aa_corners);
}

}  // namespace pt2onnx::translate
