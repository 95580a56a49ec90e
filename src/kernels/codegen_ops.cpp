// Per-op rules of the code generator: each ONNX node of a function body defines its outputs as
// lazily evaluated values (views, pointwise expressions, known small constants) or, for MatMul,
// Gemm, softmax, reductions and layer norm, as buffers written by a kernel.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/error.h"
#include "kernels/codegen_internal.h"
#include "kernels/expr.h"

namespace pt2onnx::kernels::detail {

namespace {

using onnx::TensorProto;

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t attr_int(const onnx::NodeProto& n, const char* name, int64_t fallback) {
  const auto* a = find_attr(n, name);
  return a ? a->i() : fallback;
}
float attr_float(const onnx::NodeProto& n, const char* name, float fallback) {
  const auto* a = find_attr(n, name);
  return a ? a->f() : fallback;
}
std::string attr_string(const onnx::NodeProto& n, const char* name, const std::string& fallback) {
  const auto* a = find_attr(n, name);
  return a ? a->s() : fallback;
}

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
        fail(ErrorCode::kUnsupported, "--compile: constant of dtype " + dtype_name(c.dtype));
    }
  }
  return c;
}

std::vector<SymExpr> broadcast_shapes(Generator& g, const onnx::NodeProto& node, const std::vector<std::vector<SymExpr>>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<SymExpr> out(rank, ir::sym_int(1));
  for (const auto& s : shapes)
    for (size_t j = 0; j < s.size(); ++j) {
      SymExpr& o = out[j + rank - s.size()];
      if (is_const(s[j], 1)) continue;
      if (is_const(o, 1)) o = s[j];
      else if (!same_dim(o, s[j]))
        g.unsupported(node, "shapes do not broadcast: " + ir::to_string(o) + " vs " + ir::to_string(s[j]));
    }
  return out;
}

// Loader of a tensor whose (small) contents are known integer expressions.
Loader known_ints_loader(const std::vector<SymExpr>& ints, const std::vector<SymExpr>& shape) {
  return [ints, shape](Body& b, const Idx& idx) {
    if (ints.size() == 1) return "(" + to_c(ints[0]) + ")";
    const std::string lin = b.let("long long", linear_index(idx, shape));
    std::string e = to_c(ints.back());
    for (size_t i = ints.size() - 1; i-- > 0;) e = "(" + lin + " == " + std::to_string(i) + " ? " + to_c(ints[i]) + " : " + e + ")";
    return e;
  };
}


// num / den when both are products whose factors cancel exactly ((32*a*b) / (16*a*b) = 2), which
// the symbolic simplifier leaves as a floor division; else floor(num / den).
SymExpr divide_exact(const SymExpr& num, const SymExpr& den) {
  auto factors = [](const SymExpr& e, int64_t& constant, std::vector<std::string>& keys, std::vector<SymExpr>& items) {
    const std::vector<SymExpr> parts = e->op == ir::SymOp::kMul ? e->args : std::vector<SymExpr>{e};
    for (const auto& p : parts) {
      if (p->op == ir::SymOp::kInt) constant *= p->value;
      else {
        keys.push_back(ir::to_string(p));
        items.push_back(p);
      }
    }
  };
  int64_t cn = 1, cd = 1;
  std::vector<std::string> kn, kd;
  std::vector<SymExpr> in, id;
  factors(num, cn, kn, in);
  factors(den, cd, kd, id);
  for (const auto& k : kd) {
    auto it = std::find(kn.begin(), kn.end(), k);
    if (it == kn.end() || cd == 0 || cn % cd != 0) return ir::sym_apply(ir::SymOp::kFloorDiv, {num, den});
    in.erase(in.begin() + (it - kn.begin()));
    kn.erase(it);
  }
  if (cd == 0 || cn % cd != 0) return ir::sym_apply(ir::SymOp::kFloorDiv, {num, den});
  in.push_back(ir::sym_int(cn / cd));
  return product(in);
}

}  // namespace

void Generator::visit(const onnx::NodeProto& node) {
  const std::string& op = node.op_type();
  auto input = [&](int i) -> std::string { return i < node.input_size() ? node.input(i) : std::string(); };
  if (node.output_size() == 0) unsupported(node, "no outputs");
  const std::string out = node.output(0);
  for (int i = 1; i < node.output_size(); ++i)
    if (!node.output(i).empty() && op != "LayerNormalization") unsupported(node, "more than one output");
  // Integer contents of an input that must be known (axes, perm, shapes).
  auto known_ints = [&](int i, const char* what) -> std::vector<SymExpr> {
    const std::string name = input(i);
    if (name.empty() || !value(name).ints) unsupported(node, std::string(what) + " is not a known constant");
    return *value(name).ints;
  };
  auto const_ints = [&](int i, const char* what) {
    std::vector<int64_t> v;
    for (const auto& e : known_ints(i, what)) {
      const auto c = const_value(e);
      if (!c) unsupported(node, std::string(what) + " is symbolic (" + ir::to_string(e) + ")");
      v.push_back(*c);
    }
    return v;
  };
  auto axes_from = [&](int input_index, const char* attr_name) -> std::optional<std::vector<int64_t>> {
    if (!input(input_index).empty()) return const_ints(input_index, "axes");
    if (const auto* a = find_attr(node, attr_name)) return std::vector<int64_t>(a->ints().begin(), a->ints().end());
    return std::nullopt;
  };
  auto norm_axis = [&](int64_t a, size_t rank) {
    const int64_t r = static_cast<int64_t>(rank);
    const int64_t axis = a < 0 ? a + r : a;
    if (axis < 0 || axis >= r) unsupported(node, "axis " + std::to_string(a) + " out of range for rank " + std::to_string(r));
    return static_cast<size_t>(axis);
  };
  // Defines `out` as a view of `src`: out index -> src index.
  auto define_view = [&](const std::string& src, std::vector<SymExpr> shape, std::function<Idx(Body&, const Idx&)> map,
                         std::optional<std::vector<SymExpr>> ints = std::nullopt) {
    Value v;
    v.dtype = value(src).dtype;
    v.shape = std::move(shape);
    v.ints = std::move(ints);
    if (v.ints) v.load = known_ints_loader(*v.ints, v.shape);
    else v.load = [this, src, map](Body& b, const Idx& idx) { return load(b, src, map(b, idx)); };
    define(out, std::move(v));
  };
  // Pointwise op over broadcast inputs; `expr` gets the operands' C expressions (compute types).
  auto pointwise = [&](const std::vector<std::string>& ins, int out_dtype,
                       std::function<std::string(const std::vector<std::string>&)> expr) {
    std::vector<std::vector<SymExpr>> shapes;
    for (const auto& i : ins) shapes.push_back(value(i).shape);
    Value v;
    v.dtype = out_dtype;
    v.shape = broadcast_shapes(*this, node, shapes);
    const std::vector<SymExpr> oshape = v.shape;
    v.load = [this, ins, shapes, oshape, out_dtype, expr](Body& b, const Idx& idx) {
      std::vector<std::string> args;
      for (size_t i = 0; i < ins.size(); ++i) args.push_back(load(b, ins[i], broadcast_index(idx, oshape, shapes[i])));
      return b.let(compute_type(out_dtype), expr(args));
    };
    define(out, std::move(v));
  };
  auto known_float = [&](const std::string& name) -> std::optional<double> {
    if (name.empty() || !has(name)) return std::nullopt;
    const Value& v = value(name);
    if (v.floats && v.floats->size() == 1) return (*v.floats)[0];
    return std::nullopt;
  };

  // ---- constants and shapes ----
  if (op == "Constant") {
    Constant c;
    if (const auto* a = find_attr(node, "value")) c = read_tensor(a->t());
    else if (const auto* f = find_attr(node, "value_float")) c = {TensorProto::FLOAT, {}, {}, {f->f()}};
    else if (const auto* i = find_attr(node, "value_int")) c = {TensorProto::INT64, {}, {i->i()}, {}};
    else if (const auto* is = find_attr(node, "value_ints")) {
      c = {TensorProto::INT64, {ir::sym_int(is->ints_size())}, {is->ints().begin(), is->ints().end()}, {}};
    } else if (const auto* fs = find_attr(node, "value_floats")) {
      c = {TensorProto::FLOAT, {ir::sym_int(fs->floats_size())}, {}, {fs->floats().begin(), fs->floats().end()}};
    } else {
      unsupported(node, "constant form");
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
        const std::string arr = constant_array(*this, c.floats, false);
        v.load = [arr, shape](Body& b, const Idx& idx) { return b.let("float", arr + "[" + linear_index(idx, shape) + "]"); };
      }
    }
    if (!v.load) unsupported(node, "constant too large");
    define(out, std::move(v));
    return;
  }
  if (op == "Shape") {
    const auto& s = value(input(0)).shape;
    const int64_t r = static_cast<int64_t>(s.size());
    int64_t start = attr_int(node, "start", 0), end = attr_int(node, "end", r);
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
    define(out, std::move(v));
    return;
  }
  if (op == "ConstantOfShape") {
    std::vector<SymExpr> shape = known_ints(0, "shape");
    Constant c{TensorProto::FLOAT, {}, {}, {0.0}};
    if (const auto* a = find_attr(node, "value")) c = read_tensor(a->t());
    Value v;
    v.dtype = c.dtype;
    v.shape = shape;
    std::string lit;
    if (!c.floats.empty()) lit = float_literal(c.floats[0]);
    else if (c.dtype == TensorProto::BOOL) lit = c.ints[0] ? "true" : "false";
    else lit = "(" + std::to_string(c.ints[0]) + "LL)";
    v.load = [lit](Body&, const Idx&) { return lit; };
    define(out, std::move(v));
    return;
  }
  if (op == "Range") {
    const Value& s = value(input(0));
    const int dtype = s.dtype;
    std::vector<SymExpr> shape;
    if (is_int_dtype(dtype)) {
      const auto start = known_ints(0, "start")[0], limit = known_ints(1, "limit")[0], delta = known_ints(2, "delta")[0];
      const auto d = const_value(delta);
      if (!d || *d <= 0) unsupported(node, "delta must be a positive constant");
      SymExpr n = ir::sym_apply(ir::SymOp::kCeilDiv, {ir::sym_apply(ir::SymOp::kAdd, {limit, ir::sym_apply(ir::SymOp::kNeg, {start})}), delta});
      Value v;
      v.dtype = dtype;
      v.shape = {n};
      const std::string cs = to_c(start), cd = to_c(delta);
      v.load = [cs, cd](Body& b, const Idx& idx) { return b.let("long long", cs + " + " + idx[0] + " * " + cd); };
      define(out, std::move(v));
    } else {
      const auto start = known_float(input(0)), limit = known_float(input(1)), delta = known_float(input(2));
      if (!start || !limit || !delta || *delta == 0) unsupported(node, "float range bounds must be constants");
      const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((*limit - *start) / *delta)));
      Value v;
      v.dtype = dtype;
      v.shape = {ir::sym_int(n)};
      const std::string cs = float_literal(*start), cd = float_literal(*delta);
      v.load = [cs, cd](Body& b, const Idx& idx) { return b.let("float", cs + " + (float)" + idx[0] + " * " + cd); };
      define(out, std::move(v));
    }
    return;
  }

  // ---- views ----
  if (op == "Identity") {
    define(out, value(input(0)));
    return;
  }
  if (op == "Transpose") {
    const Value& x = value(input(0));
    const size_t r = x.shape.size();
    std::vector<int64_t> perm;
    if (const auto* a = find_attr(node, "perm")) perm.assign(a->ints().begin(), a->ints().end());
    else for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
    if (perm.size() != r) unsupported(node, "perm of the wrong length");
    std::vector<SymExpr> shape;
    for (int64_t p : perm) shape.push_back(x.shape[norm_axis(p, r)]);
    define_view(input(0), shape, [perm](Body&, const Idx& idx) {
      Idx src(idx.size());
      for (size_t i = 0; i < perm.size(); ++i) src[static_cast<size_t>(perm[i])] = idx[i];
      return src;
    });
    return;
  }
  if (op == "Reshape" || op == "Flatten") {
    const Value& x = value(input(0));
    std::vector<SymExpr> shape;
    if (op == "Flatten") {
      const int64_t r = static_cast<int64_t>(x.shape.size());
      int64_t axis = attr_int(node, "axis", 1);
      if (axis < 0) axis += r;
      shape = {product(x.shape, 0, static_cast<size_t>(axis)), product(x.shape, static_cast<size_t>(axis))};
    } else {
      shape = known_ints(1, "shape");
      const bool allowzero = attr_int(node, "allowzero", 0) != 0;
      int infer = -1;
      for (size_t i = 0; i < shape.size(); ++i) {
        if (is_const(shape[i], 0) && !allowzero) {
          if (i >= x.shape.size()) unsupported(node, "0 in shape beyond the input's rank");
          shape[i] = x.shape[i];
        } else if (is_const(shape[i], -1)) {
          infer = static_cast<int>(i);
        }
      }
      if (infer >= 0) {
        std::vector<SymExpr> others;
        for (size_t i = 0; i < shape.size(); ++i)
          if (static_cast<int>(i) != infer) others.push_back(shape[i]);
        shape[static_cast<size_t>(infer)] = divide_exact(product(x.shape), product(others));
      }
    }
    const std::vector<SymExpr> from = x.shape, to = shape;
    std::optional<std::vector<SymExpr>> ints = x.ints;
    define_view(input(0), shape, [from, to](Body& b, const Idx& idx) {
      const std::string lin = b.let("long long", linear_index(idx, to));
      return delinearize(b, lin, from);
    }, ints);
    return;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    const Value& x = value(input(0));
    const bool unsq = op == "Unsqueeze";
    auto axes_opt = axes_from(1, "axes");
    std::vector<SymExpr> shape;
    std::vector<bool> flag;  // unsqueeze: out axis is new; squeeze: in axis removed
    if (unsq) {
      if (!axes_opt) unsupported(node, "missing axes");
      const size_t r = x.shape.size() + axes_opt->size();
      flag.assign(r, false);
      for (int64_t a : *axes_opt) flag[norm_axis(a, r)] = true;
      size_t k = 0;
      for (size_t i = 0; i < r; ++i) shape.push_back(flag[i] ? ir::sym_int(1) : x.shape[k++]);
    } else {
      flag.assign(x.shape.size(), false);
      if (axes_opt && !axes_opt->empty()) {
        for (int64_t a : *axes_opt) flag[norm_axis(a, x.shape.size())] = true;
      } else {
        for (size_t i = 0; i < x.shape.size(); ++i) flag[i] = is_const(x.shape[i], 1);
      }
      for (size_t i = 0; i < x.shape.size(); ++i)
        if (!flag[i]) shape.push_back(x.shape[i]);
    }
    define_view(input(0), shape, [flag, unsq](Body&, const Idx& idx) {
      Idx src;
      if (unsq) {
        for (size_t i = 0; i < idx.size(); ++i)
          if (!flag[i]) src.push_back(idx[i]);
      } else {
        size_t k = 0;
        for (bool removed : flag) src.push_back(removed ? "0LL" : idx[k++]);
      }
      return src;
    }, x.ints);
    return;
  }
  if (op == "Expand") {
    const Value& x = value(input(0));
    const std::vector<SymExpr> target = known_ints(1, "shape");
    const std::vector<SymExpr> shape = broadcast_shapes(*this, node, {x.shape, target});
    const std::vector<SymExpr> from = x.shape;
    define_view(input(0), shape, [shape, from](Body&, const Idx& idx) { return broadcast_index(idx, shape, from); });
    return;
  }
  if (op == "Slice") {
    const Value& x = value(input(0));
    const size_t r = x.shape.size();
    const std::vector<SymExpr> starts = known_ints(1, "starts"), ends = known_ints(2, "ends");
    std::vector<int64_t> axes, steps;
    if (!input(3).empty()) axes = const_ints(3, "axes");
    else for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (!input(4).empty()) steps = const_ints(4, "steps");
    else steps.assign(starts.size(), 1);
    std::vector<SymExpr> shape = x.shape, first(r, ir::sym_int(0));
    std::vector<int64_t> step(r, 1);
    for (size_t k = 0; k < axes.size(); ++k) {
      const size_t a = norm_axis(axes[k], r);
      const SymExpr dim = x.shape[a];
      const int64_t st = steps[k];
      if (st == 0) unsupported(node, "step 0");
      auto clampv = [&](const SymExpr& v, bool is_end) -> SymExpr {
        const auto c = const_value(v);
        if (!c) return v;
        const auto d = const_value(dim);
        int64_t val = *c;
        if (st > 0) {
          if (val >= (int64_t{1} << 31) - 1) return dim;
          if (val < 0) {
            if (!d) return ir::sym_apply(ir::SymOp::kAdd, {dim, v});
            val += *d;
          }
          if (d) val = std::clamp<int64_t>(val, 0, *d);
          return ir::sym_int(val);
        }
        if (!d) unsupported(node, "negative step on a symbolic dimension");
        if (val < 0) val += *d;
        val = is_end ? std::clamp<int64_t>(val, -1, *d - 1) : std::clamp<int64_t>(val, 0, *d - 1);
        if (*c <= std::numeric_limits<int64_t>::min() / 2 && is_end) val = -1;
        return ir::sym_int(val);
      };
      const SymExpr s = clampv(starts[k], false), e = clampv(ends[k], true);
      SymExpr n;
      if (st > 0) n = ir::sym_apply(ir::SymOp::kCeilDiv, {ir::sym_apply(ir::SymOp::kAdd, {e, ir::sym_apply(ir::SymOp::kNeg, {s})}), ir::sym_int(st)});
      else n = ir::sym_apply(ir::SymOp::kCeilDiv, {ir::sym_apply(ir::SymOp::kAdd, {s, ir::sym_apply(ir::SymOp::kNeg, {e})}), ir::sym_int(-st)});
      if (auto cn = const_value(n); cn && *cn < 0) n = ir::sym_int(0);
      shape[a] = n;
      first[a] = s;
      step[a] = st;
    }
    std::optional<std::vector<SymExpr>> ints;
    if (x.ints && r == 1) {
      const auto f = const_value(first[0]), n = const_value(shape[0]);
      if (f && n) {
        ints.emplace();
        for (int64_t i = 0; i < *n; ++i) ints->push_back((*x.ints)[static_cast<size_t>(*f + i * step[0])]);
      }
    }
    std::vector<std::string> first_c;
    for (const auto& f : first) first_c.push_back(to_c(f));
    define_view(input(0), shape, [first_c, step](Body&, const Idx& idx) {
      Idx src(idx.size());
      for (size_t i = 0; i < idx.size(); ++i) {
        std::string e = idx[i];
        if (step[i] != 1) e = e + " * " + std::to_string(step[i]) + "LL";
        src[i] = first_c[i] == "(0LL)" ? e : "(" + first_c[i] + " + " + e + ")";
      }
      return src;
    }, ints);
    return;
  }
  if (op == "Gather") {
    const Value& data = value(input(0));
    const Value& indices = value(input(1));
    const size_t axis = norm_axis(attr_int(node, "axis", 0), data.shape.size());
    std::vector<SymExpr> shape(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
    shape.insert(shape.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.shape.end());
    std::optional<std::vector<SymExpr>> ints;
    if (data.ints && indices.ints && data.shape.size() == 1) {
      ints.emplace();
      const auto n = const_value(data.shape[0]);
      for (const auto& i : *indices.ints) {
        auto c = const_value(i);
        if (!c || !n) { ints.reset(); break; }
        ints->push_back((*data.ints)[static_cast<size_t>(*c < 0 ? *c + *n : *c)]);
      }
    }
    const std::string src = input(0), ind = input(1);
    const size_t irank = indices.shape.size();
    const std::string dim_c = to_c(data.shape[axis]);
    define_view(src, shape, [this, src, ind, axis, irank, dim_c](Body& b, const Idx& idx) {
      const Idx iidx(idx.begin() + static_cast<std::ptrdiff_t>(axis), idx.begin() + static_cast<std::ptrdiff_t>(axis + irank));
      const std::string raw = load(b, ind, iidx);
      const std::string i = b.let("long long", "(" + raw + " < 0 ? " + raw + " + " + dim_c + " : " + raw + ")");
      Idx s(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(axis));
      s.push_back(i);
      s.insert(s.end(), idx.begin() + static_cast<std::ptrdiff_t>(axis + irank), idx.end());
      return s;
    }, ints);
    return;
  }
  if (op == "Concat") {
    std::vector<std::string> ins;
    for (const auto& i : node.input()) ins.push_back(i);
    const Value& first = value(ins[0]);
    const size_t axis = norm_axis(attr_int(node, "axis", 0), first.shape.size());
    std::vector<SymExpr> shape = first.shape;
    std::vector<SymExpr> offsets{ir::sym_int(0)};
    bool all_ints = true;
    std::vector<SymExpr> ints;
    for (size_t k = 0; k < ins.size(); ++k) {
      const Value& v = value(ins[k]);
      if (v.shape.size() != shape.size()) unsupported(node, "inputs of different ranks");
      if (k > 0) shape[axis] = ir::sym_apply(ir::SymOp::kAdd, {shape[axis], v.shape[axis]});
      offsets.push_back(shape[axis]);
      if (v.ints && shape.size() == 1) ints.insert(ints.end(), v.ints->begin(), v.ints->end());
      else all_ints = false;
    }
    Value v;
    v.dtype = first.dtype;
    v.shape = shape;
    if (all_ints) {
      v.ints = ints;
      v.load = known_ints_loader(ints, shape);
    } else {
      std::vector<std::string> off_c;
      for (const auto& o : offsets) off_c.push_back(to_c(o));
      const int dtype = first.dtype;
      v.load = [this, ins, axis, off_c, dtype](Body& b, const Idx& idx) {
        const std::string r = "p2_t" + std::to_string(b.scope->next_tmp++);
        b.line(compute_type(dtype) + " " + r + ";");
        for (size_t k = 0; k < ins.size(); ++k) {
          const bool last = k + 1 == ins.size();
          b.line(std::string(k ? "} else " : "") + (last ? "{" : "if (" + idx[axis] + " < " + off_c[k + 1] + ") {"));
          Body inner = b.child();
          Idx s = idx;
          if (off_c[k] != "(0LL)") s[axis] = "(" + idx[axis] + " - " + off_c[k] + ")";
          inner.line(r + " = " + convert(load(inner, ins[k], s), value(ins[k]).dtype, dtype) + ";");
          b.code += inner.code;
        }
        b.line("}");
        return r;
      };
    }
    define(out, std::move(v));
    return;
  }

  // ---- kernels ----
  if (op == "MatMul") {
    emit_gemm(node, input(0), input(1), false, false, 1.0, "", 0.0, out);
    return;
  }
  if (op == "Gemm") {
    emit_gemm(node, input(0), input(1), attr_int(node, "transA", 0) != 0, attr_int(node, "transB", 0) != 0,
              attr_float(node, "alpha", 1.0f), input(2), attr_float(node, "beta", 1.0f), out);
    return;
  }
  if (op == "Softmax" || op == "LogSoftmax") {
    const int64_t axis = attr_int(node, "axis", -1);
    emit_rowwise(node, op == "Softmax" ? RowOp::kSoftmax : RowOp::kLogSoftmax, input(0), {axis}, true, out);
    return;
  }
  if (op == "ReduceSum" || op == "ReduceMean" || op == "ReduceMax" || op == "ReduceMin") {
    const bool axes_input = op == "ReduceSum" ? opset_ >= 13 : opset_ >= 18;
    std::optional<std::vector<int64_t>> axes = axes_input ? (input(1).empty() ? std::nullopt : axes_from(1, "axes"))
                                                          : axes_from(99, "axes");
    const size_t r = value(input(0)).shape.size();
    std::vector<int64_t> ax;
    if (axes && !axes->empty()) ax = *axes;
    else if (attr_int(node, "noop_with_empty_axes", 0) != 0) {
      define(out, value(input(0)));
      return;
    } else {
      for (size_t i = 0; i < r; ++i) ax.push_back(static_cast<int64_t>(i));
    }
    const RowOp rop = op == "ReduceSum" ? RowOp::kSum : op == "ReduceMean" ? RowOp::kMean : op == "ReduceMax" ? RowOp::kMax : RowOp::kMin;
    emit_rowwise(node, rop, input(0), ax, attr_int(node, "keepdims", 1) != 0, out);
    return;
  }
  if (op == "LayerNormalization") {
    for (int i = 1; i < node.output_size(); ++i)
      if (!node.output(i).empty()) unsupported(node, "Mean/InvStdDev outputs are not generated");
    const size_t r = value(input(0)).shape.size();
    const size_t axis = norm_axis(attr_int(node, "axis", -1), r);
    std::vector<int64_t> ax;
    for (size_t i = axis; i < r; ++i) ax.push_back(static_cast<int64_t>(i));
    emit_rowwise(node, RowOp::kLayerNorm, input(0), ax, true, out, input(1), input(2), attr_float(node, "epsilon", 1e-5f));
    return;
  }

  // ---- pointwise ----
  std::vector<std::string> ins;
  for (const auto& i : node.input()) ins.push_back(i);
  const int d0 = ins.empty() || ins[0].empty() ? 0 : value(ins[0]).dtype;
  const bool f = is_float_dtype(d0);
  using Args = std::vector<std::string>;
  auto unary_float = [&](const std::string& fn) {
    if (!f) unsupported(node, "non-float input");
    pointwise({ins[0]}, d0, [fn](const Args& a) { return fn + "(" + a[0] + ")"; });
  };
  static const std::map<std::string, std::string> kUnary = {
      {"Exp", "expf"}, {"Log", "logf"}, {"Sqrt", "sqrtf"}, {"Sigmoid", "p2_sigmoid"}, {"Tanh", "tanhf"}, {"Erf", "erff"},
      {"Sin", "sinf"}, {"Cos", "cosf"}, {"Floor", "floorf"}, {"Ceil", "ceilf"}, {"Round", "rintf"}, {"Tan", "tanf"},
      {"Atan", "atanf"}, {"Asin", "asinf"}, {"Acos", "acosf"}, {"Sinh", "sinhf"}, {"Cosh", "coshf"}};
  if (auto it = kUnary.find(op); it != kUnary.end()) {
    unary_float(it->second);
  } else if (op == "Neg") {
    pointwise({ins[0]}, d0, [](const Args& a) { return "(-" + a[0] + ")"; });
  } else if (op == "Abs") {
    pointwise({ins[0]}, d0, [f](const Args& a) { return f ? "fabsf(" + a[0] + ")" : "(" + a[0] + " < 0 ? -" + a[0] + " : " + a[0] + ")"; });
  } else if (op == "Reciprocal") {
    unary_float("1.0f / ");
  } else if (op == "Relu") {
    pointwise({ins[0]}, d0, [f](const Args& a) { return f ? "fmaxf(" + a[0] + ", 0.0f)" : "p2_max(" + a[0] + ", 0LL)"; });
  } else if (op == "LeakyRelu") {
    const std::string al = float_literal(attr_float(node, "alpha", 0.01f));
    pointwise({ins[0]}, d0, [al](const Args& a) { return "(" + a[0] + " >= 0.0f ? " + a[0] + " : " + al + " * " + a[0] + ")"; });
  } else if (op == "Elu") {
    const std::string al = float_literal(attr_float(node, "alpha", 1.0f));
    pointwise({ins[0]}, d0, [al](const Args& a) { return "(" + a[0] + " >= 0.0f ? " + a[0] + " : " + al + " * expm1f(" + a[0] + "))"; });
  } else if (op == "Softplus") {
    pointwise({ins[0]}, d0, [](const Args& a) { return "(" + a[0] + " > 20.0f ? " + a[0] + " : log1pf(expf(" + a[0] + ")))"; });
  } else if (op == "HardSigmoid" || op == "HardSwish") {
    const bool swish = op == "HardSwish";
    const std::string al = float_literal(swish ? 1.0f / 6 : attr_float(node, "alpha", 0.2f));
    const std::string be = float_literal(swish ? 0.5f : attr_float(node, "beta", 0.5f));
    pointwise({ins[0]}, d0, [al, be, swish](const Args& a) {
      const std::string hs = "fmaxf(0.0f, fminf(1.0f, " + al + " * " + a[0] + " + " + be + "))";
      return swish ? a[0] + " * " + hs : hs;
    });
  } else if (op == "Gelu") {
    const bool tanh_form = attr_string(node, "approximate", "none") == "tanh";
    unary_float(tanh_form ? "p2_gelu_tanh" : "p2_gelu");
  } else if (op == "Not") {
    pointwise({ins[0]}, TensorProto::BOOL, [](const Args& a) { return "(!" + a[0] + ")"; });
  } else if (op == "IsNaN") {
    pointwise({ins[0]}, TensorProto::BOOL, [](const Args& a) { return "isnan(" + a[0] + ")"; });
  } else if (op == "Sign") {
    pointwise({ins[0]}, d0, [f](const Args& a) {
      const std::string z = f ? "0.0f" : "0LL";
      return "(" + a[0] + " > " + z + " ? 1 : (" + a[0] + " < " + z + " ? -1 : 0))";
    });
  } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    const std::string sym = op == "Add" ? " + " : op == "Sub" ? " - " : op == "Mul" ? " * " : " / ";
    pointwise({ins[0], ins[1]}, d0, [sym](const Args& a) { return "(" + a[0] + sym + a[1] + ")"; });
    // Integer shape arithmetic stays known.
    const Value& x = value(ins[0]);
    const Value& y = value(ins[1]);
    if (x.ints && y.ints && !x.ints->empty() && !y.ints->empty()) {
      const size_t n = std::max(x.ints->size(), y.ints->size());
      if ((x.ints->size() == 1 || x.ints->size() == n) && (y.ints->size() == 1 || y.ints->size() == n)) {
        std::vector<SymExpr> r;
        for (size_t i = 0; i < n; ++i) {
          const SymExpr a = (*x.ints)[x.ints->size() == 1 ? 0 : i], b = (*y.ints)[y.ints->size() == 1 ? 0 : i];
          using ir::SymOp;
          if (op == "Add") r.push_back(ir::sym_apply(SymOp::kAdd, {a, b}));
          else if (op == "Sub") r.push_back(ir::sym_apply(SymOp::kAdd, {a, ir::sym_apply(SymOp::kNeg, {b})}));
          else if (op == "Mul") r.push_back(ir::sym_apply(SymOp::kMul, {a, b}));
          else r.push_back(divide_exact(a, b));  // shape values are non-negative
        }
        Value& v = value(out);
        v.ints = r;
        v.load = known_ints_loader(r, v.shape);
      }
    }
  } else if (op == "Pow") {
    const auto e = known_float(ins[1]);
    if (e && *e == 2.0) pointwise({ins[0]}, d0, [](const Args& a) { return a[0] + " * " + a[0]; });
    else if (e && *e == 1.0) pointwise({ins[0]}, d0, [](const Args& a) { return a[0]; });
    else if (e && *e == 0.5) pointwise({ins[0]}, d0, [](const Args& a) { return "sqrtf(" + a[0] + ")"; });
    else {
      if (!f) unsupported(node, "integer power");
      const int d1 = value(ins[1]).dtype;
      pointwise({ins[0], ins[1]}, d0, [d1](const Args& a) { return "powf(" + a[0] + ", " + convert(a[1], d1, TensorProto::FLOAT) + ")"; });
    }
  } else if (op == "Max" || op == "Min" || op == "Sum" || op == "Mean") {
    const std::string fn = op == "Max" ? (f ? "fmaxf" : "p2_max") : (f ? "fminf" : "p2_min");
    const size_t n = ins.size();
    pointwise(ins, d0, [op, fn, n](const Args& a) {
      std::string r = a[0];
      for (size_t i = 1; i < a.size(); ++i) r = (op == "Max" || op == "Min") ? fn + "(" + r + ", " + a[i] + ")" : "(" + r + " + " + a[i] + ")";
      if (op == "Mean") r = r + " / " + std::to_string(n) + ".0f";
      return r;
    });
  } else if (op == "Mod") {
    const bool fm = attr_int(node, "fmod", 0) != 0;
    if (f && !fm) unsupported(node, "float Mod needs fmod=1");
    pointwise({ins[0], ins[1]}, d0, [f](const Args& a) { return f ? "fmodf(" + a[0] + ", " + a[1] + ")" : "p2_pmod(" + a[0] + ", " + a[1] + ")"; });
  } else if (op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual") {
    const std::string sym = op == "Equal" ? " == " : op == "Less" ? " < " : op == "LessOrEqual" ? " <= " : op == "Greater" ? " > " : " >= ";
    pointwise({ins[0], ins[1]}, TensorProto::BOOL, [sym](const Args& a) { return "(" + a[0] + sym + a[1] + ")"; });
  } else if (op == "And" || op == "Or" || op == "Xor") {
    const std::string sym = op == "And" ? " && " : op == "Or" ? " || " : " != ";
    pointwise({ins[0], ins[1]}, TensorProto::BOOL, [sym](const Args& a) { return "(" + a[0] + sym + a[1] + ")"; });
  } else if (op == "Where") {
    const int dx = value(ins[1]).dtype, dy = value(ins[2]).dtype;
    pointwise({ins[0], ins[1], ins[2]}, dx, [dx, dy](const Args& a) { return "(" + a[0] + " ? " + a[1] + " : " + convert(a[2], dy, dx) + ")"; });
  } else if (op == "PRelu") {
    pointwise({ins[0], ins[1]}, d0, [](const Args& a) { return "(" + a[0] + " < 0.0f ? " + a[0] + " * " + a[1] + " : " + a[0] + ")"; });
  } else if (op == "Clip") {
    Args xs{ins[0]};
    const bool lo = ins.size() > 1 && !ins[1].empty(), hi = ins.size() > 2 && !ins[2].empty();
    if (lo) xs.push_back(ins[1]);
    if (hi) xs.push_back(ins[2]);
    pointwise(xs, d0, [lo, hi, f](const Args& a) {
      std::string r = a[0];
      size_t k = 1;
      if (lo) r = std::string(f ? "fmaxf(" : "p2_max(") + r + ", " + a[k++] + ")";
      if (hi) r = std::string(f ? "fminf(" : "p2_min(") + r + ", " + a[k++] + ")";
      return r;
    });
  } else if (op == "Cast" || op == "CastLike") {
    const int to = op == "Cast" ? static_cast<int>(attr_int(node, "to", 0)) : value(ins[1]).dtype;
    compute_type(to);  // rejects dtypes we do not compute
    if (to == TensorProto::DOUBLE) unsupported(node, "cast to float64");
    pointwise({ins[0]}, to, [d0, to](const Args& a) {
      const std::string c = convert(a[0], d0, to);
      if (to == TensorProto::FLOAT16) return "p2_h2f(p2_f2h(" + c + "))";  // round like the stored type
      if (to == TensorProto::BFLOAT16) return "p2_b2f(p2_f2b(" + c + "))";
      return c;
    });
    if (value(ins[0]).ints && is_int_dtype(to)) {
      Value& v = value(out);
      v.ints = value(ins[0]).ints;
      v.load = known_ints_loader(*v.ints, v.shape);
    }
  } else {
    unsupported(node, "no kernel template for this op");
  }
}

}  // namespace pt2onnx::kernels::detail
