// Codegen rules for convolution and pooling over [N, C, spatial...] tensors.
//  * Conv is an implicit GEMM on the tiled GEMM kernel: per (image, group) the weights as
//    [Cout/G, C/G*prod(k)] times the input's patches as [C/G*prod(k), prod(out)] (an index view:
//    the im2col matrix is never written, padding reads as 0). The product's stored layout
//    [N, G, Cout/G, prod(out)] is NCHW, so the Conv's output is a free reshape of it. With one
//    group the bias is the GEMM's C operand (added before the store); with groups it is a
//    pointwise add read by the consumer.
//  * MaxPool (with its Indices output), AveragePool and GlobalAveragePool are written by one
//    thread per output element looping over its window (GlobalAveragePool is a row reduction).
//  * BatchNormalization (inference) is pointwise per channel, fused into its consumer.
#include "common/error.h"
#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

namespace {

using onnx::TensorProto;

SymExpr add(const SymExpr& a, const SymExpr& b) { return ir::sym_apply(ir::SymOp::kAdd, {a, b}); }
SymExpr mul(const SymExpr& a, const SymExpr& b) { return ir::sym_apply(ir::SymOp::kMul, {a, b}); }
SymExpr num(int64_t v) { return ir::sym_int(v); }

// Window geometry of a Conv or pool node over `x`'s spatial dims, from its attributes.
struct Windows {
  size_t spatial = 0;
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
  std::vector<SymExpr> in, out;                            // spatial sizes
};

std::vector<int64_t> ints_attr(OpContext& ctx, const char* name, size_t n, int64_t fallback) {
  std::vector<int64_t> v(n, fallback);
  if (const auto* a = ctx.attr(name); a && a->ints_size() > 0) {
    if (static_cast<size_t>(a->ints_size()) != n)
      ctx.unsupported(std::string(name) + " has " + std::to_string(a->ints_size()) + " values for " + std::to_string(n));
    v.assign(a->ints().begin(), a->ints().end());
  }
  return v;
}

Windows windows(OpContext& ctx, const Value& x, std::vector<int64_t> kernel, bool ceil_mode) {
  Windows w;
  if (x.shape.size() < 3) ctx.unsupported("input of rank " + std::to_string(x.shape.size()) + " (expected [N, C, spatial...])");
  w.spatial = x.shape.size() - 2;
  if (kernel.size() != w.spatial) ctx.unsupported("kernel of rank " + std::to_string(kernel.size()) + " for " +
                                                  std::to_string(w.spatial) + " spatial dims");
  w.kernel = std::move(kernel);
  const std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") ctx.unsupported("auto_pad " + auto_pad);
  w.strides = ints_attr(ctx, "strides", w.spatial, 1);
  w.dilations = ints_attr(ctx, "dilations", w.spatial, 1);
  w.pads = auto_pad == "VALID" ? std::vector<int64_t>(2 * w.spatial, 0) : ints_attr(ctx, "pads", 2 * w.spatial, 0);
  for (size_t i = 0; i < w.spatial; ++i) {
    if (w.strides[i] < 1 || w.dilations[i] < 1 || w.kernel[i] < 1) ctx.unsupported("non-positive stride, dilation or kernel size");
    if (w.pads[i] < 0 || w.pads[i + w.spatial] < 0) ctx.unsupported("negative pads");
    const SymExpr in = x.shape[i + 2];
    // in + pads - (dilation * (k - 1) + 1), then floor or ceil by the stride, plus one.
    const SymExpr span = add(in, num(w.pads[i] + w.pads[i + w.spatial] - (w.dilations[i] * (w.kernel[i] - 1) + 1)));
    const SymExpr q = ir::sym_apply(ceil_mode ? ir::SymOp::kCeilDiv : ir::SymOp::kFloorDiv, {span, num(w.strides[i])});
    SymExpr o = add(q, num(1));
    if (ceil_mode) {
      // ONNX drops a last window that would start in the end padding.
      const SymExpr last_start = mul(add(o, num(-1)), num(w.strides[i]));
      const SymExpr limit = add(in, num(w.pads[i]));
      if (const auto a = const_value(last_start), b = const_value(limit); a && b) {
        if (*a >= *b) o = add(o, num(-1));
      } else {
        ctx.unsupported("ceil_mode with a symbolic spatial size");
      }
    }
    if (const auto c = const_value(o); c && *c < 1) ctx.unsupported("the window is larger than the padded input");
    w.in.push_back(in);
    w.out.push_back(o);
  }
  return w;
}

// ---- Conv -------------------------------------------------------------------------------------

void conv(OpContext& ctx) {
  const std::string xname = ctx.input(0), wname = ctx.input(1), bname = ctx.input(2);
  const Value x = ctx.value(xname), wt = ctx.value(wname);
  if (!is_float_dtype(x.dtype) || !is_float_dtype(wt.dtype)) ctx.unsupported("non-float operands");
  if (wt.shape.size() != x.shape.size()) ctx.unsupported("weight rank differs from the input's");
  std::vector<int64_t> kernel;
  for (size_t i = 2; i < wt.shape.size(); ++i) {
    const auto k = const_value(wt.shape[i]);
    if (!k) ctx.unsupported("symbolic kernel size");
    kernel.push_back(*k);
  }
  if (const auto* a = ctx.attr("kernel_shape"); a && std::vector<int64_t>(a->ints().begin(), a->ints().end()) != kernel)
    ctx.unsupported("kernel_shape differs from the weight's");
  const Windows w = windows(ctx, x, kernel, false);
  const int64_t groups = ctx.attr_int("group", 1);
  // Channel counts may be symbolic (call sites of one function that disagree) with one group.
  SymExpr cin_g = wt.shape[1], cout_g = wt.shape[0];
  if (groups == 1) {
    if (!same_dim(x.shape[1], cin_g))
      ctx.unsupported("input channels " + ir::to_string(x.shape[1]) + " vs weight " + ir::to_string(cin_g));
  } else {
    const auto cin = const_value(x.shape[1]), co = const_value(wt.shape[0]), cg = const_value(wt.shape[1]);
    if (!cin || !co || !cg) ctx.unsupported("symbolic channel counts with " + std::to_string(groups) + " groups");
    if (groups < 1 || *cin != *cg * groups || *co % groups != 0)
      ctx.unsupported("channels " + std::to_string(*cin) + " -> " + std::to_string(*co) + " do not split into " +
                      std::to_string(groups) + " groups");
    cout_g = num(*co / groups);
  }
  int64_t kprod = 1;
  for (int64_t k : kernel) kprod *= k;
  const SymExpr kdim = mul(cin_g, num(kprod)), cout = wt.shape[0];
  const SymExpr n = x.shape[0], p = product(w.out);
  const std::string out = ctx.out, wview = out + "#weights", patches = out + "#patches", gemm = out + "#gemm";

  // Weights [Cout, C/G, k...] as [G, Cout/G, C/G*prod(k)]: a reshape of contiguous memory.
  {
    Value v;
    v.dtype = wt.dtype;
    v.shape = {num(groups), cout_g, kdim};
    const std::vector<SymExpr> from = wt.shape, to = v.shape;
    v.load = [g = &ctx.gen, wname, from, to](Body& b, const Idx& idx) {
      const std::string lin = b.let("long long", linear_index(idx, to));
      return g->load(b, wname, delinearize(b, lin, from));
    };
    ctx.gen.define(wview, std::move(v));
  }
  // Patches [N, G, C/G*prod(k), prod(out)]: element (n, g, c*prod(k) + kpos, opos) is
  // x[n, g*C/G + c, opos*stride - pad + kpos*dilation], 0 in the padding.
  {
    Value v;
    v.dtype = x.dtype;
    v.shape = {n, num(groups), kdim, p};
    const std::vector<SymExpr> kshape = [&] {
      std::vector<SymExpr> s;
      for (int64_t k : kernel) s.push_back(num(k));
      return s;
    }();
    v.load = [g = &ctx.gen, xname, w, kshape, kprod, cin_g = to_c(cin_g), dtype = x.dtype](Body& b, const Idx& idx) {
      const std::string c = b.let("long long", idx[1] + " * " + cin_g + " + " + idx[2] + " / " +
                                                   std::to_string(kprod) + "LL");
      const Idx kpos = delinearize(b, "(" + idx[2] + " % " + std::to_string(kprod) + "LL)", kshape);
      const Idx opos = delinearize(b, idx[3], w.out);
      Idx src{idx[0], c};
      std::string inside;
      for (size_t i = 0; i < w.spatial; ++i) {
        std::string e = opos[i];
        if (w.strides[i] != 1) e += " * " + std::to_string(w.strides[i]) + "LL";
        if (w.pads[i] != 0) e += " - " + std::to_string(w.pads[i]) + "LL";
        e += " + " + kpos[i] + (w.dilations[i] != 1 ? " * " + std::to_string(w.dilations[i]) + "LL" : "");
        const std::string at = b.let("long long", e);
        src.push_back(at);
        inside += (inside.empty() ? "" : " && ") + at + " >= 0 && " + at + " < " + to_c(w.in[i]);
      }
      const std::string r = "p2_t" + std::to_string(b.scope->next_tmp++);
      b.line(compute_type(dtype) + " " + r + " = 0.0f;");
      b.line("if (" + inside + ") {");
      Body inner = b.child();
      inner.line(r + " = " + g->load(inner, xname, src) + ";");
      b.code += inner.code;
      b.line("}");
      return r;
    };
    ctx.gen.define(patches, std::move(v));
  }
  std::string c;
  if (!bname.empty() && groups == 1) {
    const Value bias = ctx.value(bname);
    if (bias.shape.size() != 1) ctx.unsupported("bias of rank " + std::to_string(bias.shape.size()));
    Value v = bias;
    v.shape = {bias.shape[0], num(1)};
    v.load = [g = &ctx.gen, bname](Body& b, const Idx& idx) { return g->load(b, bname, {idx[0]}); };
    c = out + "#bias";
    ctx.gen.define(c, std::move(v));
  }
  ctx.gen.emit_gemm(ctx.node, wview, patches, false, false, 1.0, c, 1.0, gemm);
  // [N, G, Cout/G, prod(out)] -> [N, Cout, out...], plus the bias per channel when grouped.
  std::vector<SymExpr> shape{n, cout};
  shape.insert(shape.end(), w.out.begin(), w.out.end());
  Value y;
  y.dtype = x.dtype;
  y.shape = shape;
  const std::vector<SymExpr> stored = ctx.value(gemm).shape;
  const std::string grouped_bias = (!bname.empty() && groups > 1) ? bname : std::string();
  y.load = [g = &ctx.gen, gemm, stored, shape, grouped_bias](Body& b, const Idx& idx) {
    const std::string lin = b.let("long long", linear_index(idx, shape));
    const std::string v = g->load(b, gemm, delinearize(b, lin, stored));
    if (grouped_bias.empty()) return v;
    const Value& bias = g->value(grouped_bias);
    return b.let("float", v + " + " + convert(g->load(b, grouped_bias, {idx[1]}), bias.dtype, TensorProto::FLOAT));
  };
  ctx.gen.define(out, std::move(y));
}

// ---- pooling ----------------------------------------------------------------------------------

enum class Pool { kMax, kAverage };

// One output element: a loop over its window. Writes the result (and for max pooling the flat
// index of the maximum over the whole input, as ONNX numbers it) into fresh variables.
struct WindowResult {
  std::string value, index;
};

WindowResult window_loop(Generator& g, Body& b, const std::string& xname, const Windows& w, Pool pool, bool include_pad,
                         const Idx& idx) {
  const Value& x = g.value(xname);
  const std::string id = std::to_string(b.scope->next_tmp++);
  const std::string acc = "p2_w" + id, cnt = "p2_wn" + id, arg = "p2_wi" + id;
  b.line("float " + acc + " = " + (pool == Pool::kMax ? "-P2_INF" : "0.0f") + ";");
  b.line("long long " + cnt + " = 0, " + arg + " = 0;");
  Body inner = b.child("");
  std::string close;
  Idx src{idx[0], idx[1]};
  std::string inside, padded;
  for (size_t i = 0; i < w.spatial; ++i) {
    const std::string k = "p2_k" + id + "_" + std::to_string(i);
    inner.line("for (long long " + k + " = 0; " + k + " < " + std::to_string(w.kernel[i]) + "LL; ++" + k + ") {");
    inner.indent += "  ";
    close += "}";
    std::string e = idx[i + 2];
    if (w.strides[i] != 1) e += " * " + std::to_string(w.strides[i]) + "LL";
    e += " - " + std::to_string(w.pads[i]) + "LL + " + k + (w.dilations[i] != 1 ? " * " + std::to_string(w.dilations[i]) + "LL" : "");
    const std::string at = "p2_at" + id + "_" + std::to_string(i);
    inner.line("const long long " + at + " = " + e + ";");
    src.push_back(at);
    inside += (inside.empty() ? "" : " && ") + at + " >= 0 && " + at + " < " + to_c(w.in[i]);
    // count_include_pad counts the padding but not what lies past it (ceil mode's extra window).
    padded += (padded.empty() ? "" : " && ") + at + " < " + to_c(w.in[i]) + " + " + std::to_string(w.pads[i + w.spatial]) + "LL";
  }
  if (pool == Pool::kAverage && include_pad) inner.line("if (" + padded + ") ++" + cnt + ";");
  inner.line("if (" + inside + ") {");
  Body body = inner.child();
  const std::string v = convert(g.load(body, xname, src), x.dtype, TensorProto::FLOAT);
  if (pool == Pool::kMax) {
    // The first maximum wins (a strictly greater value replaces it), NaN propagates.
    body.line("if (" + v + " > " + acc + " || (" + v + " != " + v + " && " + acc + " == " + acc + ") || " + cnt + " == 0) { " +
              acc + " = " + v + "; " + arg + " = " + linear_index(src, x.shape) + "; }");
    body.line("++" + cnt + ";");
  } else {
    body.line(acc + " += " + v + ";");
    if (!include_pad) body.line("++" + cnt + ";");
  }
  inner.code += body.code;
  inner.line("}");
  b.code += inner.code;
  b.line(close);
  if (pool == Pool::kMax) return {acc, arg};
  return {b.let("float", acc + " / (float)" + cnt), ""};
}

void pool(OpContext& ctx) {
  const std::string xname = ctx.input(0);
  const Value x = ctx.value(xname);
  if (!is_float_dtype(x.dtype)) ctx.unsupported("non-float input");
  const Pool kind = ctx.op() == "MaxPool" ? Pool::kMax : Pool::kAverage;
  const auto* k = ctx.attr("kernel_shape");
  if (!k) ctx.unsupported("no kernel_shape");
  if (kind == Pool::kMax && ctx.attr_int("storage_order", 0) != 0) ctx.unsupported("storage_order 1");
  const Windows w = windows(ctx, x, {k->ints().begin(), k->ints().end()}, ctx.attr_int("ceil_mode", 0) != 0);
  if (kind == Pool::kAverage && ctx.attr("dilations"))
    for (int64_t d : w.dilations)
      if (d != 1) ctx.unsupported("AveragePool with dilations");
  const bool include_pad = ctx.attr_int("count_include_pad", 0) != 0;
  std::vector<SymExpr> shape{x.shape[0], x.shape[1]};
  shape.insert(shape.end(), w.out.begin(), w.out.end());
  for (int o = 0; o < ctx.node.output_size(); ++o) {
    const std::string name = ctx.node.output(o);
    if (name.empty()) continue;
    if (o > 1 || (o == 1 && kind != Pool::kMax)) ctx.unsupported("more than one output");
    const bool indices = o == 1;
    Value v;
    v.dtype = indices ? TensorProto::INT64 : x.dtype;
    v.shape = shape;
    v.load = [g = &ctx.gen, xname, w, kind, include_pad, indices](Body& b, const Idx& idx) {
      const WindowResult r = window_loop(*g, b, xname, w, kind, include_pad, idx);
      return indices ? r.index : r.value;
    };
    ctx.gen.define(name, std::move(v));
    // Written once by its own kernel, so each consumer reads it instead of redoing the window.
    ctx.gen.materialize(name, ctx.op() + " -> " + name);
  }
}

void global_average_pool(OpContext& ctx) {
  const Value& x = ctx.value(ctx.input(0));
  if (x.shape.size() < 3) ctx.unsupported("input of rank " + std::to_string(x.shape.size()) + " (expected [N, C, spatial...])");
  std::vector<int64_t> axes;
  for (size_t i = 2; i < x.shape.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  ctx.gen.emit_rowwise(ctx.node, Generator::RowOp::kMean, ctx.input(0), axes, true, ctx.out);
}

// y = (x - mean) / sqrt(var + epsilon) * scale + bias over channel axis 1.
void batch_norm(OpContext& ctx) {
  if (ctx.attr_int("training_mode", 0) != 0) ctx.unsupported("training_mode 1");
  const Value& x = ctx.value(ctx.input(0));
  if (!is_float_dtype(x.dtype) || x.shape.size() < 2) ctx.unsupported("expects a float input of rank >= 2");
  std::vector<std::string> params;
  for (int i = 1; i <= 4; ++i) {
    const std::string name = ctx.input(i);
    if (name.empty() || ctx.value(name).shape.size() != 1) ctx.unsupported("scale, bias, mean and var must be 1-D");
    params.push_back(name);
  }
  const std::string xname = ctx.input(0), eps = float_literal(ctx.attr_float("epsilon", 1e-5f));
  Value y;
  y.dtype = x.dtype;
  y.shape = x.shape;
  y.load = [g = &ctx.gen, xname, params, eps](Body& b, const Idx& idx) {
    auto f = [&](const std::string& name, const Idx& i) {
      return convert(g->load(b, name, i), g->value(name).dtype, TensorProto::FLOAT);
    };
    const std::string xv = f(xname, idx), scale = f(params[0], {idx[1]}), bias = f(params[1], {idx[1]}),
                      mean = f(params[2], {idx[1]}), var = f(params[3], {idx[1]});
    return b.let("float", "(" + xv + " - " + mean + ") / sqrtf(" + var + " + " + eps + ") * " + scale + " + " + bias);
  };
  ctx.gen.define(ctx.out, std::move(y));
}

}  // namespace

void register_conv_pool_op_rules(OpRuleTable& t) {
  t.add("BatchNormalization", batch_norm);
  t.add("Conv", conv);
  t.add("MaxPool", pool, false, /*multi_output=*/true);
  t.add("AveragePool", pool);
  t.add("GlobalAveragePool", global_average_pool);
}

}  // namespace pt2onnx::kernels::detail
