// Boundary, canonical body and structural key of one instance.
#include "hierarchy/instance_body.h"

#include <functional>
#include <map>
#include <set>
#include <string_view>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace pt2onnx::hierarchy {

namespace {

// Adds to `out` the values `graph` reads that neither it nor an enclosing subgraph defines.
void outer_reads(const onnx::GraphProto& graph, std::set<std::string> defined, std::set<std::string>& seen,
                 std::vector<const std::string*>& out) {
  for (const auto& in : graph.input()) defined.insert(in.name());
  for (const auto& init : graph.initializer()) defined.insert(init.name());
  auto read = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) out.push_back(&name);
  };
  for (const onnx::NodeProto& node : graph.node()) {
    for (const std::string& in : node.input()) read(in);
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) outer_reads(attr.g(), defined, seen, out);
      for (const onnx::GraphProto& g : attr.graphs()) outer_reads(g, defined, seen, out);
    }
    for (const std::string& o : node.output()) defined.insert(o);
  }
  for (const auto& o : graph.output()) read(o.name());
}

// Renames, inside the subgraphs of a body node, the outer values it reads (by `renamed`) and the
// values they define (to w0, w1, ... in order), so equal bodies serialize equally.
void rename_subgraph(onnx::GraphProto& graph, std::map<std::string, std::string>& renamed, size_t& made);

void rename_attributes(onnx::NodeProto& node, std::map<std::string, std::string>& renamed, size_t& made) {
  for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
    if (attr.has_g()) rename_subgraph(*attr.mutable_g(), renamed, made);
    for (onnx::GraphProto& g : *attr.mutable_graphs()) rename_subgraph(g, renamed, made);
  }
}

}  // namespace

void node_reads(const onnx::NodeProto& node, std::vector<const std::string*>& out) {
  std::set<std::string> seen;
  for (const std::string& in : node.input())
    if (!in.empty() && seen.insert(in).second) out.push_back(&in);
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.has_g()) outer_reads(attr.g(), {}, seen, out);
    for (const onnx::GraphProto& g : attr.graphs()) outer_reads(g, {}, seen, out);
  }
}

std::vector<std::string> node_reads(const onnx::NodeProto& node) {
  std::vector<std::string> out;
  for_each_read(node, [&](const std::string& name) { out.push_back(name); });
  return out;
}

bool is_shape_arithmetic(const std::string& op_type) {
  static const std::set<std::string> ops = {"Shape", "Gather", "Unsqueeze", "Squeeze", "Concat", "Mul",
                                            "Add",   "Sub",    "Div",       "Mod",     "Neg",    "Max",
                                            "Min",   "Cast",   "Slice",     "Identity", "Constant"};
  return ops.count(op_type) != 0;
}

std::vector<size_t> canonical_order(const std::vector<onnx::NodeProto>& nodes, const std::vector<size_t>& members) {
  // Floating members: input-less Constants, Shapes of values from outside, and shape arithmetic
  // on floating values only. Where they sit depends on which instance first needed them, so each
  // goes right before its first reader (its own floating inputs first).
  // The values members make: asked only about the input of a Shape, so made only then.
  std::set<std::string_view> made;
  bool made_filled = false;
  auto made_inside = [&](const std::string& value) {
    if (!made_filled)
      for (size_t i : members) made.insert(nodes[i].output().begin(), nodes[i].output().end());
    made_filled = true;
    return made.count(value) != 0;
  };
  std::map<std::string_view, size_t> floating_of;  // value -> floating member making it
  std::set<size_t> floating;
  for (size_t i : members) {
    const onnx::NodeProto& n = nodes[i];
    if (!n.domain().empty() || n.output_size() != 1 || !is_shape_arithmetic(n.op_type())) continue;
    if (n.op_type() == "Constant" ? n.input_size() != 0 : n.input_size() == 0) continue;
    bool ok = true;
    for (const std::string& in : n.input())
      ok = ok && (in.empty() || floating_of.count(in) || (n.op_type() == "Shape" && !made_inside(in)));
    if (!ok) continue;
    floating.insert(i);
    floating_of[n.output(0)] = i;
  }
  if (floating.empty()) return members;  // nothing moves (the usual case: constants are initializers)
  std::vector<size_t> order;
  std::set<size_t> placed;
  std::function<void(size_t)> place = [&](size_t i) {
    if (!placed.insert(i).second) return;
    for_each_read(nodes[i], [&](const std::string& in) {
      if (auto it = floating_of.find(in); it != floating_of.end()) place(it->second);
    });
    order.push_back(i);
  };
  for (size_t i : members)
    if (!floating.count(i)) place(i);
  for (size_t i : members) place(i);  // floating members nothing inside reads
  return order;
}

bool subgraphs_read(const onnx::NodeProto& node, const std::string& name) {
  std::set<std::string> seen;
  std::vector<const std::string*> reads;
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.has_g()) outer_reads(attr.g(), {}, seen, reads);
    for (const onnx::GraphProto& g : attr.graphs()) outer_reads(g, {}, seen, reads);
  }
  return seen.count(name) != 0;
}

Boundary instance_boundary(const std::vector<onnx::NodeProto>& nodes, const std::vector<size_t>& members,
                           const std::function<bool(const std::string&)>& used_outside) {
  Boundary boundary;
  std::set<std::string_view> made, taken_in;
  for (size_t i : members) {
    for_each_read(nodes[i], [&](const std::string& in) {
      if (!made.count(in) && taken_in.insert(in).second) boundary.inputs.push_back(in);
    });
    for (const std::string& out : nodes[i].output())
      if (!out.empty()) {
        made.insert(out);
        if (used_outside(out)) boundary.outputs.push_back(out);
      }
  }
  return boundary;
}

namespace {

// "x3", "v12". Built by appending: GCC 12 warns falsely (-Wrestrict) on "x" + std::to_string(n).
std::string positional(char prefix, size_t n) {
  std::string name(1, prefix);
  name += std::to_string(n);
  return name;
}

void rename_subgraph(onnx::GraphProto& graph, std::map<std::string, std::string>& renamed, size_t& made) {
  graph.set_name(positional('g', made));  // ONNX wants a name; positional, so equal bodies compare equal
  graph.clear_doc_string();
  graph.clear_value_info();
  auto define = [&](std::string& name) {
    if (!name.empty()) name = renamed[name] = positional('w', made++);
  };
  auto use = [&](std::string& name) {
    if (auto it = renamed.find(name); it != renamed.end()) name = it->second;
  };
  for (onnx::ValueInfoProto& in : *graph.mutable_input()) define(*in.mutable_name());
  for (onnx::TensorProto& init : *graph.mutable_initializer()) define(*init.mutable_name());
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    node.clear_name();
    node.clear_doc_string();
    for (std::string& in : *node.mutable_input()) use(in);
    rename_attributes(node, renamed, made);
    for (std::string& out : *node.mutable_output()) define(out);
  }
  for (onnx::ValueInfoProto& out : *graph.mutable_output()) use(*out.mutable_name());
}

}  // namespace

void canonical_body(const std::vector<onnx::NodeProto>& nodes, const std::vector<size_t>& members,
                    const Boundary& boundary, onnx::FunctionProto& body) {
  body.Clear();
  std::map<std::string, std::string> renamed;
  for (size_t k = 0; k < boundary.inputs.size(); ++k) renamed[boundary.inputs[k]] = positional('x', k);
  size_t made = 0;
  size_t subgraph_values = 0;
  for (const std::string& in : boundary.inputs) body.add_input(renamed[in]);
  for (size_t i : members) {
    onnx::NodeProto* node = body.add_node();
    *node = nodes[i];
    node->clear_name();
    node->clear_doc_string();  // it names the instance's module path
    for (std::string& in : *node->mutable_input())
      if (!in.empty()) in = renamed.at(in);
    rename_attributes(*node, renamed, subgraph_values);
    for (std::string& out : *node->mutable_output())
      if (!out.empty()) out = renamed[out] = positional('v', made++);
  }
  for (const std::string& out : boundary.outputs) body.add_output(renamed.at(out));
}

std::string structural_key(const onnx::FunctionProto& body) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    body.SerializeToCodedStream(&coded);
  }
  return bytes;
}

}  // namespace pt2onnx::hierarchy
