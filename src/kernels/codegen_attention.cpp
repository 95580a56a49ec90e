// Fused attention: the MatMul -> (mask) -> Softmax -> (all-masked guard) -> MatMul chain that
// translate/rules/attention.cpp emits becomes one kernel. Each block owns 32 query rows of one batch entry
// and streams the keys in blocks of 32, keeping a running max and sum per row (online softmax in
// fp32), so the [.., L, S] scores never reach global memory. The mask (causal bias, float bias,
// boolean Where) is the body's own pointwise nodes, evaluated inline at (row, key) exactly as
// the decomposed path would evaluate them after the GEMM.
#include <algorithm>
#include <cmath>
#include <optional>

#include "common/error.h"
#include "kernels/generator.h"
#include "kernels/expr.h"
#include "kernels/kernel_template.h"

namespace pt2onnx::kernels::detail {

namespace {

using onnx::TensorProto;

constexpr int kRows = 32;      // query rows per block
constexpr int kKeys = 32;      // keys per streamed block
constexpr int kLanes = 8;      // threads per query row (256 / 32)
constexpr int kMaxHead = 128;  // head dims staged in shared memory: 2 * 32 * 129 * 4 + P < 48 KB

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool is_op(const onnx::NodeProto& n, const char* op) {
  return n.op_type() == op && (n.domain().empty() || n.domain() == "ai.onnx");
}

// The online-softmax update both bodies share; `store_weight` writes a key's weight p2_pv.
std::string online_softmax(int per_lane, const std::string& store_weight) {
  return render_template("attention_online_softmax",
                         {{"NL", std::to_string(kLanes)}, {"HALF_LANES", std::to_string(kLanes / 2)},
                          {"K", std::to_string(kKeys)}, {"PER_LANE", std::to_string(per_lane)},
                          {"STORE_WEIGHT", "      " + store_weight + "\n"}});
}

// fp16 / bf16 q', k', v: the tensor-core body around the SIMT one (`simt`, filled from `holes`),
// for head sizes e and ev; `smem` grows to what it stages.
std::string attention_mma_body(bool f16, int64_t e, int64_t ev, const Holes& holes, const std::string& simt, int per_lane,
                               int& smem) {
  static_assert(kRows == 32 && kKeys == 32 && kLanes == 8, "attention_mma.cu: 2 x 4 m16n8 score tiles, one per warp");
  const int ep = static_cast<int>((e + 15) / 16 * 16), evp = static_cast<int>((ev + 15) / 16 * 16);
  const int fw = std::max(kKeys, evp) + 4;
  Holes mma = holes;
  mma["EP"] = std::to_string(ep);
  mma["EVP"] = std::to_string(evp);
  mma["FW"] = std::to_string(fw);
  mma["TO_16"] = f16 ? "p2_f2h" : "p2_f2b";
  mma["ONLINE_SOFTMAX"] =
      online_softmax(per_lane, "p2_ph[p2_r][p2_g + " + std::to_string(kLanes) + " * u] = " + mma["TO_16"] + "(p2_pv);");
  mma["MMA"] = f16 ? "p2_mma_f16" : "p2_mma_bf16";
  mma["SIMT"] = simt;
  mma.erase("KV_WIDTH");
  smem = std::max(smem, ((kRows + kKeys) * (ep + 8) + (evp + kRows) * (kKeys + 8)) * 2 + kRows * fw * 4);
  return render_template("attention_mma", mma);
}

}  // namespace

std::vector<int> Generator::AttentionMatch::deferred() const {
  std::vector<int> d{scores, softmax};
  if (mask >= 0) d.push_back(mask);
  d.insert(d.end(), tail.begin(), tail.end());
  std::sort(d.begin(), d.end());
  return d;
}

std::vector<Generator::AttentionMatch> Generator::find_attention() const {
  std::vector<AttentionMatch> found;
  // The only node reading `name`, when it is not also a function output; else -1.
  auto sole = [&](const std::string& name) -> int {
    if (graph_.is_output(name)) return -1;
    const std::vector<int>& users = graph_.consumers(name);
    return users.size() == 1 ? users[0] : -1;
  };
  auto users = [&](const std::string& name) -> std::vector<int> {
    if (graph_.is_output(name)) return {};
    return graph_.consumers(name);
  };
  auto node = [&](int i) -> const onnx::NodeProto& { return function_.node(i); };
  auto single_out = [&](int i) { return node(i).output_size() == 1; };
  for (int n = 0; n < function_.node_size(); ++n) {
    const onnx::NodeProto& mm = node(n);
    if (!is_op(mm, "MatMul") || mm.input_size() != 2 || !single_out(n)) continue;
    AttentionMatch m;
    m.scores = n;
    std::string cur = mm.output(0);
    int next = sole(cur);
    if (next < 0) continue;
    const onnx::NodeProto& c = node(next);
    if (is_op(c, "Add") && c.input_size() == 2 && (c.input(0) == cur) != (c.input(1) == cur) && single_out(next)) {
      m.mask = next;
    } else if (is_op(c, "Where") && c.input_size() == 3 && c.input(1) == cur && c.input(0) != cur && c.input(2) != cur &&
               single_out(next)) {
      m.mask = next;
    }
    if (m.mask >= 0) cur = node(m.mask).output(0);
    // The masked scores feed the Softmax and, with a mask, the all-masked guard's Equal.
    const std::vector<int> readers = users(cur);
    int eq = -1;
    for (int r : readers) {
      if (is_op(node(r), "Softmax") && node(r).input(0) == cur && single_out(r)) m.softmax = r;
      else if (is_op(node(r), "Equal") && node(r).input_size() == 2 && node(r).input(0) == cur && node(r).input(1) != cur)
        eq = r;
    }
    if (m.softmax < 0 || readers.size() != (eq >= 0 ? 2u : 1u)) continue;
    std::string weights = node(m.softmax).output(0);
    if (eq >= 0) {
      // Equal -> Cast -> ReduceMin -> Cast -> Where(all_masked, 0, weights)
      std::vector<int> tail{eq};
      const char* kinds[] = {"Cast", "ReduceMin", "Cast", "Where"};
      bool ok = true;
      for (const char* k : kinds) {
        const int t = sole(node(tail.back()).output(0));
        ok = ok && t >= 0 && is_op(node(t), k) && single_out(t) && node(t).input(0) == node(tail.back()).output(0);
        if (!ok) break;
        tail.push_back(t);
      }
      if (!ok) continue;
      const onnx::NodeProto& w = node(tail.back());
      if (w.input_size() != 3 || w.input(2) != weights || w.input(1) == weights || sole(weights) != tail.back()) continue;
      m.tail = tail;
      weights = w.output(0);
    }
    const int out = sole(weights);
    if (out < 0 || !is_op(node(out), "MatMul") || node(out).input_size() != 2 || node(out).input(0) != weights ||
        node(out).input(1) == weights || !single_out(out))
      continue;
    m.out = out;
    found.push_back(m);
  }
  return found;
}

bool Generator::causal_bias(const onnx::NodeProto& add, const std::string& scores, const SymExpr& L, const SymExpr& S) {
  // Add(scores, Where(LessOrEqual(Range(0, S, 1), Unsqueeze(Range(0, L, 1), [1])), 0, -inf)), as
  // translate/rules/attention.cpp's causal_bias spells torch's top-left aligned tril mask.
  if (!is_op(add, "Add")) return false;
  auto producer = [&](const std::string& name) { return graph_.producer(name); };
  auto known = [&](const std::string& name, std::optional<int64_t> want, const SymExpr* dim) {
    if (name.empty() || !has(name) || !value(name).ints || value(name).ints->size() != 1) return false;
    const SymExpr& v = (*value(name).ints)[0];
    return dim ? same_dim(v, *dim) : const_value(v) == want;
  };
  auto range_to = [&](const std::string& name, const SymExpr& limit) {
    const onnx::NodeProto* r = producer(name);
    return r && is_op(*r, "Range") && r->input_size() == 3 && known(r->input(0), 0, nullptr) &&
           known(r->input(1), std::nullopt, &limit) && known(r->input(2), 1, nullptr);
  };
  auto scalar = [&](const std::string& name, double want) {
    return has(name) && value(name).floats && value(name).floats->size() == 1 && (*value(name).floats)[0] == want;
  };
  const std::string bias = add.input(0) == scores ? add.input(1) : add.input(0);
  const onnx::NodeProto* where = producer(bias);
  if (!where || !is_op(*where, "Where") || where->input_size() != 3 || !scalar(where->input(1), 0.0) ||
      !scalar(where->input(2), -INFINITY))
    return false;
  const onnx::NodeProto* le = producer(where->input(0));
  if (!le || !is_op(*le, "LessOrEqual") || le->input_size() != 2 || !range_to(le->input(0), S)) return false;
  const onnx::NodeProto* unsq = producer(le->input(1));
  if (!unsq || !is_op(*unsq, "Unsqueeze") || unsq->input_size() != 2 || !range_to(unsq->input(0), L)) return false;
  const Value& rows = value(le->input(1));
  const Value& cols = value(le->input(0));
  return rows.shape.size() == 2 && same_dim(rows.shape[0], L) && is_const(rows.shape[1], 1) && cols.shape.size() == 1 &&
         same_dim(cols.shape[0], S);
}

// The operands of a match and the shapes they prove: q' [bq.., L, E] x k' [bk.., E, S] -> scores
// [batch.., L, S]; weights x v [bv.., S, Ev].
struct Generator::AttentionShape {
  std::string qn, kn, vn;
  Value vq, vk, vv;
  SymExpr L, S, Ev;
  int64_t e = 0, ev = 0;  // the head sizes, static
  std::vector<SymExpr> bq, bk, bv, batch;
  std::vector<SymExpr> scores_shape;  // [batch.., L, S]
};

namespace {

// Whether `name` is a known float scalar equal to `want`, of rank <= `max_rank`.
bool scalar_is(Generator& gen, const std::string& name, double want, size_t max_rank) {
  if (name.empty() || !gen.has(name)) return false;
  const Value& v = gen.value(name);
  if (!v.floats || v.floats->size() != 1 || v.shape.size() > max_rank) return false;
  return (*v.floats)[0] == want;
}

// The 16-bit type (FLOAT16 or BFLOAT16) a float operand was computed from: a Cast to float of such
// a value, reached through Transposes, Reshapes and products with a scalar constant; 0 otherwise.
// translate/half_in_float.h computes attention of half operands in float; the kernel still takes
// them to tensor cores, each operand rounded once to the 16-bit type as an all-half graph has it.
int sixteen_bit_origin(Generator& gen, const ValueGraph& graph, std::string name) {
  auto sixteen = [](int t) { return t == TensorProto::FLOAT16 || t == TensorProto::BFLOAT16; };
  auto scalar_constant = [&](const std::string& v) { return gen.has(v) && gen.value(v).floats && gen.value(v).floats->size() == 1; };
  if (gen.has(name) && sixteen(gen.value(name).dtype)) return gen.value(name).dtype;
  for (int hops = 0; hops < 8; ++hops) {
    const onnx::NodeProto* p = graph.producer(name);
    if (!p || p->input_size() < 1) return 0;
    if (is_op(*p, "Cast")) {
      const int from = gen.has(p->input(0)) ? gen.value(p->input(0)).dtype : 0;
      return sixteen(from) ? from : 0;
    }
    if (is_op(*p, "Transpose") || is_op(*p, "Reshape")) {
      name = p->input(0);
    } else if (is_op(*p, "Mul") && p->input_size() == 2) {
      const bool first_scalar = scalar_constant(p->input(0)), second_scalar = scalar_constant(p->input(1));
      if (first_scalar == second_scalar) return 0;
      name = first_scalar ? p->input(1) : p->input(0);
    } else {
      return 0;
    }
  }
  return 0;
}

}  // namespace

std::optional<Generator::AttentionShape> Generator::attention_shape(const AttentionMatch& m) {
  const onnx::NodeProto& mm1 = function_.node(m.scores);
  const onnx::NodeProto& mm2 = function_.node(m.out);
  AttentionShape a;
  a.qn = mm1.input(0);
  a.kn = mm1.input(1);
  a.vn = mm2.input(1);
  if (!has(a.qn) || !has(a.kn) || !has(a.vn)) return std::nullopt;
  a.vq = value(a.qn);
  a.vk = value(a.kn);
  a.vv = value(a.vn);
  const Value &vq = a.vq, &vk = a.vk, &vv = a.vv;
  if (!is_float_dtype(vq.dtype) || !is_float_dtype(vk.dtype) || !is_float_dtype(vv.dtype)) return std::nullopt;
  if (vq.shape.size() < 2 || vk.shape.size() < 2 || vv.shape.size() < 2) return std::nullopt;
  a.L = vq.shape[vq.shape.size() - 2];
  const SymExpr E = vq.shape.back();
  const SymExpr E2 = vk.shape[vk.shape.size() - 2];
  a.S = vk.shape.back();
  const SymExpr S2 = vv.shape[vv.shape.size() - 2];
  a.Ev = vv.shape.back();
  const auto e = const_value(E), ev = const_value(a.Ev);
  if (!same_dim(E, E2) || !same_dim(a.S, S2) || !e || !ev || *e < 1 || *e > kMaxHead || *ev < 1 || *ev > kMaxHead)
    return std::nullopt;
  a.e = *e;
  a.ev = *ev;
  a.bq.assign(vq.shape.begin(), vq.shape.end() - 2);
  a.bk.assign(vk.shape.begin(), vk.shape.end() - 2);
  a.bv.assign(vv.shape.begin(), vv.shape.end() - 2);
  // Batch dims: q' and k' broadcast to `batch`; v may only broadcast into it, not widen it.
  const size_t rank = std::max(a.bq.size(), a.bk.size());
  if (a.bv.size() > rank) return std::nullopt;
  a.batch.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const SymExpr* x = i + a.bq.size() >= rank ? &a.bq[i + a.bq.size() - rank] : nullptr;
    const SymExpr* y = i + a.bk.size() >= rank ? &a.bk[i + a.bk.size() - rank] : nullptr;
    if (x && y && !same_dim(*x, *y) && !is_const(*x, 1) && !is_const(*y, 1)) return std::nullopt;
    a.batch[i] = (!x || (y && is_const(*x, 1))) ? *y : *x;
  }
  for (size_t i = 0; i < a.bv.size(); ++i)
    if (!is_const(a.bv[i], 1) && !same_dim(a.bv[i], a.batch[i + rank - a.bv.size()])) return std::nullopt;
  a.scores_shape = a.batch;
  a.scores_shape.push_back(a.L);
  a.scores_shape.push_back(a.S);
  return a;
}

std::optional<std::string> Generator::define_attention_mask(const AttentionMatch& m, const AttentionShape& a) {
  const size_t srank = a.scores_shape.size();
  // The raw score exists only inside the kernel, as the float p2_s; the mask node is visited as
  // the pointwise value it is, reading it.
  Value raw;
  raw.dtype = a.vq.dtype;
  raw.shape = a.scores_shape;
  raw.load = [](Body&, const Idx&) { return std::string("p2_s"); };
  std::string masked = function_.node(m.scores).output(0);
  if (m.mask < 0) {
    define(masked, raw);
    return masked;
  }
  const onnx::NodeProto& mk = function_.node(m.mask);
  for (const auto& in : mk.input())
    if (in != masked && !has(in)) return std::nullopt;
  if (is_op(mk, "Where")) {
    if (!scalar_is(*this, mk.input(2), -INFINITY, srank)) return std::nullopt;
    const Value& cond = value(mk.input(0));
    if (cond.dtype != TensorProto::BOOL) return std::nullopt;
  } else {
    const std::string other = mk.input(0) == masked ? mk.input(1) : mk.input(0);
    if (!is_float_dtype(value(other).dtype)) return std::nullopt;
  }
  define(masked, raw);
  visit(mk);
  masked = mk.output(0);
  const std::vector<SymExpr>& shape = value(masked).shape;
  bool same = shape.size() == srank;
  for (size_t i = 0; same && i < srank; ++i) same = same_dim(shape[i], a.scores_shape[i]);
  if (!same || !is_float_dtype(value(masked).dtype)) return std::nullopt;
  return masked;
}

std::optional<bool> Generator::attention_guard(const AttentionMatch& m, size_t srank) {
  // The guard: Where(min(Cast(Equal(scores, -inf))) over the last axis, 0, weights) is "a row
  // with every key at -inf gives 0", which is the running max staying -inf.
  if (m.tail.empty()) return false;
  const onnx::NodeProto& eq = function_.node(m.tail[0]);
  const onnx::NodeProto& c1 = function_.node(m.tail[1]);
  const onnx::NodeProto& rmin = function_.node(m.tail[2]);
  const onnx::NodeProto& c2 = function_.node(m.tail[3]);
  const onnx::NodeProto& wh = function_.node(m.tail[4]);
  if (!scalar_is(*this, eq.input(1), -INFINITY, srank)) return std::nullopt;
  const auto* to1 = attr(c1, "to");
  const auto* to2 = attr(c2, "to");
  if (!to1 || !is_int_dtype(static_cast<int>(to1->i())) || !to2 || to2->i() != TensorProto::BOOL) return std::nullopt;
  std::vector<int64_t> axes;
  if (rmin.input_size() > 1 && !rmin.input(1).empty()) {
    if (!has(rmin.input(1)) || !value(rmin.input(1)).ints) return std::nullopt;
    for (const auto& x : *value(rmin.input(1)).ints) {
      const auto c = const_value(x);
      if (!c) return std::nullopt;
      axes.push_back(*c);
    }
  } else if (const auto* a = attr(rmin, "axes")) {
    axes.assign(a->ints().begin(), a->ints().end());
  }
  const auto* kd = attr(rmin, "keepdims");
  if (axes.size() != 1 || (axes[0] != -1 && axes[0] != static_cast<int64_t>(srank) - 1) || (kd && kd->i() != 1))
    return std::nullopt;
  if (!scalar_is(*this, wh.input(1), 0.0, srank)) return std::nullopt;
  return true;
}

bool Generator::emit_attention(const AttentionMatch& m) {
  const onnx::NodeProto& mm1 = function_.node(m.scores);
  const onnx::NodeProto& mm2 = function_.node(m.out);
  const onnx::NodeProto& sm = function_.node(m.softmax);
  const std::optional<AttentionShape> shape = attention_shape(m);
  if (!shape) return false;
  const AttentionShape& a = *shape;
  const size_t srank = a.scores_shape.size();
  // Softmax over the last axis (also what opset < 13's 2-D coercion means for axis = rank - 1).
  {
    const auto* at = attr(sm, "axis");
    int64_t axis = at ? at->i() : (opset() >= 13 ? -1 : 1);
    if (axis < 0) axis += static_cast<int64_t>(srank);
    if (axis != static_cast<int64_t>(srank) - 1) return false;
  }
  const int dtype = a.vq.dtype;
  const std::optional<std::string> masked = define_attention_mask(m, a);
  if (!masked) return false;
  const int masked_dtype = value(*masked).dtype;
  const bool causal = m.mask >= 0 && causal_bias(function_.node(m.mask), mm1.output(0), a.L, a.S);
  const std::optional<bool> zero_rows = attention_guard(m, srank);
  if (!zero_rows) return false;
  // Grid: x = batch entry, y = tile of query rows.
  const SymExpr nb = product(a.batch);
  const SymExpr tiles = ir::sym_apply(ir::SymOp::kCeilDiv, {a.L, ir::sym_int(kRows)});
  if (const_value(tiles) && *const_value(tiles) > 65535) return false;
  if (const_value(nb) && *const_value(nb) > 2147483647) return false;
  // ---- proven: emit ----
  if (!const_value(nb)) preconditions_.push_back(to_manifest(nb) + " <= 2147483647");
  if (!const_value(tiles)) preconditions_.push_back(to_manifest(tiles) + " <= 65535");
  std::vector<SymExpr> out_shape = a.batch;
  out_shape.push_back(a.L);
  out_shape.push_back(a.Ev);
  const std::string out = mm2.output(0);
  const Dest dest = buffers_.destination(out, dtype, out_shape);
  const std::string R = std::to_string(kRows), K = std::to_string(kKeys), Es = std::to_string(a.e),
                    EVs = std::to_string(a.ev), NL = std::to_string(kLanes);
  const int kv_width = static_cast<int>(std::max(a.e, a.ev));
  const int per_lane = static_cast<int>((a.ev + kLanes - 1) / kLanes);
  Scope scope;
  auto block = [&](int depth) { return Body::at_depth(scope, depth); };
  Body bi = block(1);
  const Idx bidx = delinearize(bi, "(long long)blockIdx.x", a.batch);
  auto with_batch = [&](const std::vector<SymExpr>& bshape, const std::string& r, const std::string& c) {
    Idx idx = broadcast_index(bidx, a.batch, bshape);
    idx.push_back(r);
    idx.push_back(c);
    return idx;
  };
  // Statements setting p2_v to an operand element (as float), `depth` deep.
  auto load_operand = [&](int depth, const std::string& name, const Value& v, const std::vector<SymExpr>& bshape,
                          const std::string& r, const std::string& c) {
    Body x = block(depth);
    x.line("p2_v = " + convert(load(x, name, with_batch(bshape, r, c)), v.dtype, TensorProto::FLOAT) + ";");
    return x.code;
  };
  const std::string load_q = load_operand(3, a.qn, a.vq, a.bq, "p2_qi", "p2_qe");
  const std::string load_k = load_operand(4, a.kn, a.vk, a.bk, "p2_ke", "p2_kj");
  Body score = block(4);
  {
    Idx sidx = bidx;
    sidx.push_back("p2_i");
    sidx.push_back("p2_j");
    score.line("p2_x = " + convert(load(score, *masked, sidx), masked_dtype, TensorProto::FLOAT) + ";");
  }
  const std::string load_v = load_operand(4, a.vn, a.vv, a.bv, "p2_vj", "p2_ve");
  Body st = block(2);
  {
    Idx oidx = bidx;
    oidx.push_back("p2_i");
    oidx.push_back("p2_e");
    // A row with no finite score: the guard's 0, or the NaN the unguarded softmax gives.
    const std::string r = std::string("(p2_empty ? ") + (*zero_rows ? "0.0f" : "P2_NAN") + " : p2_o[w] / p2_sum)";
    st.line(dest.pointer + "[" + linear_index(oidx, out_shape) + "] = " + store_converted(r, TensorProto::FLOAT, dest.storage_dtype) + ";");
  }
  // Keys past this tile's last row are -inf for every row: they would add exp(-inf) = 0.
  const std::string jend = causal ? "  const long long p2_jend = p2_min(p2_S, p2_i0 + " + R + ");  // causal: key j <= row i\n"
                                  : std::string("  const long long p2_jend = p2_S;\n");
  const Holes holes{{"R", R}, {"K", K}, {"E", Es}, {"EV", EVs}, {"NL", NL}, {"KV_WIDTH", std::to_string(kv_width)},
                    {"PER_LANE", std::to_string(per_lane)},
                    {"ONLINE_SOFTMAX", online_softmax(per_lane, "p2_p[p2_r][p2_g + " + NL + " * u] = p2_pv;")},
                    {"L", to_c(a.L)}, {"S", to_c(a.S)}, {"BATCH_INDEX", bi.code}, {"JEND", jend},
                    {"LOAD_Q", load_q}, {"LOAD_K", load_k}, {"SCORE", score.code}, {"LOAD_V", load_v}, {"STORE", st.code}};
  std::string body = render_template("attention_simt", holes);
  int smem = (kRows * (static_cast<int>(a.e) + 1) + kKeys * (kv_width + 1) + kRows * (kKeys + 1)) * 4;
  // fp16 / bf16 q', k', v (or float ones made from them): both products on tensor cores on sm_80+
  // (the SIMT body elsewhere).
  const int q16 = sixteen_bit_origin(*this, graph_, a.qn);
  if (q16 && q16 == sixteen_bit_origin(*this, graph_, a.kn) && q16 == sixteen_bit_origin(*this, graph_, a.vn))
    body = attention_mma_body(q16 == TensorProto::FLOAT16, a.e, a.ev, holes, body, per_lane, smem);
  std::string computes = "attention (";
  for (int n : m.deferred()) computes += function_.node(n).op_type() + ", ";
  computes += "MatMul) -> " + out;
  add_kernel(computes, dest.pointer, scope, body, smem, {to_manifest(nb), to_manifest(tiles), "1"});
  define_stored(out, dtype, out_shape, dest);
  // The scores, weights and guard values exist only inside the kernel.
  std::vector<std::string> gone;
  for (int n : m.deferred()) gone.push_back(function_.node(n).output(0));
  hide_fused(gone, "an attention kernel");
  return true;
}

}  // namespace pt2onnx::kernels::detail
