// Subgraph bodies: translation through child contexts, formal inputs, typed outputs, and the
// structural key that lets identical invoke_subgraph bodies share one function.
#include "translate/subgraph_body.h"

#include <map>
#include <set>

#include "common/error.h"
#include "translate/graph_io.h"
#include "translate/node_name.h"
#include "translate/onnx_types.h"

namespace pt2onnx::translate {

namespace {

// The one value an FX argument names, or "" (constants, lists).
std::string single_name(const ir::Argument& arg) {
  std::vector<std::string> names;
  if (std::holds_alternative<ir::TensorListArg>(arg)) return {};
  collect_value_names(arg, names);
  return names.size() == 1 ? names.front() : std::string();
}

onnx::ValueInfoProto typed_info(const std::string& name, ir::DType dtype, bool scalar) {
  onnx::ValueInfoProto info;
  info.set_name(name);
  onnx::TypeProto_Tensor* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx_dtype(dtype));
  if (scalar) tensor->mutable_shape();  // rank 0
  return info;
}
onnx::ValueInfoProto scalar_info(const std::string& name, ir::DType dtype) { return typed_info(name, dtype, true); }

// The ValueInfo of FX argument `arg` of graph `fx`, named `name`.
onnx::ValueInfoProto info_of(const EmitContext& ctx, const ir::Graph& fx, const ir::Argument& arg,
                             const std::string& name) {
  if (std::holds_alternative<ir::SymIntArg>(arg)) return scalar_info(name, ir::DType::kInt64);
  if (std::holds_alternative<ir::SymBoolArg>(arg)) return scalar_info(name, ir::DType::kBool);
  if (std::holds_alternative<ir::SymFloatArg>(arg)) return scalar_info(name, ir::DType::kFloat64);
  const std::string fx_name = single_name(arg);
  auto it = fx.tensor_values.find(fx_name);
  PT2ONNX_CHECK(it != fx.tensor_values.end(), ErrorCode::kUnsupported,
                "subgraph value '" + fx_name + "' is not a tensor with metadata");
  return tensor_value_info(ctx, name, it->second);
}

}  // namespace

std::vector<std::string> translate_body(EmitContext& ctx, onnx::GraphProto& graph, const ir::Graph& fx,
                                        const std::vector<std::string>& inputs, bool isolated) {
  PT2ONNX_CHECK(inputs.size() == fx.inputs.size(), ErrorCode::kUnsupported,
                "the subgraph takes " + std::to_string(fx.inputs.size()) + " inputs, the node passes " +
                    std::to_string(inputs.size()));
  EmitContext body(ctx, graph, fx, isolated);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = single_name(fx.inputs[i]);
    PT2ONNX_CHECK(!name.empty(), ErrorCode::kUnsupported, "subgraph input " + std::to_string(i) + " is not a single value");
    body.bind(name, inputs[i]);
  }
  body.translate_graph(fx);
  std::vector<std::string> outputs;
  for (const ir::Argument& out : fx.outputs) {
    if (const auto* s = std::get_if<ir::SymIntArg>(&out)) {
      outputs.push_back(body.sym_int(*s));
      continue;
    }
    const std::string name = single_name(out);
    PT2ONNX_CHECK(!name.empty(), ErrorCode::kUnsupported, "a subgraph output is neither a tensor nor a SymInt");
    outputs.push_back(body.value_of(name));
  }
  return outputs;
}

std::string add_body_input(EmitContext& ctx, onnx::GraphProto& graph, const ir::Graph& fx, const ir::Argument& fx_input) {
  const std::string fx_name = single_name(fx_input);
  const std::string name = ctx.fresh_name(fx_name.empty() ? "body_input" : fx_name);
  *graph.add_input() = info_of(ctx, fx, fx_input, name);
  return name;
}

std::string add_scalar_input(EmitContext& ctx, onnx::GraphProto& graph, const std::string& base, ir::DType dtype) {
  const std::string name = ctx.fresh_name(base);
  *graph.add_input() = scalar_info(name, dtype);
  return name;
}

std::string add_typed_input(EmitContext& ctx, onnx::GraphProto& graph, const std::string& base, ir::DType dtype) {
  const std::string name = ctx.fresh_name(base);
  *graph.add_input() = typed_info(name, dtype, false);
  return name;
}

void add_typed_output(onnx::GraphProto& graph, const std::string& value, ir::DType dtype, bool scalar) {
  *graph.add_output() = typed_info(value, dtype, scalar);
}

std::string append_body_node(EmitContext& ctx, onnx::GraphProto& graph, const std::string& op_type,
                             const std::vector<std::string>& inputs, const std::vector<Attr>& attrs) {
  const std::string out = ctx.fresh_name(graph.name() + "_" + op_type);
  onnx::NodeProto* node = graph.add_node();
  node->set_op_type(op_type);
  node->set_name(node_name_for(out));
  for (const auto& in : inputs) node->add_input(in);
  node->add_output(out);
  for (const Attr& a : attrs) *node->add_attribute() = make_attribute(a);
  return out;
}

void set_body_outputs(EmitContext& ctx, onnx::GraphProto& graph, const ir::Graph& fx, const std::vector<BodyOutput>& outputs) {
  std::set<std::string> made;
  for (const onnx::NodeProto& node : graph.node())
    for (const std::string& out : node.output()) made.insert(out);
  std::set<std::string> listed;
  for (const BodyOutput& out : outputs) {
    std::string value = out.value;
    if (!made.count(value) || !listed.insert(value).second) value = append_body_node(ctx, graph, "Identity", {value});
    *graph.add_output() = out.fx ? info_of(ctx, fx, *out.fx, value) : scalar_info(value, ir::DType::kBool);
  }
}

namespace {

// Renames every value of a body to its position of appearance, drops node names and doc strings.
class Canonicalizer {
 public:
  void function(onnx::FunctionProto& f) {
    for (auto& in : *f.mutable_input()) in = define(in);
    for (auto& node : *f.mutable_node()) this->node(node);
    for (auto& out : *f.mutable_output()) out = use(out);
    f.clear_name();
    f.clear_doc_string();
  }

 private:
  std::string define(const std::string& name) {
    if (name.empty()) return name;
    if (auto it = names_.find(name); it != names_.end()) return it->second;
    std::string canonical = std::to_string(names_.size());
    canonical.insert(canonical.begin(), 'v');
    names_.emplace(name, canonical);
    return canonical;
  }
  std::string use(const std::string& name) const {
    auto it = names_.find(name);
    return it == names_.end() ? name : it->second;
  }
  void graph(onnx::GraphProto& g) {
    g.clear_name();
    g.clear_doc_string();
    for (auto& in : *g.mutable_input()) in.set_name(define(in.name()));
    for (auto& init : *g.mutable_initializer()) init.set_name(define(init.name()));
    for (auto& n : *g.mutable_node()) node(n);
    for (auto& out : *g.mutable_output()) out.set_name(use(out.name()));
    g.clear_value_info();
  }
  void node(onnx::NodeProto& n) {
    n.clear_name();
    n.clear_doc_string();
    for (auto& in : *n.mutable_input()) in = use(in);
    for (auto& attr : *n.mutable_attribute()) {
      if (attr.has_g()) graph(*attr.mutable_g());
      for (auto& g : *attr.mutable_graphs()) graph(g);
    }
    for (auto& out : *n.mutable_output()) out = define(out);
  }

  std::map<std::string, std::string> names_;
};

}  // namespace

std::string structural_key(const onnx::FunctionProto& function) {
  onnx::FunctionProto copy = function;
  Canonicalizer().function(copy);
  std::string bytes;
  copy.SerializeToString(&bytes);
  return bytes;
}

}  // namespace pt2onnx::translate
