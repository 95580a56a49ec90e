// fuse_patterns: SDPA, RMS norm (aten.rms_norm and transformers' pow-mean-rsqrt-mul) and the
// rotate-half rotary rewritten into the torch.onnx.ops nodes of ONNX Attention, RMSNormalization and
// RotaryEmbedding, where those say exactly what torch computes. Each matcher checks everything it
// relies on and leaves the node alone otherwise; the aten rules then decompose it as at any opset.
#include "fx_passes/fuse_patterns.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "translate/liveness.h"

namespace pt2onnx::fx_passes {

namespace {

using ir::DType;

// FX value -> producing node, and how many nodes (runtime checks aside) and outputs read it.
struct Uses {
  std::map<std::string, size_t> producer;
  std::map<std::string, int> readers;

  explicit Uses(const ir::Program& program) {
    const auto& nodes = program.graph.nodes;
    for (size_t i = 0; i < nodes.size(); ++i) {
      std::vector<std::string> outs;
      for (const ir::Argument& out : nodes[i].outputs) collect_value_names(out, outs);
      for (const std::string& name : outs) producer.emplace(name, i);
      if (translate::is_dropped_target(nodes[i].target)) continue;  // _assert_tensor_metadata reads but needs nothing
      std::vector<std::string> ins;
      for (const ir::NamedArgument& in : nodes[i].inputs) collect_value_names(in.arg, ins);
      for (const std::string& name : std::set<std::string>(ins.begin(), ins.end())) ++readers[name];
    }
    std::vector<std::string> outs;
    for (const ir::Argument& out : program.graph.outputs) collect_value_names(out, outs);
    for (const std::string& name : outs) ++readers[name];
  }
  int count(const std::string& name) const {
    auto it = readers.find(name);
    return it == readers.end() ? 0 : it->second;
  }
};

const std::string* tensor_arg(const ir::Node& node, const char* name) {
  const ir::Argument* a = node.input(name);
  const auto* t = a ? std::get_if<ir::TensorArg>(a) : nullptr;
  return t ? &t->name : nullptr;
}

bool is_none(const ir::Node& node, const char* name) {
  const ir::Argument* a = node.input(name);
  return !a || std::holds_alternative<ir::NoneArg>(*a);
}

// A constant number (int or float argument), or nullopt (absent, None, symbolic, another kind).
std::optional<double> number_arg(const ir::Node& node, const char* name) {
  const ir::Argument* a = node.input(name);
  if (!a) return std::nullopt;
  if (const auto* i = std::get_if<ir::SymIntArg>(a))
    if (const auto* v = std::get_if<int64_t>(&i->v)) return static_cast<double>(*v);
  if (const auto* f = std::get_if<ir::SymFloatArg>(a))
    if (const auto* v = std::get_if<double>(&f->v)) return *v;
  return std::nullopt;
}

std::optional<bool> bool_arg(const ir::Node& node, const char* name) {
  const ir::Argument* a = node.input(name);
  if (!a) return std::nullopt;
  if (const auto* b = std::get_if<ir::SymBoolArg>(a))
    if (const auto* v = std::get_if<bool>(&b->v)) return *v;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> ints_arg(const ir::Node& node, const char* name) {
  const ir::Argument* a = node.input(name);
  const auto* list = a ? std::get_if<ir::SymIntListArg>(a) : nullptr;
  if (!list) return std::nullopt;
  std::vector<int64_t> out;
  for (const ir::SymIntArg& item : list->items) {
    const auto* v = std::get_if<int64_t>(&item.v);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

bool same_dim(const ir::Dim& a, const ir::Dim& b) {
  if (a.is_static() != b.is_static()) return false;
  return a.is_static() ? a.as_int() == b.as_int() : to_string(a.as_expr()) == to_string(b.as_expr());
}

// ---- scaled_dot_product_attention -> onnx.Attention.opset23 ------------------------------------

// Attention says SDPA exactly for rank-4 float32 q/k/v ([B, H, L, E]) with equal batches, key and
// value heads equal, query heads equal to them (or a multiple with enable_gqa), no dropout, a
// bool mask or one of the query's dtype (ONNX's bool mask also means "True takes part"), and,
// like torch's math path, zeros for a row masked everywhere. Only output 0 may be read (the CPU
// flash form also returns logsumexp).
bool rewrite_attention(ir::Node& node, const ir::Program& program, const Uses& uses) {
  const std::string* q = tensor_arg(node, "query");
  const std::string* k = tensor_arg(node, "key");
  const std::string* v = tensor_arg(node, "value");
  if (!q || !k || !v) return false;
  const auto meta = [&](const std::string& n) -> const ir::TensorMeta* {
    auto it = program.graph.tensor_values.find(n);
    return it == program.graph.tensor_values.end() ? nullptr : &it->second;
  };
  const ir::TensorMeta *mq = meta(*q), *mk = meta(*k), *mv = meta(*v);
  if (!mq || !mk || !mv || mq->sizes.size() != 4 || mk->sizes.size() != 4 || mv->sizes.size() != 4) return false;
  if (mq->dtype != DType::kFloat32 || mk->dtype != mq->dtype || mv->dtype != mq->dtype) return false;
  if (!same_dim(mq->sizes[0], mk->sizes[0]) || !same_dim(mq->sizes[0], mv->sizes[0])) return false;
  if (!same_dim(mk->sizes[1], mv->sizes[1]) || !same_dim(mk->sizes[2], mv->sizes[2])) return false;
  if (!same_dim(mq->sizes[3], mk->sizes[3])) return false;
  if (!same_dim(mq->sizes[1], mk->sizes[1])) {
    const ir::Dim &hq = mq->sizes[1], &hk = mk->sizes[1];
    if (!bool_arg(node, "enable_gqa").value_or(false) || !hq.is_static() || !hk.is_static() || hk.as_int() <= 0 ||
        hq.as_int() % hk.as_int() != 0)
      return false;
  }
  if (number_arg(node, "dropout_p").value_or(0.0) != 0.0) return false;
  const std::optional<bool> causal = bool_arg(node, "is_causal");
  if (node.input("is_causal") && !causal) return false;  // symbolic
  const std::string* mask = tensor_arg(node, "attn_mask");
  if (!mask && !is_none(node, "attn_mask")) return false;
  if (mask) {
    const ir::TensorMeta* mm = meta(*mask);
    if (!mm || mm->sizes.size() > 4 || (mm->dtype != DType::kBool && mm->dtype != mq->dtype)) return false;
    if (causal.value_or(false)) return false;  // torch refuses both
  }
  const std::optional<double> scale = number_arg(node, "scale");
  if (!scale && !is_none(node, "scale")) return false;
  for (size_t i = 1; i < node.outputs.size(); ++i) {
    std::vector<std::string> names;
    collect_value_names(node.outputs[i], names);
    for (const std::string& n : names)
      if (uses.count(n)) return false;
  }

  std::vector<ir::NamedArgument> inputs = {{"Q", ir::TensorArg{*q}}, {"K", ir::TensorArg{*k}}, {"V", ir::TensorArg{*v}}};
  if (mask) inputs.push_back({"attn_mask", ir::TensorArg{*mask}});
  if (causal.value_or(false)) inputs.push_back({"is_causal", ir::SymBoolArg{true}, true});
  if (scale) inputs.push_back({"scale", ir::SymFloatArg{*scale}, true});
  node.target = "onnx.Attention.opset23";
  node.inputs = std::move(inputs);
  node.outputs.resize(1);
  return true;
}

// ---- RMS norm -> onnx_symbolic._symbolic(RMSNormalization) -------------------------------------

// The node as torch.onnx.ops.symbolic would write it: RMSNormalization(x, weight) over the last
// `count` axes with `eps`, at version 23. The output type comes from tensor_values as for any node.
void make_rms_normalization(ir::Node& node, const std::string& x, const std::string& weight, int64_t count, double eps) {
  node.target = "onnx_symbolic._symbolic.default";
  node.inputs = {
      {"inputs", ir::TensorListArg{{x, weight}}},
      {"op_type", std::string("RMSNormalization")},
      {"attr_keys", std::vector<std::string>{"axis", "epsilon"}, true},
      {"attr_types", std::vector<std::string>{"i", "f"}, true},
      {"attr_pos", ir::IntListListArg{{{0, 1}, {0, 1}}}, true},
      {"attr_ints", ir::SymIntListArg{{ir::SymIntArg{-count}}}, true},
      {"attr_floats", ir::SymFloatListArg{{ir::SymFloatArg{eps}}}, true},
      {"attr_strs", std::vector<std::string>{}, true},
      {"domain", std::string(), true},
      {"version", ir::SymIntArg{int64_t{kMinFusedOpset}}, true},
  };
}

const ir::TensorMeta* meta_of(const ir::Program& program, const std::string& name) {
  auto it = program.graph.tensor_values.find(name);
  return it == program.graph.tensor_values.end() ? nullptr : &it->second;
}

// A float32 weight whose shape is the last `count` sizes of `x`.
bool is_trailing_weight(const ir::Program& program, const std::string& weight, const ir::TensorMeta& x, int64_t count) {
  const ir::TensorMeta* w = meta_of(program, weight);
  if (!w || w->dtype != x.dtype || static_cast<int64_t>(w->sizes.size()) != count) return false;
  const size_t offset = x.sizes.size() - static_cast<size_t>(count);
  for (size_t i = 0; i < w->sizes.size(); ++i)
    if (!same_dim(w->sizes[i], x.sizes[offset + i])) return false;
  return true;
}

// finfo(float32).eps: rms_norm's epsilon when none is given.
constexpr double kFloat32Epsilon = 1.1920928955078125e-07;

// rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None)
bool rewrite_rms_norm(ir::Node& node, const ir::Program& program) {
  const std::string* x = tensor_arg(node, "input");
  const std::string* weight = tensor_arg(node, "weight");
  const std::optional<std::vector<int64_t>> shape = ints_arg(node, "normalized_shape");
  if (!x || !weight || !shape || shape->empty()) return false;
  const ir::TensorMeta* mx = meta_of(program, *x);
  const auto count = static_cast<int64_t>(shape->size());
  if (!mx || mx->dtype != DType::kFloat32 || static_cast<int64_t>(mx->sizes.size()) < count) return false;
  if (!is_trailing_weight(program, *weight, *mx, count)) return false;
  const std::optional<double> eps = number_arg(node, "eps");
  if (!eps && !is_none(node, "eps")) return false;
  make_rms_normalization(node, *x, *weight, count, eps.value_or(kFloat32Epsilon));
  return true;
}

// The node producing `value` when it has `target` (one of several) and nothing else reads `value`.
const ir::Node* sole_producer(const ir::Program& program, const Uses& uses, const std::string& value,
                              std::initializer_list<std::string_view> targets) {
  auto it = uses.producer.find(value);
  if (it == uses.producer.end() || uses.count(value) != 1) return nullptr;
  const ir::Node& node = program.graph.nodes[it->second];
  for (std::string_view t : targets)
    if (node.target == t) return &node;
  return nullptr;
}

// The two tensor operands of a binary node (self, other), or nullopt.
std::optional<std::pair<std::string, std::string>> tensor_operands(const ir::Node& node) {
  const std::string* a = tensor_arg(node, "self");
  const std::string* b = tensor_arg(node, "other");
  if (!a || !b) return std::nullopt;
  return std::make_pair(*a, *b);
}

// transformers' RMS norm at its last multiply: weight * to?(x * rsqrt(mean(x ** 2, dims, keepdim) + eps))
// (either operand order), with float32 throughout; `to` only as a no-op cast.
bool rewrite_rms_pattern(ir::Node& node, const ir::Program& program, const Uses& uses) {
  const auto operands = tensor_operands(node);
  if (!operands) return false;
  const ir::TensorMeta* out = meta_of(program, node.name);
  if (!out || out->dtype != DType::kFloat32) return false;
  for (int order = 0; order < 2; ++order) {
    const std::string& weight = order == 0 ? operands->first : operands->second;
    std::string normed = order == 0 ? operands->second : operands->first;
    // A cast to the dtype it has already (transformers' .to(input_dtype)).
    if (const ir::Node* to = sole_producer(program, uses, normed, {"aten.to.dtype", "aten._to_copy.default"})) {
      const std::string* src = tensor_arg(*to, "self");
      const ir::TensorMeta* before = src ? meta_of(program, *src) : nullptr;
      if (!before || before->dtype != DType::kFloat32) continue;
      normed = *src;
    }
    const ir::Node* m1 = sole_producer(program, uses, normed, {"aten.mul.Tensor"});
    const auto m1_ops = m1 ? tensor_operands(*m1) : std::nullopt;
    if (!m1_ops) continue;
    for (int inner = 0; inner < 2; ++inner) {
      const std::string& x = inner == 0 ? m1_ops->first : m1_ops->second;
      const std::string& r = inner == 0 ? m1_ops->second : m1_ops->first;
      const ir::Node* rsqrt = sole_producer(program, uses, r, {"aten.rsqrt.default"});
      const std::string* a = rsqrt ? tensor_arg(*rsqrt, "self") : nullptr;
      const ir::Node* add = a ? sole_producer(program, uses, *a, {"aten.add.Tensor", "aten.add.Scalar"}) : nullptr;
      if (!add || number_arg(*add, "alpha").value_or(1.0) != 1.0) continue;
      const std::optional<double> eps = number_arg(*add, "other");
      const std::string* var = tensor_arg(*add, "self");
      const ir::Node* mean = var && eps ? sole_producer(program, uses, *var, {"aten.mean.dim"}) : nullptr;
      if (!mean || !bool_arg(*mean, "keepdim").value_or(false) || !is_none(*mean, "dtype")) continue;
      const std::string* sq = tensor_arg(*mean, "self");
      const ir::Node* pow = sq ? sole_producer(program, uses, *sq, {"aten.pow.Tensor_Scalar", "aten.mul.Tensor"}) : nullptr;
      if (!pow) continue;
      if (pow->target == "aten.pow.Tensor_Scalar") {
        const std::string* base = tensor_arg(*pow, "self");
        if (!base || *base != x || number_arg(*pow, "exponent") != 2.0) continue;
      } else {
        const auto sq_ops = tensor_operands(*pow);
        if (!sq_ops || sq_ops->first != x || sq_ops->second != x) continue;
      }
      const ir::TensorMeta* mx = meta_of(program, x);
      const std::optional<std::vector<int64_t>> dims = ints_arg(*mean, "dim");
      if (!mx || mx->dtype != DType::kFloat32 || !dims || dims->empty()) continue;
      // The mean's axes must be the trailing ones, each once.
      const auto rank = static_cast<int64_t>(mx->sizes.size());
      std::set<int64_t> axes;
      for (int64_t d : *dims) axes.insert(d < 0 ? d + rank : d);
      const auto count = static_cast<int64_t>(axes.size());
      if (count != static_cast<int64_t>(dims->size()) || *axes.begin() != rank - count || *axes.rbegin() != rank - 1) continue;
      if (!is_trailing_weight(program, weight, *mx, count)) continue;
      // The result has x's shape (the weight does not broadcast it further).
      if (out->sizes.size() != mx->sizes.size()) continue;
      make_rms_normalization(node, x, weight, count, *eps);
      return true;
    }
  }
  return false;
}

// ---- rotate-half rotary -> onnx.RotaryEmbedding.opset23 ----------------------------------------

// Whether the last dim of `value` is two equal halves: cat([a, a], -1), or an elementwise function of
// one (cos, sin, a cast, a product with a constant number), as transformers builds cos and sin from
// cat((freqs, freqs), -1). RotaryEmbedding takes only one half of each, so this is what makes it exact.
bool equal_halves(const ir::Program& program, const Uses& uses, const std::string& value, int depth = 0) {
  auto it = uses.producer.find(value);
  if (depth > 8 || it == uses.producer.end()) return false;
  const ir::Node& p = program.graph.nodes[it->second];
  if (p.target == "aten.cat.default") {
    const ir::Argument* list = p.input("tensors");
    const auto* names = list ? std::get_if<ir::TensorListArg>(list) : nullptr;
    const ir::TensorMeta* m = meta_of(program, value);
    const std::optional<double> dim = number_arg(p, "dim");
    if (!names || names->names.size() != 2 || names->names[0] != names->names[1] || !m || !dim) return false;
    const auto rank = static_cast<double>(m->sizes.size());
    return *dim == -1 || *dim == rank - 1;
  }
  static const std::set<std::string> kElementwise = {
      "aten.cos.default", "aten.sin.default",  "aten.clone.default",         "aten.alias.default",
      "aten.to.dtype",    "aten.to.device",    "aten.to.dtype_layout",       "aten._to_copy.default",
      "aten.mul.Scalar",  "aten.mul.Tensor",   "aten.neg.default"};
  if (!kElementwise.count(p.target)) return false;
  if (p.target == "aten.mul.Tensor" || p.target == "aten.mul.Scalar")
    if (!number_arg(p, "other")) return false;  // a product with a constant number only
  const std::string* self = tensor_arg(p, "self");
  return self && equal_halves(program, uses, *self, depth + 1);
}

// A constant int argument (absent or None: `fallback`).
std::optional<int64_t> int_or(const ir::Node& node, const char* name, int64_t fallback) {
  if (is_none(node, name)) return fallback;
  const auto* i = std::get_if<ir::SymIntArg>(node.input(name));
  const auto* v = i ? std::get_if<int64_t>(&i->v) : nullptr;
  if (!v) return std::nullopt;
  return *v;
}

// slice(x, last dim, start, end, 1) with the given start and an end at or past `end_at_least`.
bool is_last_dim_slice(const ir::Program& program, const Uses& uses, const std::string& value, const std::string& x,
                       int64_t start, int64_t end_at_least, int64_t end_at_most) {
  auto it = uses.producer.find(value);
  if (it == uses.producer.end()) return false;
  const ir::Node& p = program.graph.nodes[it->second];
  const std::string* self = tensor_arg(p, "self");
  if (p.target != "aten.slice.Tensor" || !self || *self != x) return false;
  const std::optional<int64_t> dim = int_or(p, "dim", 0), s = int_or(p, "start", 0),
                               e = int_or(p, "end", INT64_MAX), step = int_or(p, "step", 1);
  return dim && s && e && step && (*dim == 3 || *dim == -1) && *s == start && *e >= end_at_least &&
         *e <= end_at_most && *step == 1;
}

// unsqueeze(c, 1) with c [B or 1, S, D] of x's dtype ([B, H, S, D]) whose last dim is equal halves: c.
const std::string* rotary_table(const ir::Program& program, const Uses& uses, const std::string& value,
                                const ir::TensorMeta& x) {
  auto it = uses.producer.find(value);
  if (it == uses.producer.end()) return nullptr;
  const ir::Node& p = program.graph.nodes[it->second];
  const std::string* c = tensor_arg(p, "self");
  const std::optional<int64_t> dim = int_or(p, "dim", -99);
  if (p.target != "aten.unsqueeze.default" || !c || (dim != 1 && dim != -3)) return nullptr;
  const ir::TensorMeta* mc = meta_of(program, *c);
  if (!mc || mc->dtype != x.dtype || mc->sizes.size() != 3) return nullptr;
  const ir::Dim& b = mc->sizes[0];
  if (!same_dim(b, x.sizes[0]) && !(b.is_static() && b.as_int() == 1)) return nullptr;
  if (!same_dim(mc->sizes[1], x.sizes[2]) || !same_dim(mc->sizes[2], x.sizes[3])) return nullptr;
  return equal_halves(program, uses, *c) ? c : nullptr;
}

// New nodes a rotary rewrite needs before it (the cos/sin halves), shared by every rewrite that reads
// the same table at the same batch.
struct RotaryTables {
  std::map<std::string, std::string> made;              // "<table>|<batch>" -> value name
  std::vector<std::pair<size_t, ir::Node>> inserts;     // (insert before node index, node)
};

std::string fresh_name(const ir::Program& program, const std::string& base) {
  std::string name = base;
  for (int i = 1; program.graph.tensor_values.count(name) || program.graph.sym_int_values.count(name); ++i)
    name = base + "_" + std::to_string(i);
  return name;
}

// table[..., :half], expanded to x's batch when the table has batch 1: RotaryEmbedding's cache
// without position_ids is [B, S, D/2].
std::string rotary_half(ir::Program& program, RotaryTables& tables, size_t at, const std::string& table,
                        const std::string& x, const ir::TensorMeta& mx) {
  const ir::TensorMeta mt = program.graph.tensor_values.at(table);
  const int64_t half = mx.sizes[3].as_int() / 2;
  const bool expand = !same_dim(mt.sizes[0], mx.sizes[0]);
  const ir::Dim& batch = mx.sizes[0];
  const std::string key = table + "|" + (expand ? (batch.is_static() ? std::to_string(batch.as_int()) : to_string(batch.as_expr())) : "");
  if (auto it = tables.made.find(key); it != tables.made.end()) return it->second;

  ir::TensorMeta mh = mt;
  mh.sizes[2].value.emplace<int64_t>(half);  // in place: GCC 12 -O2 ASan misreads a moved temporary Dim
  mh.strides.clear();
  ir::Node slice;
  slice.name = fresh_name(program, table + "_rotary_half");
  slice.target = "aten.slice.Tensor";
  slice.inputs = {{"self", ir::TensorArg{table}},
                  {"dim", ir::SymIntArg{int64_t{2}}},
                  {"start", ir::SymIntArg{int64_t{0}}},
                  {"end", ir::SymIntArg{half}},
                  {"step", ir::SymIntArg{int64_t{1}}}};
  slice.outputs = {ir::TensorArg{slice.name}};
  program.graph.tensor_values[slice.name] = mh;
  tables.inserts.emplace_back(at, slice);
  std::string result = slice.name;
  if (expand) {
    ir::SymIntArg b{int64_t{0}};
    if (batch.is_static()) {
      b.v = batch.as_int();
    } else {
      ir::Node size;
      size.name = fresh_name(program, x + "_rotary_batch");
      size.target = "aten.sym_size.int";
      size.inputs = {{"self", ir::TensorArg{x}}, {"dim", ir::SymIntArg{int64_t{0}}}};
      size.outputs = {ir::SymIntArg{size.name}};
      program.graph.sym_int_values[size.name] = batch;
      tables.inserts.emplace_back(at, size);
      b.v = size.name;
    }
    ir::Node ex;
    ex.name = fresh_name(program, slice.name + "_expanded");
    ex.target = "aten.expand.default";
    ex.inputs = {{"self", ir::TensorArg{slice.name}},
                 {"size", ir::SymIntListArg{{b, ir::SymIntArg{int64_t{-1}}, ir::SymIntArg{int64_t{-1}}}}}};
    ex.outputs = {ir::TensorArg{ex.name}};
    mh.sizes[0] = batch;
    program.graph.tensor_values[ex.name] = mh;
    tables.inserts.emplace_back(at, ex);
    result = ex.name;
  }
  tables.made.emplace(key, result);
  return result;
}

// transformers' apply_rotary_pos_emb at its add: x * unsqueeze(cos, 1) + rotate_half(x) * unsqueeze(sin, 1)
// with rotate_half(x) = cat((-x[..., D/2:], x[..., :D/2]), -1), x float32 [B, H, S, D] (D static,
// even), cos/sin [B or 1, S, D] with equal halves (above). Any operand order. A partial rotary
// (x = q[..., :rot]) matches on its rotated part; the interleaved form does not match.
bool rewrite_rotary(ir::Node& node, size_t index, const ir::Program& in, ir::Program& out, const Uses& uses,
                    RotaryTables& tables) {
  const auto operands = tensor_operands(node);
  if (!operands || number_arg(node, "alpha").value_or(1.0) != 1.0) return false;
  const ir::TensorMeta* mo = meta_of(in, node.name);
  if (!mo || mo->dtype != DType::kFloat32 || mo->sizes.size() != 4 || !mo->sizes[3].is_static()) return false;
  const int64_t d = mo->sizes[3].as_int();
  if (d < 2 || d % 2 != 0) return false;
  const int64_t h = d / 2;
  for (int order = 0; order < 2; ++order) {
    const ir::Node* plain = sole_producer(in, uses, order == 0 ? operands->first : operands->second, {"aten.mul.Tensor"});
    const ir::Node* rotated = sole_producer(in, uses, order == 0 ? operands->second : operands->first, {"aten.mul.Tensor"});
    const auto p_ops = plain ? tensor_operands(*plain) : std::nullopt;
    const auto r_ops = rotated ? tensor_operands(*rotated) : std::nullopt;
    if (!p_ops || !r_ops) continue;
    for (int po = 0; po < 2; ++po) {
      const std::string& x = po == 0 ? p_ops->first : p_ops->second;
      const std::string& cos = po == 0 ? p_ops->second : p_ops->first;
      const ir::TensorMeta* mx = meta_of(in, x);
      if (!mx || mx->dtype != DType::kFloat32 || mx->sizes.size() != 4) continue;
      bool same = true;
      for (size_t i = 0; i < 4; ++i) same = same && same_dim(mx->sizes[i], mo->sizes[i]);
      if (!same) continue;
      const std::string* cos_table = rotary_table(in, uses, cos, *mx);
      if (!cos_table) continue;
      for (int ro = 0; ro < 2; ++ro) {
        const std::string& rot = ro == 0 ? r_ops->first : r_ops->second;
        const std::string& sin = ro == 0 ? r_ops->second : r_ops->first;
        const ir::Node* cat = sole_producer(in, uses, rot, {"aten.cat.default"});
        if (!cat) continue;
        const ir::Argument* list = cat->input("tensors");
        const auto* parts = list ? std::get_if<ir::TensorListArg>(list) : nullptr;
        const std::optional<int64_t> cat_dim = int_or(*cat, "dim", 0);
        if (!parts || parts->names.size() != 2 || !cat_dim || (*cat_dim != 3 && *cat_dim != -1)) continue;
        const ir::Node* neg = sole_producer(in, uses, parts->names[0], {"aten.neg.default"});
        const std::string* upper = neg ? tensor_arg(*neg, "self") : nullptr;
        if (!upper || !is_last_dim_slice(in, uses, *upper, x, h, d, INT64_MAX) ||
            !is_last_dim_slice(in, uses, parts->names[1], x, 0, h, h))
          continue;
        const std::string* sin_table = rotary_table(in, uses, sin, *mx);
        if (!sin_table) continue;
        const std::string cos_cache = rotary_half(out, tables, index, *cos_table, x, *mx);
        const std::string sin_cache = rotary_half(out, tables, index, *sin_table, x, *mx);
        node.target = "onnx.RotaryEmbedding.opset23";
        node.inputs = {{"x", ir::TensorArg{x}}, {"cos_cache", ir::TensorArg{cos_cache}}, {"sin_cache", ir::TensorArg{sin_cache}}};
        return true;
      }
    }
  }
  return false;
}

}  // namespace

FusedProgram fuse_patterns(const ir::Program& program, const translate::TranslateOptions& options) {
  FusedProgram result{program, {}};
  if (!options.fuse || options.opset < kMinFusedOpset) return result;
  const Uses uses(program);  // of the input program: a rewrite only ever removes readers
  RotaryTables tables;
  for (size_t index = 0; index < result.program.graph.nodes.size(); ++index) {
    ir::Node& node = result.program.graph.nodes[index];
    const std::string source = node.target;
    if (source == "aten.scaled_dot_product_attention.default" ||
        source == "aten._scaled_dot_product_flash_attention_for_cpu.default") {
      if (rewrite_attention(node, program, uses)) result.fused.push_back({node.name, "Attention", source});
    } else if (source == "aten.rms_norm.default") {
      if (rewrite_rms_norm(node, program)) result.fused.push_back({node.name, "RMSNormalization", source});
    } else if (source == "aten.mul.Tensor") {
      if (rewrite_rms_pattern(node, program, uses))
        result.fused.push_back({node.name, "RMSNormalization", "pow-mean-rsqrt-mul pattern"});
    } else if (source == "aten.add.Tensor") {
      if (rewrite_rotary(node, index, program, result.program, uses, tables))
        result.fused.push_back({node.name, "RotaryEmbedding", "rotate-half rotary pattern"});
    }
  }
  // The cos/sin halves go right before the first rotary that reads them (in order, from the back).
  auto& nodes = result.program.graph.nodes;
  for (auto it = tables.inserts.rbegin(); it != tables.inserts.rend();) {
    const size_t at = it->first;
    std::vector<ir::Node> group;
    for (; it != tables.inserts.rend() && it->first == at; ++it) group.insert(group.begin(), it->second);
    nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(at), group.begin(), group.end());
  }
  return result;
}

}  // namespace pt2onnx::fx_passes
