// Codegen rule for Resize in the forms torch's upsampling makes (translate/rules/resize.cpp):
// nearest with asymmetric coordinates and floor, and linear with pytorch_half_pixel or
// align_corners coordinates. Each output element reads its source index (nearest) or blends the
// 2^n neighbours over the n resized axes (linear), with source coordinates computed in float the
// way torch computes them: the scale is input/output size, or 1/factor where Resize is given
// scale factors.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

namespace {

enum class Coordinates { kAsymmetric, kPytorchHalfPixel, kAlignCorners };

struct ResizedAxis {
  size_t axis;
  std::string in_c, out_c;  // the input's and the output's length along it
  std::string scale_c;      // float: source units per output unit (empty: in/out)
};

// The output shape, and the resized axes with how their coordinates scale.
std::vector<ResizedAxis> resized_axes(OpContext& ctx, const Value& x, std::vector<SymExpr>& shape) {
  const size_t r = x.shape.size();
  std::vector<ResizedAxis> axes;
  if (!ctx.input(3).empty()) {
    shape = ctx.known_ints(3, "sizes");
    if (shape.size() != r) ctx.unsupported("sizes of another rank than the input");
    for (size_t a = 0; a < r; ++a)
      if (!same_dim(shape[a], x.shape[a])) axes.push_back({a, to_c(x.shape[a]), to_c(shape[a]), ""});
    return axes;
  }
  const std::string scales = ctx.input(2);
  if (scales.empty() || !ctx.value(scales).floats) ctx.unsupported("scales that are not a known constant");
  const std::vector<double> factors = *ctx.value(scales).floats;
  if (factors.size() != r) ctx.unsupported("scales of another rank than the input");
  shape = x.shape;
  for (size_t a = 0; a < r; ++a) {
    const double f = static_cast<double>(static_cast<float>(factors[a]));
    if (f == 1.0) continue;
    if (const auto n = const_value(x.shape[a])) {
      shape[a] = ir::sym_int(static_cast<int64_t>(std::floor(static_cast<double>(*n) * f)));
    } else if (f == std::floor(f)) {
      shape[a] = ir::sym_apply(ir::SymOp::kMul, {x.shape[a], ir::sym_int(static_cast<int64_t>(f))});
    } else {
      ctx.unsupported("a fractional scale of a symbolic dimension");
    }
    axes.push_back({a, to_c(x.shape[a]), to_c(shape[a]), float_literal(static_cast<double>(static_cast<float>(1.0 / f)))});
  }
  return axes;
}

void resize(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  if (!is_float_dtype(x.dtype)) ctx.unsupported("resizing values that are not floating point");
  if (ctx.attr_int("antialias", 0) != 0) ctx.unsupported("antialias");
  const std::string mode = ctx.attr_string("mode", "nearest");
  const std::string coords = ctx.attr_string("coordinate_transformation_mode", "half_pixel");
  Coordinates c = Coordinates::kAsymmetric;
  if (mode == "nearest") {
    if (coords != "asymmetric" || ctx.attr_string("nearest_mode", "round_prefer_floor") != "floor")
      ctx.unsupported("nearest other than asymmetric with floor (torch's nearest)");
  } else if (mode == "linear") {
    if (coords == "pytorch_half_pixel") c = Coordinates::kPytorchHalfPixel;
    else if (coords == "align_corners") c = Coordinates::kAlignCorners;
    else ctx.unsupported("linear with " + coords + " coordinates");
  } else {
    ctx.unsupported("mode " + mode);
  }
  Value v;
  v.dtype = x.dtype;
  const std::vector<ResizedAxis> axes = resized_axes(ctx, x, v.shape);
  if (mode == "linear" && axes.size() > 3) ctx.unsupported("linear over more than three axes");
  const bool linear = mode == "linear";
  v.load = [g = &ctx.gen, src = ctx.input(0), axes, c, linear](Body& b, const Idx& idx) {
    Idx lo = idx, hi = idx;
    std::vector<std::string> w_hi;
    for (const ResizedAxis& ra : axes) {
      const std::string& o = idx[ra.axis];
      const std::string last = "(" + ra.in_c + " - 1)";
      const std::string scale =
          c == Coordinates::kAlignCorners
              ? b.let("float", "(" + ra.out_c + " > 1 ? (float)" + last + " / (float)(" + ra.out_c + " - 1) : 0.0f)")
              : b.let("float", ra.scale_c.empty() ? "((float)" + ra.in_c + " / (float)" + ra.out_c + ")" : ra.scale_c);
      if (!linear) {
        const std::string i = b.let("long long", "(long long)floorf((float)" + o + " * " + scale + ")");
        lo[ra.axis] = b.let("long long", "(" + i + " < " + last + " ? " + i + " : " + last + ")");
        continue;
      }
      std::string s = c == Coordinates::kAlignCorners ? "(" + scale + " * (float)" + o + ")"
                                                       : "(" + ra.out_c + " > 1 ? " + scale + " * ((float)" + o + " + 0.5f) - 0.5f : 0.0f)";
      s = b.let("float", "fmaxf(" + s + ", 0.0f)");
      lo[ra.axis] = b.let("long long", "(long long)" + s);
      hi[ra.axis] = b.let("long long", "(" + lo[ra.axis] + " < " + last + " ? " + lo[ra.axis] + " + 1 : " + lo[ra.axis] + ")");
      w_hi.push_back(b.let("float", s + " - (float)" + lo[ra.axis]));
    }
    if (!linear) return g->load(b, src, lo);
    std::string sum;
    for (size_t corner = 0; corner < (size_t{1} << axes.size()); ++corner) {
      Idx at = lo;
      std::string weight;
      for (size_t k = 0; k < axes.size(); ++k) {
        const bool upper = (corner >> k) & 1;
        if (upper) at[axes[k].axis] = hi[axes[k].axis];
        weight += (weight.empty() ? "" : " * ") + (upper ? w_hi[k] : "(1.0f - " + w_hi[k] + ")");
      }
      sum += (sum.empty() ? "" : " + ") + weight + " * " + g->load(b, src, at);
    }
    return b.let("float", sum);
  };
  ctx.gen.define(ctx.out, std::move(v));
}

}  // namespace

void register_resize_op_rules(OpRuleTable& t) { t.add("Resize", resize); }

}  // namespace pt2onnx::kernels::detail
