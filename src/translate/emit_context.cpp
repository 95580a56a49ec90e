// EmitContext: names, the FX value map, node creation, constants and the per-node output binding.
#include "translate/emit_context.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "common/error.h"
#include "translate/node_name.h"
#include "translate/onnx_types.h"
#include "translate/constant_tensors.h"

namespace pt2onnx::translate {

void fill_attribute(onnx::AttributeProto& proto, const Attr& attr) {
  onnx::AttributeProto* a = &proto;
  a->set_name(attr.name);
  std::visit(
      [a](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          a->set_type(onnx::AttributeProto::INT);
          a->set_i(v);
        } else if constexpr (std::is_same_v<T, float>) {
          a->set_type(onnx::AttributeProto::FLOAT);
          a->set_f(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          a->set_type(onnx::AttributeProto::STRING);
          a->set_s(v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          a->set_type(onnx::AttributeProto::INTS);
          a->mutable_ints()->Add(v.begin(), v.end());
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          a->set_type(onnx::AttributeProto::FLOATS);
          a->mutable_floats()->Add(v.begin(), v.end());
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          a->set_type(onnx::AttributeProto::STRINGS);
          for (const std::string& x : v) a->add_strings(x);
        } else if constexpr (std::is_same_v<T, onnx::TensorProto>) {
          a->set_type(onnx::AttributeProto::TENSOR);
          *a->mutable_t() = v;
        } else {
          a->set_type(onnx::AttributeProto::GRAPH);
          *a->mutable_g() = v;
        }
      },
      attr.value);
}

onnx::AttributeProto make_attribute(const Attr& attr) {
  onnx::AttributeProto proto;
  fill_attribute(proto, attr);
  return proto;
}

namespace {

// Text of a number usable inside a value name: "3", "neg1", "0p5", "inf".
std::string name_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "neginf" : "inf";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  std::string out;
  for (const char* p = buf; *p; ++p) {
    if (*p == '-') out += "neg";
    else if (*p == '.') out += 'p';
    else if (*p != '+') out += *p;
  }
  return out;
}

// "path [type]" of a module frame ("<root>" for the empty path), as messages and doc_strings say it.
std::string module_text(const ir::FrameView& frame) {
  std::string out = frame.path.empty() ? std::string("<root>") : std::string(frame.path);
  if (!frame.type.empty()) out.append(" [").append(frame.type).append("]");
  return out;
}

}  // namespace

const ViewSet EmitContext::kNoNames;

std::string describe_node(const ir::Node& node, bool with_target) {
  std::string out = "node " + node.name;
  if (with_target) out += " (" + node.target + ")";
  if (!node.module_stack.empty()) out += " in " + module_text(node.module_stack.back());
  return out;
}

EmitContext::EmitContext(onnx::GraphProto& graph, const ir::Program& program, int opset)
    : graph_(graph), program_(program), fx_graph_(&program.graph), opset_(opset), shared_(std::make_shared<Shared>()) {}

EmitContext::EmitContext(EmitContext& parent, onnx::GraphProto& graph, const ir::Graph& fx, bool isolated)
    : graph_(graph), program_(parent.program_), fx_graph_(&fx), parent_(&parent), isolated_(isolated), opset_(parent.opset_), shared_(parent.shared_) {}
// A child starts with empty caches: a subgraph makes its own constants and shapes, so that its
// outer reads are only the operands and symbol values (what --hiera must see as inputs).

void EmitContext::translate_graph(const ir::Graph& fx) {
  PT2ONNX_CHECK(shared_->translator != nullptr, ErrorCode::kInternal, "no graph translator is set");
  shared_->translator(*this, fx);
}

// ---- names ---------------------------------------------------------------------------------

InternedNames::Id EmitContext::id_of(std::string_view name) {
  Shared& shared = *shared_;
  if (shared.last_id != InternedNames::kAbsent && name == shared.last_name) return shared.last_id;
  const auto [id, added] = shared.names.intern(name);
  if (added) shared.about.emplace_back();
  shared.last_name = shared.names.text(id);
  shared.last_id = id;
  return id;
}

EmitContext::NameInfo& EmitContext::about(std::string_view name) { return shared_->about[id_of(name)]; }

void EmitContext::pin(const std::string& value) {
  const InternedNames::Id id = id_of(value);
  if (id >= pinned_.size()) pinned_.resize(std::max<size_t>(id + 1, pinned_.size() * 2));
  pinned_[id] = true;
}

bool EmitContext::is_pinned(const std::string& value) const {
  const InternedNames::Id id = shared_->names.find(value);
  return id != InternedNames::kAbsent && id < pinned_.size() && pinned_[id];
}

const EmitContext::NameInfo* EmitContext::made_here(const std::string& value) const {
  const InternedNames::Id id = shared_->names.find(value);
  if (id == InternedNames::kAbsent) return nullptr;
  const NameInfo& info = shared_->about[id];
  return info.made_by == serial_ ? &info : nullptr;
}

bool EmitContext::reserve(std::string_view name) { return !std::exchange(about(name).claimed, true); }

std::string EmitContext::fresh_name(std::string base) {
  if (!std::exchange(about(base).claimed, true)) return base;
  for (;;) {
    // about(base) again each time: a new entry may move the vector
    std::string candidate = base + "_" + std::to_string(++about(base).next_suffix);
    if (!std::exchange(about(candidate).claimed, true)) return candidate;
  }
}

// ---- FX values ------------------------------------------------------------------------------

void EmitContext::bind(const std::string& fx_name, const std::string& value) { values_.set(id_of(fx_name), id_of(value)); }

bool EmitContext::is_bound(const std::string& fx_name) const {
  return values_.find(shared_->names.find(fx_name)) != IdMap::kAbsent;
}

std::string EmitContext::value_of(const std::string& fx_name) const {
  const InternedNames::Id value = values_.find(shared_->names.find(fx_name));
  if (value == IdMap::kAbsent)
    fail(ErrorCode::kInternal, "value '" + fx_name + "' is used before anything produced it");
  return std::string(shared_->names.text(value));
}

const ir::TensorMeta* EmitContext::meta(const std::string& fx_name) const {
  if (!meta_overrides_.empty())
    if (const auto over = meta_overrides_.find(fx_name); over != meta_overrides_.end()) return &over->second;
  // A hashed lookup (ir::TensorValues): rules ask for a meta per argument.
  const auto found = fx_graph_->tensor_values.find(fx_name);
  return found == fx_graph_->tensor_values.end() ? nullptr : &found->second;
}

bool EmitContext::visible_here(const std::string& value) const {
  const NameInfo* made = made_here(value);
  return !made || scopes_[static_cast<size_t>(scope_)].starts_with(scopes_[static_cast<size_t>(made->scope)]);
}

// ---- nodes ----------------------------------------------------------------------------------

onnx::NodeProto& EmitContext::append_node(std::string_view op_type, const std::vector<std::string>& inputs,
                                          std::span<const std::string> outputs, const std::vector<Attr>& attrs) {
  onnx::NodeProto* n = graph_.add_node();
  n->set_op_type(std::string(op_type));
  n->set_name(node_name_for(outputs.front()));
  n->mutable_input()->Reserve(static_cast<int>(inputs.size()));
  for (const auto& in : inputs) n->add_input(in);
  const int index = node_count() - 1;
  for (const auto& out : outputs) {
    n->add_output(out);
    if (out.empty()) continue;
    NameInfo& info = about(out);
    info.made_by = serial_;
    info.node = index;
    info.scope = scope_;
  }
  for (const auto& a : attrs) fill_attribute(*n->add_attribute(), a);
  if (!doc_.empty()) n->set_doc_string(doc_);
  return *n;
}

std::string EmitContext::intermediate_base(std::string_view op_type) const {
  return node_ ? node_->name + "_" + std::string(op_type) : std::string(op_type);
}

std::vector<std::string> EmitContext::emit(std::string_view op_type, const std::vector<std::string>& inputs,
                                           const std::vector<Attr>& attrs, int num_outputs) {
  std::vector<std::string> outputs;
  const std::string base = intermediate_base(op_type);
  for (int i = 0; i < num_outputs; ++i) outputs.push_back(fresh_name(base));
  append_node(op_type, inputs, outputs, attrs);
  return outputs;
}

std::string EmitContext::emit(std::string_view op_type, const std::vector<std::string>& inputs,
                              const std::vector<Attr>& attrs) {
  std::string output = fresh_name(intermediate_base(op_type));
  append_node(op_type, inputs, std::span(&output, 1), attrs);
  return output;
}

onnx::NodeProto& EmitContext::emit_named(std::string_view op_type, const std::vector<std::string>& inputs,
                                         const std::vector<std::string>& outputs, const std::vector<Attr>& attrs) {
  return append_node(op_type, inputs, outputs, attrs);
}

std::string EmitContext::cast(const std::string& x, ir::DType to) {
  require_opset_for(to, opset_);
  require_ir_version(min_ir_version_for(to));
  return emit("Cast", {x}, {Attr("to", int64_t{onnx_dtype(to)})});
}

// ---- constants ------------------------------------------------------------------------------

std::string EmitContext::cached_constant(std::string key, const std::function<std::string()>& base,
                                         const std::function<onnx::TensorProto()>& tensor) {
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  const std::string name = fresh_name(base());
  append_node("Constant", {}, std::span(&name, 1), {Attr("value", tensor())}).clear_doc_string();
  pin(name);
  constants_.emplace(std::move(key), name);
  return name;
}

std::string EmitContext::const_i64(int64_t v) {
  return cached_constant(
      "i64:" + std::to_string(v), [&] { return "const_i64_" + name_text(static_cast<double>(v)); },
      [&] { return int64_tensor({v}, /*scalar=*/true); });
}

std::string EmitContext::const_i64s(const std::vector<int64_t>& v) {
  std::string key = "i64s:";
  std::string base = "const_i64s";
  for (int64_t x : v) {
    key += std::to_string(x) + ",";
    if (v.size() > 6) continue;
    base += '_';
    base += name_text(static_cast<double>(x));
  }
  if (v.empty()) base += "_empty";
  return cached_constant(std::move(key), [&] { return base; }, [&] { return int64_tensor(v); });
}

std::string EmitContext::const_scalar(double v, ir::DType dtype) {
  // Keyed by the double's bits, so 0.1f and 0.1 (and 0.0 and -0.0) stay distinct; every NaN of
  // one sign is one key. Most calls hit the cache, so the key is built without formatting.
  const uint64_t bits = std::bit_cast<uint64_t>(std::isnan(v) ? std::copysign(std::numeric_limits<double>::quiet_NaN(), v) : v);
  const std::string_view type_name = ir::dtype_name(dtype);
  std::string key = "s:";
  key.append(type_name).append(":").append(reinterpret_cast<const char*>(&bits), sizeof(bits));
  return cached_constant(
      std::move(key), [&] { return "const_" + std::string(type_name) + "_" + name_text(v); },
      [&] { return filled_tensor(v, dtype); });
}

std::string EmitContext::const_tensor(onnx::TensorProto tensor, const std::string& base) {
  const std::string name = fresh_name(base);
  append_node("Constant", {}, std::span(&name, 1), {Attr("value", std::move(tensor))});
  pin(name);
  return name;
}

// ---- the FX node being translated ------------------------------------------------------------

void EmitContext::begin_node(const ir::Node& node) {
  node_ = &node;
  node_start_ = node_count();
  // The module instance the node belongs to, as the keys of its module stack ("a/b/").
  std::string scope;
  for (const ir::FrameView frame : node.module_stack) scope.append(frame.key).append("/");
  if (scope != scopes_[static_cast<size_t>(scope_)]) {
    if (const int* id = scope_ids_.find(scope)) {
      scope_ = *id;
    } else {
      scope_ = static_cast<int>(scopes_.size());
      scopes_.push_back(std::move(scope));
      scope_ids_.insert(scopes_.back(), scope_);
    }
  }
  doc_ = node.module_stack.empty() ? std::string() : module_text(node.module_stack.back());
  outputs_.clear();
  for (const ir::Argument& out : node.outputs) {
    if (const auto* t = std::get_if<ir::TensorArg>(&out)) {
      outputs_.push_back({t->name, {}});
    } else if (const auto* list = std::get_if<ir::TensorListArg>(&out)) {
      for (const auto& name : list->names) outputs_.push_back({name, {}});
    } else if (const auto* s = std::get_if<ir::SymIntArg>(&out)) {
      const auto* name = std::get_if<std::string>(&s->v);
      outputs_.push_back({name ? *name : std::string(), {}});
    } else if (const auto* f = std::get_if<ir::SymFloatArg>(&out)) {
      const auto* name = std::get_if<std::string>(&f->v);
      outputs_.push_back({name ? *name : std::string(), {}});
    } else if (const auto* b = std::get_if<ir::SymBoolArg>(&out)) {
      const auto* name = std::get_if<std::string>(&b->v);
      outputs_.push_back({name ? *name : std::string(), {}});
    } else {
      outputs_.push_back({});  // None, tokens, ...
    }
  }
}

bool EmitContext::output_used(size_t i) const {
  return i < outputs_.size() && !outputs_[i].fx_name.empty() && is_used(outputs_[i].fx_name);
}

void EmitContext::set_output(size_t i, const std::string& value) {
  PT2ONNX_CHECK(i < outputs_.size(), ErrorCode::kInternal,
                "output " + std::to_string(i) + " set, but the node has " + std::to_string(outputs_.size()));
  outputs_[i].value = value;
}

void EmitContext::rename_value(const std::string& from, const std::string& to) {
  for (int n = node_start_ - packed_count(); n < graph_.node_size(); ++n) {
    onnx::NodeProto* node = graph_.mutable_node(n);
    for (auto& in : *node->mutable_input())
      if (in == from) in = to;
    for (int o = 0; o < node->output_size(); ++o) {
      if (node->output(o) != from) continue;
      node->set_output(o, to);
      if (o == 0) node->set_name(node_name_for(to));
    }
  }
  // Both ids first: adding `to` may move the entries. rename_value is asked only for values made here.
  const InternedNames::Id from_id = id_of(from);
  const InternedNames::Id to_id = id_of(to);
  NameInfo& source = shared_->about[from_id];
  NameInfo& target = shared_->about[to_id];
  target.made_by = std::exchange(source.made_by, 0);
  target.node = source.node;
  target.scope = source.scope;
}

void EmitContext::pack_nodes(PackedNodes& packed, bool keep) {
  PT2ONNX_CHECK(node_ == nullptr && (packed_ == nullptr || packed_ == &packed), ErrorCode::kInternal,
                "ONNX nodes packed while an FX node is translated, or into two buffers");
  packed_ = &packed;
  if (keep) packed.pack(*graph_.mutable_node());
  else packed.drop(*graph_.mutable_node());
}

void EmitContext::visit_nodes(const std::function<void(const onnx::NodeProto&)>& fn) const {
  if (packed_) packed_->visit(fn);
  for (const onnx::NodeProto& node : graph_.node()) fn(node);
}

void EmitContext::finish_node() {
  std::map<std::string, std::string> renamed;  // old value -> FX name, for outputs sharing a value
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const OutputSlot& slot = outputs_[i];
    if (slot.fx_name.empty()) continue;
    if (slot.value.empty()) {
      PT2ONNX_CHECK(!is_used(slot.fx_name), ErrorCode::kInternal,
                    "the rule produced no value for output " + std::to_string(i) + " (" + slot.fx_name + ")");
      continue;
    }
    if (auto done = renamed.find(slot.value); done != renamed.end()) {
      bind(slot.fx_name, done->second);
      continue;
    }
    const NameInfo* made = made_here(slot.value);
    if (made && made->node >= node_start_ && !is_pinned(slot.value) && slot.value != slot.fx_name) {
      // The root reserved every FX name of the program; a subgraph's FX names are claimed here.
      const std::string target = parent_ ? fresh_name(slot.fx_name) : slot.fx_name;
      rename_value(slot.value, target);
      renamed[slot.value] = target;
      bind(slot.fx_name, target);
    } else {
      bind(slot.fx_name, slot.value);
    }
  }
  node_ = nullptr;
  scope_ = 0;
  doc_.clear();
  outputs_.clear();
}

void EmitContext::abandon_node() {
  for (const OutputSlot& slot : outputs_)
    if (!slot.fx_name.empty() && !is_bound(slot.fx_name)) bind(slot.fx_name, parent_ ? fresh_name(slot.fx_name) : slot.fx_name);
  node_ = nullptr;
  scope_ = 0;
  doc_.clear();
  outputs_.clear();
}

}  // namespace pt2onnx::translate
