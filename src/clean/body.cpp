// Scopes, node removal and renaming that reach into subgraph attributes.
#include "clean/body.h"

#include <algorithm>

#include "hierarchy/module_instances.h"

namespace pt2onnx::clean {

bool ValueType::static_shape() const {
  if (!shape_known) return false;
  for (const auto& d : dims)
    if (!d) return false;
  return true;
}

Body main_body(onnx::GraphProto& graph, ModuleStacks* modules, TypeOracle types,
               std::vector<std::string> hiera_types) {
  Body body;
  body.nodes = graph.mutable_node();
  body.modules = modules;
  body.graph = &graph;
  body.inputs.reserve(static_cast<size_t>(graph.input_size() + graph.initializer_size()));
  for (const auto& v : graph.input()) body.inputs.insert(v.name());
  for (const auto& t : graph.initializer()) body.inputs.insert(t.name());
  for (const auto& v : graph.output()) body.outputs.insert(v.name());
  body.types = std::move(types);
  if (modules) body.hiera_types = std::move(hiera_types);
  return body;
}

Body function_body(onnx::FunctionProto& function) {
  Body body;
  body.nodes = function.mutable_node();
  body.inputs.insert(function.input().begin(), function.input().end());
  body.outputs.insert(function.output().begin(), function.output().end());
  return body;
}

void replace_by_value(Body& body, int index, const std::string& value, std::vector<bool>& keep,
                      std::map<std::string, std::string>& renames) {
  onnx::NodeProto& node = *body.nodes->Mutable(index);
  if (body.outputs.count(node.output(0))) {
    node.set_op_type("Identity");
    node.clear_attribute();
    node.clear_input();
    node.add_input(value);
    return;
  }
  renames[node.output(0)] = value;
  keep[static_cast<size_t>(index)] = false;
}

void erase_nodes(Body& body, const std::vector<bool>& keep) {
  Nodes& nodes = *body.nodes;
  int kept = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    if (!keep[static_cast<size_t>(i)]) continue;
    if (kept != i) {
      nodes.SwapElements(kept, i);
      if (body.modules) std::swap((*body.modules)[static_cast<size_t>(kept)], (*body.modules)[static_cast<size_t>(i)]);
    }
    ++kept;
  }
  while (nodes.size() > kept) nodes.RemoveLast();
  if (body.modules) body.modules->resize(static_cast<size_t>(kept));
}

void insert_before(Body& body, std::vector<std::pair<int, onnx::NodeProto>> inserts) {
  if (inserts.empty()) return;
  std::stable_sort(inserts.begin(), inserts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Nodes old;
  old.Swap(body.nodes);
  ModuleStacks old_modules;
  if (body.modules) old_modules.swap(*body.modules);
  size_t next = 0;
  for (int i = 0; i < old.size(); ++i) {
    for (; next < inserts.size() && inserts[next].first == i; ++next) {
      *body.nodes->Add() = std::move(inserts[next].second);
      if (body.modules) body.modules->push_back(old_modules[static_cast<size_t>(i)]);
    }
    body.nodes->Add()->Swap(old.Mutable(i));
    if (body.modules) body.modules->push_back(std::move(old_modules[static_cast<size_t>(i)]));
  }
}

namespace {

void rename_in_graph(onnx::GraphProto& graph, const std::string& from, const std::string& to);

void rename_in_node(onnx::NodeProto& node, const std::string& from, const std::string& to) {
  for (std::string& input : *node.mutable_input())
    if (input == from) input = to;
  for (onnx::AttributeProto& a : *node.mutable_attribute()) {
    if (a.has_g()) rename_in_graph(*a.mutable_g(), from, to);
    for (onnx::GraphProto& g : *a.mutable_graphs()) rename_in_graph(g, from, to);
  }
}

void rename_in_graph(onnx::GraphProto& graph, const std::string& from, const std::string& to) {
  for (onnx::NodeProto& node : *graph.mutable_node()) rename_in_node(node, from, to);
  for (onnx::ValueInfoProto& out : *graph.mutable_output())  // a subgraph may return an outer value
    if (out.name() == from) out.set_name(to);
}

void collect_graph_reads(const onnx::GraphProto& graph, std::set<std::string>& names) {
  std::set<std::string> local;
  for (const auto& v : graph.input()) local.insert(v.name());
  for (const auto& t : graph.initializer()) local.insert(t.name());
  for (const auto& node : graph.node())
    for (const auto& o : node.output()) local.insert(o);
  std::set<std::string> reads;
  for (const auto& node : graph.node()) {
    reads.insert(node.input().begin(), node.input().end());
    subgraph_reads(node, reads);
  }
  for (const auto& out : graph.output()) reads.insert(out.name());
  for (const auto& r : reads)
    if (!r.empty() && !local.count(r)) names.insert(r);
}

}  // namespace

std::string instance_key(const Body& body, int index) {
  if (!body.modules || body.hiera_types.empty()) return {};
  const ir::ModuleStack& stack = (*body.modules)[static_cast<size_t>(index)];
  std::string key;
  for (const std::string& type : body.hiera_types) {
    std::string path;  // as hierarchy keys an instance: the stack's keys down to the outermost match
    for (size_t i = 0; i < stack.size(); ++i) {
      const ir::FrameView frame = stack[i];
      path.append(frame.key).append("/");
      if (hierarchy::type_matches(type, frame.type)) break;
      if (i + 1 == stack.size()) path.clear();
    }
    key += path + '|';
  }
  return key;
}

bool inside_instance(const Body& body, int index) {
  const std::string key = instance_key(body, index);
  return key.find_first_not_of('|') != std::string::npos;
}

namespace {

const std::string& resolve(const std::map<std::string, std::string>& renames, const std::string& name) {
  const std::string* at = &name;
  for (auto found = renames.find(*at); found != renames.end(); found = renames.find(*at)) at = &found->second;
  return *at;
}

void apply_renames_graph(onnx::GraphProto& graph, const std::map<std::string, std::string>& renames) {
  for (onnx::NodeProto& node : *graph.mutable_node()) apply_renames(node, renames);
  for (onnx::ValueInfoProto& out : *graph.mutable_output()) out.set_name(resolve(renames, out.name()));
}

}  // namespace

void apply_renames(onnx::NodeProto& node, const std::map<std::string, std::string>& renames) {
  if (renames.empty()) return;
  for (std::string& input : *node.mutable_input())
    if (!input.empty()) input = resolve(renames, input);
  for (onnx::AttributeProto& a : *node.mutable_attribute()) {
    if (a.has_g()) apply_renames_graph(*a.mutable_g(), renames);
    for (onnx::GraphProto& g : *a.mutable_graphs()) apply_renames_graph(g, renames);
  }
}

void rename_uses(Body& body, const std::string& from, const std::string& to) {
  for (onnx::NodeProto& node : *body.nodes) rename_in_node(node, from, to);
}

ValueUses value_uses(const Body& body) {
  ValueUses uses;
  const Nodes& nodes = *body.nodes;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    for (const std::string& o : node.output()) uses.producer[o] = i;
    for (const std::string& in : node.input()) ++uses.reads[in];
    std::set<std::string> outer;
    subgraph_reads(node, outer);
    for (const std::string& in : outer) uses.reads[in] += 2;
  }
  for (const std::string& o : body.outputs) uses.reads[o] += 2;
  return uses;
}

void subgraph_reads(const onnx::NodeProto& node, std::set<std::string>& names) {
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.has_g()) collect_graph_reads(a.g(), names);
    for (const onnx::GraphProto& g : a.graphs()) collect_graph_reads(g, names);
  }
}

bool has_subgraph(const onnx::NodeProto& node) {
  for (const onnx::AttributeProto& a : node.attribute())
    if (a.has_g() || a.graphs_size() > 0) return true;
  return false;
}

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const onnx::AttributeProto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const onnx::AttributeProto* a = find_attribute(node, name);
  return a ? a->i() : fallback;
}

const onnx::TensorProto* find_initializer(const onnx::GraphProto& graph, const std::string& name) {
  for (const onnx::TensorProto& t : graph.initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

void declare_initializer(Body& body, onnx::TensorProto t) {
  body.inputs.insert(t.name());
  *body.graph->add_initializer() = std::move(t);
}

}  // namespace pt2onnx::clean
