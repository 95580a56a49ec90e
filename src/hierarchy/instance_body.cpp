// Boundary, canonical body and structural key of one instance.
#include "hierarchy/instance_body.h"

#include <functional>
#include <map>
#include <set>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace pt2onnx::hierarchy {

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
  std::set<std::string> made;
  for (size_t i : members) made.insert(nodes[i].output().begin(), nodes[i].output().end());
  std::map<std::string, size_t> floating_of;  // value -> floating member making it
  std::set<size_t> floating;
  for (size_t i : members) {
    const onnx::NodeProto& n = nodes[i];
    if (!n.domain().empty() || n.output_size() != 1 || !is_shape_arithmetic(n.op_type())) continue;
    if (n.op_type() == "Constant" ? n.input_size() != 0 : n.input_size() == 0) continue;
    bool ok = true;
    for (const std::string& in : n.input())
      ok = ok && (in.empty() || floating_of.count(in) || (n.op_type() == "Shape" && !made.count(in)));
    if (!ok) continue;
    floating.insert(i);
    floating_of[n.output(0)] = i;
  }
  std::vector<size_t> order;
  std::set<size_t> placed;
  std::function<void(size_t)> place = [&](size_t i) {
    if (!placed.insert(i).second) return;
    for (const std::string& in : nodes[i].input())
      if (auto it = floating_of.find(in); it != floating_of.end()) place(it->second);
    order.push_back(i);
  };
  for (size_t i : members)
    if (!floating.count(i)) place(i);
  for (size_t i : members) place(i);  // floating members nothing inside reads
  return order;
}

Boundary instance_boundary(const std::vector<onnx::NodeProto>& nodes, const std::vector<size_t>& members,
                           const std::function<bool(const std::string&)>& used_outside) {
  Boundary boundary;
  std::set<std::string> made, taken_in;
  for (size_t i : members) {
    for (const std::string& in : nodes[i].input())
      if (!in.empty() && !made.count(in) && taken_in.insert(in).second) boundary.inputs.push_back(in);
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

}  // namespace

onnx::FunctionProto canonical_body(const std::vector<onnx::NodeProto>& nodes, const std::vector<size_t>& members,
                                   const Boundary& boundary) {
  std::map<std::string, std::string> renamed;
  for (size_t k = 0; k < boundary.inputs.size(); ++k) renamed[boundary.inputs[k]] = positional('x', k);
  size_t made = 0;
  onnx::FunctionProto body;
  for (const std::string& in : boundary.inputs) body.add_input(renamed[in]);
  for (size_t i : members) {
    onnx::NodeProto* node = body.add_node();
    *node = nodes[i];
    node->clear_name();
    node->clear_doc_string();  // it names the instance's module path
    for (std::string& in : *node->mutable_input())
      if (!in.empty()) in = renamed.at(in);
    for (std::string& out : *node->mutable_output())
      if (!out.empty()) out = renamed[out] = positional('v', made++);
  }
  for (const std::string& out : boundary.outputs) body.add_output(renamed.at(out));
  return body;
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
