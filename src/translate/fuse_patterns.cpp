// fuse_patterns: SDPA and RMS norm (aten.rms_norm and transformers' pow-mean-rsqrt-mul) rewritten
// into the torch.onnx.ops nodes of ONNX Attention and RMSNormalization, where those say exactly
// what torch computes. Each matcher checks everything it relies on and leaves the node alone
// otherwise; the aten rules then decompose it as at any opset.
#include "translate/fuse_patterns.h"

#include <map>
#include <optional>
#include <set>

#include "translate/liveness.h"

namespace pt2onnx::translate {

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
      if (is_dropped_target(nodes[i].target)) continue;  // _assert_tensor_metadata reads but needs nothing
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

}  // namespace

FusedProgram fuse_patterns(const ir::Program& program, const TranslateOptions& options) {
  FusedProgram result{program, {}};
  if (!options.fuse || options.opset < kMinFusedOpset) return result;
  const Uses uses(program);  // of the input program: a rewrite only ever removes readers
  for (ir::Node& node : result.program.graph.nodes) {
    const std::string source = node.target;
    if (source == "aten.scaled_dot_product_attention.default" ||
        source == "aten._scaled_dot_product_flash_attention_for_cpu.default") {
      if (rewrite_attention(node, program, uses)) result.fused.push_back({node.name, "Attention", source});
    } else if (source == "aten.rms_norm.default") {
      if (rewrite_rms_norm(node, program)) result.fused.push_back({node.name, "RMSNormalization", source});
    } else if (source == "aten.mul.Tensor") {
      if (rewrite_rms_pattern(node, program, uses))
        result.fused.push_back({node.name, "RMSNormalization", "pow-mean-rsqrt-mul pattern"});
    }
  }
  return result;
}

}  // namespace pt2onnx::translate
