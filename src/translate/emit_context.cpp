// EmitContext: names, the FX value map, node creation, constants and the per-node output binding.
#include "translate/emit_context.h"

#include <cmath>
#include <cstdio>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/tensor_data.h"

namespace pt2onnx::translate {

onnx::AttributeProto make_attribute(const Attr& attr) {
  onnx::AttributeProto proto;
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
          for (int64_t x : v) a->add_ints(x);
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          a->set_type(onnx::AttributeProto::FLOATS);
          for (float x : v) a->add_floats(x);
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
  return proto;
}

namespace {

void set_attribute(onnx::NodeProto& node, const Attr& attr) { *node.add_attribute() = make_attribute(attr); }

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

}  // namespace

std::string describe_node(const ir::Node& node, bool with_target) {
  std::string out = "node " + node.name;
  if (with_target) out += " (" + node.target + ")";
  if (!node.module_stack.empty()) {
    const ir::ModuleFrame& frame = node.module_stack.back();
    out += " in " + (frame.path.empty() ? std::string("<root>") : frame.path);
    if (!frame.type.empty()) out += " [" + frame.type + "]";
  }
  return out;
}

EmitContext::EmitContext(onnx::GraphProto& graph, const ir::Program& program, int opset)
    : graph_(graph), program_(program), fx_graph_(&program.graph), opset_(opset), shared_(std::make_shared<Shared>()) {}

EmitContext::EmitContext(EmitContext& parent, onnx::GraphProto& graph, const ir::Graph& fx, bool isolated)
    : graph_(graph), program_(parent.program_), fx_graph_(&fx), parent_(&parent), isolated_(isolated),
      opset_(parent.opset_), shared_(parent.shared_) {}
// A child starts with empty caches: a subgraph makes its own constants and shapes, so that its
// outer reads are only the operands and symbol values (what --hiera must see as inputs).

void EmitContext::translate_graph(const ir::Graph& fx) {
  PT2ONNX_CHECK(shared_->translator != nullptr, ErrorCode::kInternal, "no graph translator is set");
  shared_->translator(*this, fx);
}

// ---- names ---------------------------------------------------------------------------------

bool EmitContext::reserve(const std::string& name) { return shared_->names.insert(name).second; }

std::string EmitContext::fresh_name(const std::string& base) {
  if (shared_->names.insert(base).second) return base;
  int& suffix = shared_->next_suffix[base];
  for (;;) {
    std::string candidate = base + "_" + std::to_string(++suffix);
    if (shared_->names.insert(candidate).second) return candidate;
  }
}

// ---- FX values ------------------------------------------------------------------------------

void EmitContext::bind(const std::string& fx_name, const std::string& value) { values_[fx_name] = value; }

bool EmitContext::is_bound(const std::string& fx_name) const { return values_.count(fx_name) != 0; }

const std::string& EmitContext::value_of(const std::string& fx_name) const {
  auto it = values_.find(fx_name);
  if (it == values_.end())
    fail(ErrorCode::kInternal, "value '" + fx_name + "' is used before anything produced it");
  return it->second;
}

const ir::TensorMeta* EmitContext::meta(const std::string& fx_name) const {
  auto it = fx_graph_->tensor_values.find(fx_name);
  return it == fx_graph_->tensor_values.end() ? nullptr : &it->second;
}

// The module instance a node belongs to, as the keys of its module stack ("a/b/"); "" outside
// every module.
static std::string module_scope(const ir::Node* node) {
  std::string scope;
  if (node)
    for (const ir::ModuleFrame& frame : node->module_stack) scope += frame.key + "/";
  return scope;
}

bool EmitContext::visible_here(const std::string& value) const {
  auto it = scope_of_.find(value);
  return it == scope_of_.end() || module_scope(node_).starts_with(it->second);
}

// ---- nodes ----------------------------------------------------------------------------------

onnx::NodeProto& EmitContext::append_node(std::string_view op_type, const std::vector<std::string>& inputs,
                                          const std::vector<std::string>& outputs, const std::vector<Attr>& attrs) {
  onnx::NodeProto* n = graph_.add_node();
  n->set_op_type(std::string(op_type));
  n->set_name("node_" + outputs.front());
  for (const auto& in : inputs) n->add_input(in);
  const std::string scope = module_scope(node_);
  for (const auto& out : outputs) {
    n->add_output(out);
    if (out.empty()) continue;
    producer_[out] = graph_.node_size() - 1;
    if (!scope.empty()) scope_of_[out] = scope;
  }
  for (const auto& a : attrs) set_attribute(*n, a);
  if (node_ && !node_->module_stack.empty()) {
    const ir::ModuleFrame& frame = node_->module_stack.back();
    n->set_doc_string((frame.path.empty() ? "<root>" : frame.path) + (frame.type.empty() ? "" : " [" + frame.type + "]"));
  }
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
  return emit(op_type, inputs, attrs, 1).front();
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

std::string EmitContext::cached_constant(const std::string& key, const std::string& base, onnx::TensorProto tensor) {
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  const std::string name = fresh_name(base);
  append_node("Constant", {}, {name}, {Attr("value", std::move(tensor))}).clear_doc_string();
  pinned_.insert(name);
  constants_[key] = name;
  return name;
}

std::string EmitContext::const_i64(int64_t v) {
  return cached_constant("i64:" + std::to_string(v), "const_i64_" + name_text(static_cast<double>(v)),
                         int64_tensor({v}, /*scalar=*/true));
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
  return cached_constant(key, base, int64_tensor(v));
}

std::string EmitContext::const_scalar(double v, ir::DType dtype) {
  char bits[32];
  std::snprintf(bits, sizeof(bits), "%a", v);  // exact, so 0.1f and 0.1 stay distinct keys
  const std::string type_name(ir::dtype_name(dtype));
  return cached_constant("s:" + type_name + ":" + bits, "const_" + type_name + "_" + name_text(v),
                         filled_tensor(v, dtype));
}

std::string EmitContext::const_tensor(onnx::TensorProto tensor, const std::string& base) {
  const std::string name = fresh_name(base);
  append_node("Constant", {}, {name}, {Attr("value", std::move(tensor))});
  pinned_.insert(name);
  return name;
}

// ---- the FX node being translated ------------------------------------------------------------

void EmitContext::begin_node(const ir::Node& node) {
  node_ = &node;
  node_start_ = graph_.node_size();
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
  for (int n = node_start_; n < graph_.node_size(); ++n) {
    onnx::NodeProto* node = graph_.mutable_node(n);
    for (auto& in : *node->mutable_input())
      if (in == from) in = to;
    for (int o = 0; o < node->output_size(); ++o) {
      if (node->output(o) != from) continue;
      node->set_output(o, to);
      if (o == 0) node->set_name("node_" + to);
    }
  }
  producer_[to] = producer_[from];
  producer_.erase(from);
  if (auto scope = scope_of_.find(from); scope != scope_of_.end()) {
    scope_of_[to] = scope->second;
    scope_of_.erase(scope);
  }
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
    auto producer = producer_.find(slot.value);
    const bool made_here = producer != producer_.end() && producer->second >= node_start_;
    if (made_here && !pinned_.count(slot.value) && slot.value != slot.fx_name) {
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
  outputs_.clear();
}

}  // namespace pt2onnx::translate
