// Codegen rules for views: Transpose, Reshape, (Un)Squeeze, Expand, Tile, Slice, the Gathers and
// Concat are index arithmetic over their source, never copies; Trilu a view that reads zero
// outside its triangle.
#include <algorithm>
#include <limits>

#include "common/error.h"
#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

namespace {

using onnx::TensorProto;

void identity(OpContext& ctx) {
  ctx.gen.define(ctx.out, ctx.value(ctx.input(0)));
}

void transpose(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  const size_t r = x.shape.size();
  std::vector<int64_t> perm;
  if (const auto* a = ctx.attr("perm")) perm.assign(a->ints().begin(), a->ints().end());
  else for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  if (perm.size() != r) ctx.unsupported("perm of the wrong length");
  std::vector<SymExpr> shape;
  for (int64_t p : perm) shape.push_back(x.shape[ctx.norm_axis(p, r)]);
  ctx.define_view(ctx.input(0), shape, [perm](Body&, const Idx& idx) {
    Idx src(idx.size());
    for (size_t i = 0; i < perm.size(); ++i) src[static_cast<size_t>(perm[i])] = idx[i];
    return src;
  });
  if (!x.strided_pointer.empty()) {  // still a strided view of the same buffer
    Value& v = ctx.value(ctx.out);
    v.strided_pointer = x.strided_pointer;
    for (int64_t p : perm) v.strides.push_back(x.strides[ctx.norm_axis(p, r)]);
  }
}

void reshape(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  std::vector<SymExpr> shape;
  if (ctx.op() == "Flatten") {
    const int64_t r = static_cast<int64_t>(x.shape.size());
    int64_t axis = ctx.attr_int("axis", 1);
    if (axis < 0) axis += r;
    shape = {product(x.shape, 0, static_cast<size_t>(axis)), product(x.shape, static_cast<size_t>(axis))};
  } else {
    shape = ctx.known_ints(1, "shape");
    const bool allowzero = ctx.attr_int("allowzero", 0) != 0;
    int infer = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (is_const(shape[i], 0) && !allowzero) {
        if (i >= x.shape.size()) ctx.unsupported("0 in shape beyond the input's rank");
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
  ctx.define_view(ctx.input(0), shape, [from, to](Body& b, const Idx& idx) {
    const std::string lin = b.let("long long", linear_index(idx, to));
    return delinearize(b, lin, from);
  }, ints);
}

void unsqueeze(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  const bool unsq = ctx.op() == "Unsqueeze";
  auto axes_opt = ctx.axes_from(1, "axes");
  std::vector<SymExpr> shape;
  std::vector<bool> flag;  // unsqueeze: ctx.out axis is new; squeeze: in axis removed
  if (unsq) {
    if (!axes_opt) ctx.unsupported("missing axes");
    const size_t r = x.shape.size() + axes_opt->size();
    flag.assign(r, false);
    for (int64_t a : *axes_opt) flag[ctx.norm_axis(a, r)] = true;
    size_t k = 0;
    for (size_t i = 0; i < r; ++i) shape.push_back(flag[i] ? ir::sym_int(1) : x.shape[k++]);
  } else {
    flag.assign(x.shape.size(), false);
    if (axes_opt && !axes_opt->empty()) {
      for (int64_t a : *axes_opt) flag[ctx.norm_axis(a, x.shape.size())] = true;
    } else {
      for (size_t i = 0; i < x.shape.size(); ++i) flag[i] = is_const(x.shape[i], 1);
    }
    for (size_t i = 0; i < x.shape.size(); ++i)
      if (!flag[i]) shape.push_back(x.shape[i]);
  }
  ctx.define_view(ctx.input(0), shape, [flag, unsq](Body&, const Idx& idx) {
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
}

void expand(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  const std::vector<SymExpr> target = ctx.known_ints(1, "shape");
  const std::vector<SymExpr> shape = ctx.broadcast_shapes({x.shape, target});
  const std::vector<SymExpr> from = x.shape;
  ctx.define_view(ctx.input(0), shape, [shape, from](Body&, const Idx& idx) { return broadcast_index(idx, shape, from); });
}

// x repeated along each axis: element i reads x at i modulo the axis' length.
void tile(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  const std::vector<int64_t> repeats = ctx.const_ints(1, "repeats");
  if (repeats.size() != x.shape.size()) ctx.unsupported("repeats of another length than the rank");
  std::vector<SymExpr> shape = x.shape;
  std::vector<std::string> dims_c(x.shape.size());
  for (size_t a = 0; a < repeats.size(); ++a) {
    if (repeats[a] < 0) ctx.unsupported("a negative repeat");
    if (repeats[a] == 1) continue;
    shape[a] = ir::sym_apply(ir::SymOp::kMul, {x.shape[a], ir::sym_int(repeats[a])});
    dims_c[a] = to_c(x.shape[a]);
  }
  ctx.define_view(ctx.input(0), shape, [dims_c](Body&, const Idx& idx) {
    Idx src = idx;
    for (size_t a = 0; a < idx.size(); ++a)
      if (!dims_c[a].empty()) src[a] = "(" + idx[a] + " % " + dims_c[a] + ")";
    return src;
  });
}

// The upper (or lower) triangle of the last two dims from diagonal k (input 1, default 0); zero
// elsewhere.
void trilu(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  if (x.shape.size() < 2) ctx.unsupported("a rank below 2");
  int64_t k = 0;
  if (!ctx.input(1).empty()) {
    const std::vector<int64_t> given = ctx.const_ints(1, "k");
    if (given.size() != 1) ctx.unsupported("k that is not one integer");
    k = given[0];
  }
  const bool upper = ctx.attr_int("upper", 1) != 0;
  Value v;
  v.dtype = x.dtype;
  v.shape = x.shape;
  v.load = [g = &ctx.gen, src = ctx.input(0), k, upper, dtype = x.dtype](Body& b, const Idx& idx) {
    const size_t r = idx.size();
    const std::string offset = "(" + idx[r - 1] + " - " + idx[r - 2] + ")", kc = "(" + std::to_string(k) + "LL)";
    return guarded_load(*g, b, src, idx, offset + (upper ? " >= " : " <= ") + kc, "0", dtype);
  };
  ctx.gen.define(ctx.out, std::move(v));
}

void slice(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  const size_t r = x.shape.size();
  const std::vector<SymExpr> starts = ctx.known_ints(1, "starts"), ends = ctx.known_ints(2, "ends");
  std::vector<int64_t> axes, steps;
  if (!ctx.input(3).empty()) axes = ctx.const_ints(3, "axes");
  else for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (!ctx.input(4).empty()) steps = ctx.const_ints(4, "steps");
  else steps.assign(starts.size(), 1);
  std::vector<SymExpr> shape = x.shape, first(r, ir::sym_int(0));
  std::vector<int64_t> step(r, 1);
  for (size_t k = 0; k < axes.size(); ++k) {
    const size_t a = ctx.norm_axis(axes[k], r);
    const SymExpr dim = x.shape[a];
    const int64_t st = steps[k];
    if (st == 0) ctx.unsupported("step 0");
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
      if (!d) ctx.unsupported("negative step on a symbolic dimension");
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
  ctx.define_view(ctx.input(0), shape, [first_c, step](Body&, const Idx& idx) {
    Idx src(idx.size());
    for (size_t i = 0; i < idx.size(); ++i) {
      std::string e = idx[i];
      if (step[i] != 1) e = e + " * " + std::to_string(step[i]) + "LL";
      src[i] = first_c[i] == "(0LL)" ? e : "(" + first_c[i] + " + " + e + ")";
    }
    return src;
  }, ints);
}

void gather(OpContext& ctx) {
  const Value& data = ctx.value(ctx.input(0));
  const Value& indices = ctx.value(ctx.input(1));
  const size_t axis = ctx.norm_axis(ctx.attr_int("axis", 0), data.shape.size());
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
  const std::string src = ctx.input(0), ind = ctx.input(1);
  const size_t irank = indices.shape.size();
  const std::string dim_c = to_c(data.shape[axis]);
  ctx.define_view(src, shape, [g = &ctx.gen, src, ind, axis, irank, dim_c](Body& b, const Idx& idx) {
    const Idx iidx(idx.begin() + static_cast<std::ptrdiff_t>(axis), idx.begin() + static_cast<std::ptrdiff_t>(axis + irank));
    Idx s(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(axis));
    s.push_back(wrapped_index(*g, b, ind, iidx, dim_c));
    s.insert(s.end(), idx.begin() + static_cast<std::ptrdiff_t>(axis + irank), idx.end());
    return s;
  }, ints);
}

// out[i] = data[i with i[axis] replaced by indices[i]]: the output has the indices' shape.
void gather_elements(OpContext& ctx) {
  const Value& data = ctx.value(ctx.input(0));
  const Value& indices = ctx.value(ctx.input(1));
  if (indices.shape.size() != data.shape.size()) ctx.unsupported("indices of another rank than the data");
  const size_t axis = ctx.norm_axis(ctx.attr_int("axis", 0), data.shape.size());
  const std::string ind = ctx.input(1), dim_c = to_c(data.shape[axis]);
  ctx.define_view(ctx.input(0), indices.shape, [g = &ctx.gen, ind, axis, dim_c](Body& b, const Idx& idx) {
    Idx s = idx;
    s[axis] = wrapped_index(*g, b, ind, idx, dim_c);
    return s;
  });
}

// indices [q..., k] pick slices data[i_0, ..., i_{k-1}, rest...]: the output is indices' leading
// q dims followed by the data's dims after the k picked ones. torch's indexing never sets
// batch_dims, so no reference checks that form: refused.
void gather_nd(OpContext& ctx) {
  const Value& data = ctx.value(ctx.input(0));
  const Value& indices = ctx.value(ctx.input(1));
  if (ctx.attr_int("batch_dims", 0) != 0) ctx.unsupported("batch_dims");
  if (indices.shape.empty()) ctx.unsupported("scalar indices");
  const auto k_known = const_value(indices.shape.back());
  if (!k_known) ctx.unsupported("a symbolic last dimension of the indices");
  const size_t k = static_cast<size_t>(*k_known), q = indices.shape.size() - 1;
  if (k > data.shape.size()) ctx.unsupported("index tuples longer than the data's rank");
  std::vector<SymExpr> shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(k), data.shape.end());
  std::vector<std::string> dims_c;
  for (size_t j = 0; j < k; ++j) dims_c.push_back(to_c(data.shape[j]));
  const std::string ind = ctx.input(1);
  ctx.define_view(ctx.input(0), shape, [g = &ctx.gen, ind, q, dims_c](Body& b, const Idx& idx) {
    Idx s;
    Idx at(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(q));
    at.emplace_back();
    for (size_t j = 0; j < dims_c.size(); ++j) {
      at[q] = "(" + std::to_string(j) + "LL)";
      s.push_back(wrapped_index(*g, b, ind, at, dims_c[j]));
    }
    s.insert(s.end(), idx.begin() + static_cast<std::ptrdiff_t>(q), idx.end());
    return s;
  });
}

void concat(OpContext& ctx) {
  std::vector<std::string> ins;
  for (const auto& i : ctx.node.input()) ins.push_back(i);
  const Value& first = ctx.value(ins[0]);
  const size_t axis = ctx.norm_axis(ctx.attr_int("axis", 0), first.shape.size());
  std::vector<SymExpr> shape = first.shape;
  std::vector<SymExpr> offsets{ir::sym_int(0)};
  bool all_ints = true;
  std::vector<SymExpr> ints;
  for (size_t k = 0; k < ins.size(); ++k) {
    const Value& v = ctx.value(ins[k]);
    if (v.shape.size() != shape.size()) ctx.unsupported("inputs of different ranks");
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
    v.load = [g = &ctx.gen, ins, axis, off_c, dtype](Body& b, const Idx& idx) {
      const std::string r = "p2_t" + std::to_string(b.scope->next_tmp++);
      b.line(compute_type(dtype) + " " + r + ";");
      for (size_t k = 0; k < ins.size(); ++k) {
        const bool last = k + 1 == ins.size();
        b.line(std::string(k ? "} else " : "") + (last ? "{" : "if (" + idx[axis] + " < " + off_c[k + 1] + ") {"));
        Body inner = b.child();
        Idx s = idx;
        if (off_c[k] != "(0LL)") s[axis] = "(" + idx[axis] + " - " + off_c[k] + ")";
        inner.line(r + " = " + convert(g->load(inner, ins[k], s), g->value(ins[k]).dtype, dtype) + ";");
        b.code += inner.code;
      }
      b.line("}");
      return r;
    };
  }
  ctx.gen.define(ctx.out, std::move(v));
}

// Every output is a slice of the input along `axis` (sizes from input 1, or num_outputs equal
// parts with a smaller last one, as ONNX defines them).
void split(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  const size_t axis = ctx.norm_axis(ctx.attr_int("axis", 0), x.shape.size());
  const int outs = ctx.node.output_size();
  std::vector<SymExpr> sizes;
  if (!ctx.input(1).empty()) {
    sizes = ctx.known_ints(1, "split");
  } else {
    const int64_t parts = ctx.attr_int("num_outputs", outs);
    const auto d = const_value(x.shape[axis]);
    if (!d) ctx.unsupported("equal parts of a symbolic dimension");
    const int64_t each = (*d + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(ir::sym_int(std::min(each, *d - i * each)));
  }
  if (static_cast<int>(sizes.size()) != outs)
    ctx.unsupported(std::to_string(sizes.size()) + " sizes for " + std::to_string(outs) + " outputs");
  SymExpr offset = ir::sym_int(0);
  for (int o = 0; o < outs; ++o) {
    const std::string name = ctx.node.output(o), first = to_c(offset), src = ctx.input(0);
    if (!name.empty()) {
      Value v;
      v.dtype = x.dtype;
      v.shape = x.shape;
      v.shape[axis] = sizes[static_cast<size_t>(o)];
      v.load = [g = &ctx.gen, src, axis, first](Body& b, const Idx& idx) {
        Idx s = idx;
        if (first != "(0LL)") s[axis] = "(" + idx[axis] + " + " + first + ")";
        return g->load(b, src, s);
      };
      ctx.gen.define(name, std::move(v));
    }
    offset = ir::sym_apply(ir::SymOp::kAdd, {offset, sizes[static_cast<size_t>(o)]});
  }
}

}  // namespace

void register_view_op_rules(OpRuleTable& t) {
  t.add("Identity", identity);
  t.add("Transpose", transpose);
  t.add("Reshape", reshape);
  t.add("Flatten", reshape);
  t.add("Unsqueeze", unsqueeze);
  t.add("Squeeze", unsqueeze);
  t.add("Expand", expand);
  t.add("Tile", tile);
  t.add("Trilu", trilu);
  t.add("Slice", slice);
  t.add("Gather", gather);
  t.add("GatherElements", gather_elements);
  t.add("GatherND", gather_nd);
  t.add("Concat", concat);
  t.add("Split", split, false, /*multi_output=*/true);
}

}  // namespace pt2onnx::kernels::detail
