// Codegen rules for constants and shape values: their contents stay known (small integer
// tensors as symbolic expressions, scalars as literals) so views and kernels can fold them.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.h"
#include "ir/onnx_dtype.h"
#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

namespace {

using onnx::TensorProto;

// Contents of a TensorProto: exact integers for integer/bool tensors, doubles for floats.
struct Constant {
  int dtype = 0;
  std::vector<SymExpr> shape;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};

double half_to_double(uint16_t h, bool bf16) {
  if (bf16) {
    const uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  const int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v = exp == 0 ? std::ldexp(man, -24) : exp == 31 ? (man ? NAN : INFINITY) : std::ldexp(man + 1024, exp - 25);
  return sign ? -v : v;
}

Constant read_tensor(const TensorProto& t) {
  Constant c;
  c.dtype = t.data_type();
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    c.shape.push_back(ir::sym_int(d));
    n *= d;
  }
  PT2ONNX_CHECK(t.data_location() != TensorProto::EXTERNAL, ErrorCode::kUnsupported, "--compile: external constant");
  const std::string& raw = t.raw_data();
  auto raw_at = [&](size_t bytes, int64_t i, void* out) {
    PT2ONNX_CHECK(raw.size() >= static_cast<size_t>(n) * bytes, ErrorCode::kUnsupported, "--compile: short constant");
    std::memcpy(out, raw.data() + static_cast<size_t>(i) * bytes, bytes);
  };
  for (int64_t i = 0; i < n; ++i) {
    switch (c.dtype) {
      case TensorProto::FLOAT: {
        float f;
        if (!raw.empty()) raw_at(4, i, &f); else f = t.float_data(static_cast<int>(i));
        c.floats.push_back(f);
        break;
      }
      case TensorProto::DOUBLE: {
        double d;
        if (!raw.empty()) raw_at(8, i, &d); else d = t.double_data(static_cast<int>(i));
        c.floats.push_back(d);
        break;
      }
      case TensorProto::FLOAT16: case TensorProto::BFLOAT16: {
        uint16_t h;
        if (!raw.empty()) raw_at(2, i, &h); else h = static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
        c.floats.push_back(half_to_double(h, c.dtype == TensorProto::BFLOAT16));
        break;
      }
      case TensorProto::INT64: {
        int64_t v;
        if (!raw.empty()) raw_at(8, i, &v); else v = t.int64_data(static_cast<int>(i));
        c.ints.push_back(v);
        break;
      }
      case TensorProto::INT32: {
        int32_t v;
        if (!raw.empty()) raw_at(4, i, &v); else v = t.int32_data(static_cast<int>(i));
        c.ints.push_back(v);
        break;
      }
      case TensorProto::BOOL: {
        uint8_t v;
        if (!raw.empty()) raw_at(1, i, &v); else v = static_cast<uint8_t>(t.int32_data(static_cast<int>(i)));
        c.ints.push_back(v != 0);
        break;
      }
      default:
        fail(ErrorCode::kUnsupported, "--compile: constant of dtype " + ir::onnx_type_name(c.dtype));
    }
  }
  return c;
}

void constant(OpContext& ctx) {
  Constant c;
  if (const auto* a = ctx.attr("value")) c = read_tensor(a->t());
  else if (const auto* f = ctx.attr("value_float")) c = {TensorProto::FLOAT, {}, {}, {f->f()}};
  else if (const auto* i = ctx.attr("value_int")) c = {TensorProto::INT64, {}, {i->i()}, {}};
  else if (const auto* is = ctx.attr("value_ints")) {
    c = {TensorProto::INT64, {ir::sym_int(is->ints_size())}, {is->ints().begin(), is->ints().end()}, {}};
  } else if (const auto* fs = ctx.attr("value_floats")) {
    c = {TensorProto::FLOAT, {ir::sym_int(fs->floats_size())}, {}, {fs->floats().begin(), fs->floats().end()}};
  } else {
    ctx.unsupported("constant form");
  }
  Value v;
  v.dtype = c.dtype;
  v.shape = c.shape;
  const std::vector<SymExpr> shape = c.shape;
  if (!c.ints.empty() || (c.floats.empty() && is_int_dtype(c.dtype))) {
    std::vector<SymExpr> e;
    for (int64_t x : c.ints) e.push_back(ir::sym_int(x));
    if (e.size() <= 4096) {
      v.ints = e;
      if (c.dtype == TensorProto::BOOL) {
        v.load = [e, shape](Body& b, const Idx& idx) { return "(" + known_ints_loader(e, shape)(b, idx) + " != 0)"; };
        v.ints.reset();
      } else {
        v.load = known_ints_loader(e, shape);
      }
    }
  } else {
    v.floats = c.floats;
    if (c.floats.size() == 1) {
      const std::string lit = float_literal(c.floats[0]);
      v.load = [lit](Body&, const Idx&) { return lit; };
    } else {
      const std::string arr = ctx.gen.renderer().constant_array(c.floats, false);
      v.load = [arr, shape](Body& b, const Idx& idx) { return b.let("float", "__uint_as_float(" + arr + "[" + linear_index(idx, shape) + "])"); };
    }
  }
  if (!v.load) ctx.unsupported("constant too large");
  ctx.gen.define(ctx.out, std::move(v));
}

void shape(OpContext& ctx) {
  const auto& s = ctx.value(ctx.input(0)).shape;
  const int64_t r = static_cast<int64_t>(s.size());
  int64_t start = ctx.attr_int("start", 0), end = ctx.attr_int("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, start, r);
  std::vector<SymExpr> ints(s.begin() + start, s.begin() + end);
  Value v;
  v.dtype = TensorProto::INT64;
  v.shape = {ir::sym_int(static_cast<int64_t>(ints.size()))};
  v.ints = ints;
  v.load = known_ints_loader(ints, v.shape);
  ctx.gen.define(ctx.out, std::move(v));
}

void constant_of_shape(OpContext& ctx) {
  std::vector<SymExpr> shape = ctx.known_ints(0, "shape");
  Constant c{TensorProto::FLOAT, {}, {}, {0.0}};
  if (const auto* a = ctx.attr("value")) c = read_tensor(a->t());
  Value v;
  v.dtype = c.dtype;
  v.shape = shape;
  std::string lit;
  if (!c.floats.empty()) lit = float_literal(c.floats[0]);
  else if (c.dtype == TensorProto::BOOL) lit = c.ints[0] ? "true" : "false";
  else lit = "(" + std::to_string(c.ints[0]) + "LL)";
  v.load = [lit](Body&, const Idx&) { return lit; };
  ctx.gen.define(ctx.out, std::move(v));
}

void range(OpContext& ctx) {
  const Value& s = ctx.value(ctx.input(0));
  const int dtype = s.dtype;
  std::vector<SymExpr> shape;
  if (is_int_dtype(dtype)) {
    const auto start = ctx.known_ints(0, "start")[0], limit = ctx.known_ints(1, "limit")[0], delta = ctx.known_ints(2, "delta")[0];
    const auto d = const_value(delta);
    if (!d || *d <= 0) ctx.unsupported("delta must be a positive constant");
    SymExpr n = ir::sym_apply(ir::SymOp::kCeilDiv, {ir::sym_apply(ir::SymOp::kAdd, {limit, ir::sym_apply(ir::SymOp::kNeg, {start})}), delta});
    Value v;
    v.dtype = dtype;
    v.shape = {n};
    const std::string cs = to_c(start), cd = to_c(delta);
    v.load = [cs, cd](Body& b, const Idx& idx) { return b.let("long long", cs + " + " + idx[0] + " * " + cd); };
    ctx.gen.define(ctx.out, std::move(v));
  } else {
    const auto start = ctx.known_float(ctx.input(0)), limit = ctx.known_float(ctx.input(1)), delta = ctx.known_float(ctx.input(2));
    if (!start || !limit || !delta || *delta == 0) ctx.unsupported("float range bounds must be constants");
    const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((*limit - *start) / *delta)));
    Value v;
    v.dtype = dtype;
    v.shape = {ir::sym_int(n)};
    const std::string cs = float_literal(*start), cd = float_literal(*delta);
    v.load = [cs, cd](Body& b, const Idx& idx) { return b.let("float", cs + " + (float)" + idx[0] + " * " + cd); };
    ctx.gen.define(ctx.out, std::move(v));
  }
}

}  // namespace

void register_constant_op_rules(OpRuleTable& t) {
  t.add("Constant", constant);
  t.add("Shape", shape);
  t.add("ConstantOfShape", constant_of_shape);
  t.add("Range", range);
}

}  // namespace pt2onnx::kernels::detail
