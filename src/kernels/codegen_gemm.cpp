// The tiled GEMM (MatMul, Gemm, the implicit GEMM of Conv): operand loaders and the fused
// epilogue filled into gemm_simt.cu, and for fp16/bf16 matrices gemm_mma.cu around it.
#include <algorithm>

#include "common/error.h"
#include "kernels/expr.h"
#include "kernels/generator.h"
#include "kernels/kernel_template.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

using onnx::TensorProto;

namespace {
constexpr int kBlock = Renderer::kBlock;
constexpr int kTile = 64, kTileK = 16;
}  // namespace

// The logical [batch..., M, K] x [batch..., K, N] of a GEMM's operands (vectors widened, the
// transposes applied) and the shapes of its result.
struct Generator::GemmShape {
  bool a_vec = false, b_vec = false;
  SymExpr m, k, n;
  std::vector<SymExpr> ba, bb, batch;  // the operands' batch dims and their broadcast
  std::vector<SymExpr> out_shape;      // the node's output
  std::vector<SymExpr> full;           // [batch..., M, N]: the stored layout (M or N may be 1)
};

// The 16-byte chunk a tensor-core GEMM copies with cp.async: its values (8 16-bit or 4 floats)
// and their C type.
struct Generator::GemmAsync {
  std::string chunk, element;
};

namespace {

// The index of an operand element at (row, col) of the tile loop, in block `bidx` of `batch`.
Idx operand_index(const Idx& bidx, const std::vector<SymExpr>& batch, const std::vector<SymExpr>& bshape,
                  const std::string& row, const std::string& col, bool vec_is_a, bool is_vec, bool trans) {
  Idx idx = broadcast_index(bidx, batch, bshape);
  if (is_vec) {
    idx.push_back(vec_is_a ? col : row);
    return idx;
  }
  if (trans) {
    idx.push_back(col);
    idx.push_back(row);
  } else {
    idx.push_back(row);
    idx.push_back(col);
  }
  return idx;
}

}  // namespace

Generator::GemmShape Generator::gemm_shape(const onnx::NodeProto& node, const Value& va, const Value& vb, bool trans_a,
                                           bool trans_b) const {
  GemmShape g;
  std::vector<SymExpr> sa = va.shape, sb = vb.shape;
  g.a_vec = sa.size() == 1;
  g.b_vec = sb.size() == 1;
  if (g.a_vec) sa.insert(sa.begin(), ir::sym_int(1));
  if (g.b_vec) sb.push_back(ir::sym_int(1));
  if (trans_a) std::swap(sa[sa.size() - 1], sa[sa.size() - 2]);
  if (trans_b) std::swap(sb[sb.size() - 1], sb[sb.size() - 2]);
  g.m = sa[sa.size() - 2];
  g.k = sa.back();
  g.n = sb.back();
  const SymExpr k2 = sb[sb.size() - 2];
  if (!same_dim(g.k, k2)) unsupported(node, "contraction sizes differ: " + ir::to_string(g.k) + " vs " + ir::to_string(k2));
  g.ba.assign(sa.begin(), sa.end() - 2);
  g.bb.assign(sb.begin(), sb.end() - 2);
  const size_t rank = std::max(g.ba.size(), g.bb.size());
  g.batch.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const SymExpr* x = i + g.ba.size() >= rank ? &g.ba[i + g.ba.size() - rank] : nullptr;
    const SymExpr* y = i + g.bb.size() >= rank ? &g.bb[i + g.bb.size() - rank] : nullptr;
    if (x && y && !same_dim(*x, *y) && !is_const(*x, 1) && !is_const(*y, 1))
      unsupported(node, "batch dims do not broadcast: " + ir::to_string(*x) + " vs " + ir::to_string(*y));
    g.batch[i] = (!x || (y && is_const(*x, 1))) ? *y : *x;
  }
  g.out_shape = g.batch;
  if (!g.a_vec) g.out_shape.push_back(g.m);
  if (!g.b_vec) g.out_shape.push_back(g.n);
  g.full = g.batch;
  g.full.push_back(g.m);
  g.full.push_back(g.n);
  return g;
}

std::vector<int> Generator::gemm_epilogue(const std::string& out, int dtype, const std::vector<SymExpr>& out_shape,
                                          std::string& last) {
  std::vector<int> chain;
  Value acc;
  acc.dtype = dtype;
  acc.shape = out_shape;
  acc.load = [](Body&, const Idx&) { return std::string("p2_r"); };  // the accumulator, only in the epilogue
  define(out, acc);
  while (!graph_.is_output(last)) {
    const std::vector<int>& users = graph_.consumers(last);
    if (users.size() != 1) break;
    const onnx::NodeProto& cn = function_.node(users[0]);
    if (!builtin_op_rules().epilogue(cn.op_type()) || !cn.domain().empty() || cn.output_size() != 1) break;
    bool ready = true;
    for (const auto& in : cn.input()) ready = ready && (in.empty() || in == last || has(in));
    if (!ready) break;
    visit(cn);
    const Value& v = value(cn.output(0));
    bool same = v.shape.size() == out_shape.size();
    for (size_t i = 0; same && i < out_shape.size(); ++i) same = same_dim(v.shape[i], out_shape[i]);
    if (!same) break;
    chain.push_back(users[0]);
    last = cn.output(0);
  }
  return chain;
}

std::string Generator::gemm_async_copy(Scope& scope, const GemmAsync& copy, const Value& v, const Idx& idx, bool is_a,
                                       bool trans, const std::string& tile) const {
  if (v.strided_pointer.empty() || buffers_.storage_dtype(v.strided_pointer) != v.dtype) return std::string();
  const size_t r = v.shape.size();
  const size_t kaxis = (is_a != trans) ? r - 1 : r - 2;  // A [.., M, K], B [.., K, N]; swapped when transposed
  if (!is_const(v.strides[kaxis], 1)) return std::string();
  const std::string row = is_a ? "p2_am" : "p2_bn", bound = is_a ? "p2_M" : "p2_N";
  std::string offset;
  for (size_t i = 0; i < r; ++i) offset += (i ? " + " : "") + idx[i] + "*(" + to_c(v.strides[i]) + ")";
  scope.pointers.insert(v.strided_pointer);
  Body x = Body::at_depth(scope, 4);
  x.line("if (" + row + " < " + bound + " && p2_k0 + p2_cc + " + copy.chunk + " <= p2_K) {");
  x.line("  const " + copy.element + "* p2_src = &" + v.strided_pointer + "[" + offset + "];");
  x.line("  if (p2_aligned16(p2_src)) {");
  x.line("    p2_cp_async16(&" + tile + "[p2_st][p2_cr][p2_cc], p2_src);");
  x.line("    p2_async = true;");
  x.line("  }");
  x.line("}");
  return x.code;
}

void Generator::hide_fused(const std::vector<std::string>& names, const std::string& into) {
  for (const auto& g : names) {
    Value v;
    if (has(g)) v = value(g);
    v.load = [g, into](Body&, const Idx&) -> std::string {
      fail(ErrorCode::kInternal, "--compile: value " + g + " was fused into " + into + " but is read again");
    };
    define(g, v);
  }
}

void Generator::emit_gemm(const onnx::NodeProto& node, const std::string& a, const std::string& bname, bool trans_a,
                          bool trans_b, double alpha, const std::string& c, double beta, const std::string& out) {
  const Value va = value(a), vb = value(bname);
  if (va.shape.empty() || vb.shape.empty()) unsupported(node, "scalar operand");
  if (!is_float_dtype(va.dtype) || !is_float_dtype(vb.dtype)) unsupported(node, "non-float operands");
  const GemmShape g = gemm_shape(node, va, vb, trans_a, trans_b);
  const SymExpr &m = g.m, &k = g.k, &n = g.n;
  const int dtype = va.dtype;
  if (c.empty() == false) {
    const Value& vc = value(c);
    if (vc.shape.size() > 2) unsupported(node, "Gemm bias of rank > 2");
  }
  // Epilogue: a chain of pointwise nodes, each the only consumer of the previous value, whose
  // other operands exist already and whose shape stays the GEMM's, is computed before the store.
  std::string last = out;
  const std::vector<int> chain =
      current_node_ >= 0 && !g.a_vec && !g.b_vec ? gemm_epilogue(out, dtype, g.out_shape, last) : std::vector<int>{};
  const int last_dtype = chain.empty() ? dtype : value(last).dtype;
  const Dest dest = buffers_.destination(last, last_dtype, g.out_shape);

  Scope scope;
  auto block = [&](int depth) { return Body::at_depth(scope, depth); };
  Body bi = block(1);
  const Idx bidx = delinearize(bi, "(long long)blockIdx.z", g.batch);
  auto index_a = [&](const std::string& row, const std::string& col) {
    return operand_index(bidx, g.batch, g.ba, row, col, true, g.a_vec, trans_a);
  };
  auto index_b = [&](const std::string& row, const std::string& col) {
    return operand_index(bidx, g.batch, g.bb, row, col, false, g.b_vec, trans_b);
  };
  // Statements setting p2_av (p2_bv) from the operand at (p2_am, p2_ak) ((p2_bk, p2_bn)), `depth` deep.
  auto load_a = [&](int depth) {
    Body x = block(depth);
    x.line("p2_av = " + convert(load(x, a, index_a("p2_am", "p2_ak")), va.dtype, TensorProto::FLOAT) + ";");
    return x.code;
  };
  auto load_b = [&](int depth) {
    Body x = block(depth);
    x.line("p2_bv = " + convert(load(x, bname, index_b("p2_bk", "p2_bn")), vb.dtype, TensorProto::FLOAT) + ";");
    return x.code;
  };
  const std::string simt_load_a = load_a(4), simt_load_b = load_b(4);
  Body epi = block(2);
  std::string result = "p2_acc[i][j]";
  if (alpha != 1.0) result = float_literal(alpha) + " * " + result;
  if (!c.empty() && beta != 0.0) {
    const Value& vc = value(c);
    const Idx cidx = broadcast_index({"p2_m", "p2_n"}, {m, n}, vc.shape);
    std::string cv = convert(load(epi, c, cidx), vc.dtype, TensorProto::FLOAT);
    result += " + " + (beta == 1.0 ? cv : float_literal(beta) + " * " + cv);
  }
  Idx oidx = bidx;
  oidx.push_back("p2_m");
  oidx.push_back("p2_n");
  int result_dtype = TensorProto::FLOAT;
  std::string computes = node.op_type() + " -> " + out;
  if (!chain.empty()) {
    epi.line("const float p2_r = " + result + ";");
    result = load(epi, last, oidx);
    result_dtype = last_dtype;
    for (int ci : chain) {
      fused_nodes_.insert(ci);
      computes += ", " + function_.node(ci).op_type() + " -> " + function_.node(ci).output(0);
    }
  }
  epi.line(dest.pointer + "[" + linear_index(oidx, g.full) + "] = " + store_converted(result, result_dtype, dest.storage_dtype) + ";");
  const Holes simt{{"BLOCK", std::to_string(kBlock)}, {"T", std::to_string(kTile)}, {"TK", std::to_string(kTileK)},
                   {"M", to_c(m)}, {"N", to_c(n)}, {"K", to_c(k)}, {"BATCH_INDEX", bi.code},
                   {"LOAD_A", simt_load_a}, {"LOAD_B", simt_load_b}, {"EPILOGUE", epi.code}};
  std::string body = render_template("gemm_simt", simt);
  int smem = 2 * kTileK * (kTile + 1) * 4;
  // fp16 x fp16 or bf16 x bf16 matrices: tensor cores on sm_80+ (the SIMT body elsewhere); fp32
  // x fp32 too, as TF32, when asked for (--kernel-tf32: it changes the numerics).
  const bool matrices = !g.a_vec && !g.b_vec && va.dtype == vb.dtype;
  const bool tensor = matrices && (va.dtype == TensorProto::FLOAT16 || va.dtype == TensorProto::BFLOAT16);
  const bool tf32 = matrices && options_.tf32 && va.dtype == TensorProto::FLOAT;
  if (tensor || tf32) {
    static_assert(kTile == 64 && kBlock == 256, "gemm_mma.cu's warp layout is 8 warps over a 64 x 64 tile");
    const bool f16 = va.dtype == TensorProto::FLOAT16;
    // cp.async of a 16-byte chunk of consecutive k (8 16-bit values or 4 floats): the operand is
    // a (permuted) view of a buffer of its own type whose k axis has stride 1; rows, range and
    // alignment are checked per chunk.
    const GemmAsync copy{tf32 ? "4" : "8", tf32 ? "float" : "unsigned short"};
    Holes mma{{"T", std::to_string(kTile)}, {"M", to_c(m)}, {"N", to_c(n)}, {"K", to_c(k)}, {"BATCH_INDEX", bi.code},
              {"A_ASYNC", gemm_async_copy(scope, copy, va, index_a("p2_am", "(p2_k0 + p2_cc)"), true, trans_a, "p2_as")},
              {"B_ASYNC", gemm_async_copy(scope, copy, vb, index_b("(p2_k0 + p2_cc)", "p2_bn"), false, trans_b, "p2_bs")},
              {"LOAD_A", load_a(6)}, {"LOAD_B", load_b(6)}, {"EPILOGUE", epi.code}, {"SIMT", body}};
    // What the element type decides: a K step of 64 bytes of a row, 16-byte chunks, rows padded
    // by one chunk (bank conflicts), the mma's K (m16n8k16 for 16-bit values, m16n8k8 for tf32).
    const int bytes = tf32 ? 4 : 2, kt = 64 / bytes, per_chunk = 16 / bytes;
    mma["ELEM"] = copy.element;
    mma["KT"] = std::to_string(kt);
    mma["KT_LAST"] = std::to_string(kt - 1);
    mma["KPAD"] = mma["CHUNK"] = std::to_string(per_chunk);
    mma["CHUNK_LAST"] = std::to_string(per_chunk - 1);
    mma["KSTEP"] = tf32 ? "8" : "16";
    mma["TO_ELEM"] = tf32 ? "" : f16 ? "p2_f2h" : "p2_f2b";
    mma["MMA"] = tf32 ? "p2_mma_tf32" : f16 ? "p2_mma_f16" : "p2_mma_bf16";
    mma["FRAGMENTS"] = render_template(tf32 ? "gemm_mma_frag_tf32" : "gemm_mma_frag_16",
                                       {{"KT", mma["KT"]}, {"KPAD", mma["KPAD"]}});
    if (tf32) used_tf32_ = true;
    body = render_template("gemm_mma", mma);
    smem = std::max(smem, 2 * 2 * kTile * (kt + per_chunk) * bytes + kTile * (kTile + 4) * 4);
  }
  const SymExpr nb = product(g.batch);
  if (!const_value(nb)) preconditions_.push_back(to_manifest(nb) + " <= 65535");
  else if (*const_value(nb) > 65535) unsupported(node, "batch of more than 65535 matrices");
  add_kernel(computes, dest.pointer, scope, body, smem,
             {to_manifest(ir::sym_apply(ir::SymOp::kCeilDiv, {n, ir::sym_int(kTile)})),
              to_manifest(ir::sym_apply(ir::SymOp::kCeilDiv, {m, ir::sym_int(kTile)})), to_manifest(nb)});
  if (chain.empty()) {
    define_stored(out, dtype, g.out_shape, dest);
    return;
  }
  define_stored(last, last_dtype, g.out_shape, dest);
  // The GEMM result and the chain's inner values exist only inside the kernel.
  std::vector<std::string> gone{out};
  for (size_t i = 0; i + 1 < chain.size(); ++i) gone.push_back(function_.node(chain[i]).output(0));
  hide_fused(gone, "a GEMM epilogue");
}

}  // namespace pt2onnx::kernels::detail
