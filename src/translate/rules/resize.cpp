// Resampling rules: upsample_{nearest,linear,bilinear,bicubic,trilinear}*d become ONNX Resize with
// the coordinate mapping torch uses (asymmetric+floor for nearest, pytorch_half_pixel or
// align_corners for the interpolating modes, cubic coefficient -0.75); antialiased bilinear/bicubic
// (F.interpolate(antialias=True)) as Resize(antialias=1) from opset 18; grid_sampler as GridSample.
#include <cmath>
#include <limits>
#include <optional>

#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

enum class Interpolation { kNearest, kNearestExact, kLinear, kCubic };

std::vector<Attr> resize_attributes(Interpolation mode, bool align_corners) {
  switch (mode) {
    case Interpolation::kNearest:
      return {Attr("mode", "nearest"), Attr("coordinate_transformation_mode", "asymmetric"), Attr("nearest_mode", "floor")};
    case Interpolation::kNearestExact:
      return {Attr("mode", "nearest"), Attr("coordinate_transformation_mode", "half_pixel"),
              Attr("nearest_mode", "round_prefer_ceil")};
    case Interpolation::kLinear:
      return {Attr("mode", "linear"), Attr("coordinate_transformation_mode", align_corners ? "align_corners" : "pytorch_half_pixel")};
    case Interpolation::kCubic:
      return {Attr("mode", "cubic"), Attr("cubic_coeff_a", -0.75),
              Attr("coordinate_transformation_mode", align_corners ? "align_corners" : "pytorch_half_pixel")};
  }
  return {};
}

// A scale factor as the float Resize takes, rounded up: Resize sizes its output floor(in * scale)
// in float, torch floor(in * scale) in double, and 0.9 rounded to nearest float (0.89999998)
// would give 20 * 0.9 = 17 elements where torch has 18. The coordinate mapping moves by at most
// one ulp of the scale.
float scale_as_float(double factor) {
  float f = static_cast<float>(factor);
  if (static_cast<double>(f) < factor) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

// Resize by explicit output sizes (output_size) or by scale factors (scale_factors, or the
// per-dim scales_h/w of the .default overloads when the sizes are absent).
RuleResult emit_resize(EmitContext& ctx, const ir::Node& node, Interpolation mode) {
  ArgReader args(ctx, node);
  const std::string input_name = node.input("input") ? "input" : "self";
  const std::string x = args.tensor(input_name);
  const bool align_corners = args.bool_or("align_corners", false);
  const std::vector<Attr> attrs = resize_attributes(mode, align_corners);
  if (args.has("output_size")) {
    const std::string sizes = ctx.concat({ctx.shape_slice(x, 0, 2), args.ints_value("output_size")}, 0);
    return emitted(ctx, ctx.emit("Resize", {x, "", "", sizes}, attrs));
  }
  PT2ONNX_CHECK(args.has("scale_factors"), ErrorCode::kUnsupported, "resize with neither output sizes nor scale factors");
  std::vector<float> scales = {1.0f, 1.0f};
  for (double f : args.floats("scale_factors")) scales.push_back(scale_as_float(f));
  onnx::TensorProto tensor;
  tensor.set_data_type(onnx::TensorProto_DataType_FLOAT);
  tensor.add_dims(static_cast<int64_t>(scales.size()));
  for (float f : scales) tensor.add_float_data(f);
  return emitted(ctx, ctx.emit("Resize", {x, "", ctx.const_tensor(tensor, node.name + "_scales")}, attrs));
}

// upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor; 1d/3d, .default
RuleResult aten_upsample_nearest(EmitContext& ctx, const ir::Node& node) { return emit_resize(ctx, node, Interpolation::kNearest); }
// _upsample_nearest_exact2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor; 1d/3d,
// .default (Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None)
RuleResult aten_upsample_nearest_exact(EmitContext& ctx, const ir::Node& node) {
  return emit_resize(ctx, node, Interpolation::kNearestExact);
}
// upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor;
// linear1d, trilinear3d, .default
RuleResult aten_upsample_linear(EmitContext& ctx, const ir::Node& node) { return emit_resize(ctx, node, Interpolation::kLinear); }
// upsample_bicubic2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor
RuleResult aten_upsample_bicubic(EmitContext& ctx, const ir::Node& node) { return emit_resize(ctx, node, Interpolation::kCubic); }

// A 1-D float Resize scales constant [1, 1, factors...].
std::string scales_constant(EmitContext& ctx, const std::vector<double>& factors, const std::string& base) {
  onnx::TensorProto tensor;
  tensor.set_data_type(onnx::TensorProto_DataType_FLOAT);
  tensor.add_dims(static_cast<int64_t>(factors.size() + 2));
  tensor.add_float_data(1.0f);
  tensor.add_float_data(1.0f);
  for (double f : factors) tensor.add_float_data(scale_as_float(f));
  return ctx.const_tensor(tensor, base);
}

// _upsample_bilinear2d_aa.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors)
// and .default(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None);
// _upsample_bicubic2d_aa alike. torch's antialiased filter is ONNX Resize with antialias=1, half_pixel
// centres, taps outside the input dropped and the weights renormalised (exclude_outside=1), and
// cubic_coeff_a -0.5 (checked against torch: down- and upscaling, by sizes and by scale factors,
// within 6e-6). Given scale factors map coordinates by 1/scale, as torch's do. Declined:
// align_corners=True (ONNX's align_corners mapping with antialias differs from torch's: errors of
// 0.6 on unit-variance inputs; separable_filters.cpp computes torch's weights instead). Refused:
// opsets below 18 (Resize has no antialias before).
RuleResult upsample_aa(EmitContext& ctx, const ir::Node& node, Interpolation mode) {
  ArgReader args(ctx, node);
  if (args.bool_or("align_corners", false)) return RuleResult::kDeclined;
  PT2ONNX_CHECK(ctx.opset() >= 18, ErrorCode::kUnsupported,
                "antialiased interpolation (" + node.target + ") needs opset 18 (Resize antialias), asked for " +
                    std::to_string(ctx.opset()));
  const std::string input_name = node.input("input") ? "input" : "self";
  const std::string x = args.tensor(input_name);
  std::vector<Attr> attrs = {Attr("mode", mode == Interpolation::kCubic ? "cubic" : "linear"), Attr("antialias", int64_t{1}),
                             Attr("exclude_outside", int64_t{1}), Attr("coordinate_transformation_mode", "half_pixel")};
  if (mode == Interpolation::kCubic) attrs.push_back(Attr("cubic_coeff_a", -0.5));
  std::optional<std::vector<double>> factors;
  if (args.has("scale_factors")) factors = args.floats("scale_factors");
  else if (args.has("scales_h") && args.has("scales_w")) factors = std::vector<double>{args.get_float("scales_h"), args.get_float("scales_w")};
  if (factors) {
    // Where each scaled size is a whole number (20 * 0.9), the sizes themselves: Resize then
    // derives the scale from them instead of from the float rounding of the factor.
    const ir::TensorMeta& meta = args.meta(input_name);
    std::vector<int64_t> sizes;
    for (size_t i = 0; i < factors->size() && i + 2 < meta.sizes.size(); ++i) {
      const auto& d = meta.sizes[i + 2];
      const double scaled = d.is_static() ? static_cast<double>(d.as_int()) * (*factors)[i] : -1;
      if (scaled < 0 || scaled != std::floor(scaled)) break;
      sizes.push_back(static_cast<int64_t>(scaled));
    }
    if (sizes.size() == factors->size())
      return emitted(ctx, ctx.emit("Resize", {x, "", "", ctx.concat({ctx.shape_slice(x, 0, 2), ctx.const_i64s(sizes)}, 0)}, attrs));
    return emitted(ctx, ctx.emit("Resize", {x, "", scales_constant(ctx, *factors, node.name + "_scales")}, attrs));
  }
  PT2ONNX_CHECK(args.has("output_size"), ErrorCode::kUnsupported, "resize with neither output sizes nor scale factors");
  const std::string sizes = ctx.concat({ctx.shape_slice(x, 0, 2), args.ints_value("output_size")}, 0);
  return emitted(ctx, ctx.emit("Resize", {x, "", "", sizes}, attrs));
}
RuleResult aten_upsample_bilinear2d_aa(EmitContext& ctx, const ir::Node& node) { return upsample_aa(ctx, node, Interpolation::kLinear); }
RuleResult aten_upsample_bicubic2d_aa(EmitContext& ctx, const ir::Node& node) { return upsample_aa(ctx, node, Interpolation::kCubic); }

// grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners)
// -> Tensor; grid_sampler.default alike (also 5-D from opset 20). torch numbers the modes
// (0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection); GridSample names
// them, and opset 20 renamed bilinear/bicubic to linear/cubic.
RuleResult grid_sample(EmitContext& ctx, const ir::Node& node, bool opset20_names) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("input");
  if (rank != 4 && !opset20_names) return RuleResult::kDeclined;
  PT2ONNX_CHECK(rank == 4 || rank == 5, ErrorCode::kUnsupported, "grid sampling of a rank-" + std::to_string(rank) + " input");
  const int64_t interpolation = args.get_int("interpolation_mode"), padding = args.get_int("padding_mode");
  PT2ONNX_CHECK(interpolation >= 0 && interpolation <= 2, ErrorCode::kUnsupported,
                "grid sampling interpolation_mode " + std::to_string(interpolation));
  PT2ONNX_CHECK(padding >= 0 && padding <= 2, ErrorCode::kUnsupported, "grid sampling padding_mode " + std::to_string(padding));
  PT2ONNX_CHECK(rank == 4 || interpolation != 2, ErrorCode::kUnsupported, "bicubic grid sampling of a 5-D input");
  const char* modes_16[] = {"bilinear", "nearest", "bicubic"};
  const char* modes_20[] = {"linear", "nearest", "cubic"};
  const char* paddings[] = {"zeros", "border", "reflection"};
  const char* mode = opset20_names ? modes_20[interpolation] : modes_16[interpolation];
  return emitted(ctx, ctx.emit("GridSample", {args.tensor("input"), args.tensor("grid")},
                               {Attr("mode", mode), Attr("padding_mode", paddings[padding]),
                                Attr("align_corners", args.get_bool("align_corners") ? 1 : 0)}));
}
RuleResult aten_grid_sampler_opset20(EmitContext& ctx, const ir::Node& node) { return grid_sample(ctx, node, true); }
RuleResult aten_grid_sampler(EmitContext& ctx, const ir::Node& node) { return grid_sample(ctx, node, false); }

// affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor: ONNX
// AffineGrid (opset 20), which takes the same arguments (2-D and 3-D grids).
RuleResult aten_affine_grid_generator(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("AffineGrid", {args.tensor("theta"), args.ints_value("size")},
                               {Attr("align_corners", args.get_bool("align_corners") ? 1 : 0)}));
}

}  // namespace

void register_resize_rules(RuleTable& t) {
  for (const char* target : {"aten.upsample_nearest1d.vec", "aten.upsample_nearest2d.vec", "aten.upsample_nearest3d.vec",
                             "aten.upsample_nearest1d.default", "aten.upsample_nearest2d.default", "aten.upsample_nearest3d.default"})
    t.add(target, aten_upsample_nearest);
  for (const char* target : {"aten._upsample_nearest_exact1d.vec", "aten._upsample_nearest_exact2d.vec", "aten._upsample_nearest_exact3d.vec",
                             "aten._upsample_nearest_exact1d.default", "aten._upsample_nearest_exact2d.default",
                             "aten._upsample_nearest_exact3d.default"})
    t.add(target, aten_upsample_nearest_exact);
  for (const char* target : {"aten.upsample_linear1d.vec", "aten.upsample_bilinear2d.vec", "aten.upsample_trilinear3d.vec",
                             "aten.upsample_linear1d.default", "aten.upsample_bilinear2d.default", "aten.upsample_trilinear3d.default"})
    t.add(target, aten_upsample_linear);
  t.add("aten.upsample_bicubic2d.vec", aten_upsample_bicubic);
  t.add("aten.upsample_bicubic2d.default", aten_upsample_bicubic);
  for (const char* target : {"aten._upsample_bilinear2d_aa.vec", "aten._upsample_bilinear2d_aa.default"})
    t.add(target, aten_upsample_bilinear2d_aa);
  for (const char* target : {"aten._upsample_bicubic2d_aa.vec", "aten._upsample_bicubic2d_aa.default"})
    t.add(target, aten_upsample_bicubic2d_aa);
  t.add_since(20, "aten.grid_sampler_2d.default", aten_grid_sampler_opset20);
  t.add("aten.grid_sampler_2d.default", aten_grid_sampler);
  t.add_since(20, "aten.grid_sampler.default", aten_grid_sampler_opset20);
  t.add("aten.grid_sampler.default", aten_grid_sampler, "5-D grid sampling needs opset 20");
  t.add_since(20, "aten.affine_grid_generator.default", aten_affine_grid_generator);
}

}  // namespace pt2onnx::translate
