// Boundary, canonical body and structural key of one instance.
#include "hierarchy/instance_body.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "common/view_map.h"
#include "hierarchy/canonical_order.h"
#include "hierarchy/flat_key.h"

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
  // Asked of every node, several times: a linear scan of short literals beats a tree of strings.
  static constexpr std::string_view kOps[] = {"Shape", "Gather", "Unsqueeze", "Squeeze", "Concat", "Mul",
                                              "Add",   "Sub",    "Div",       "Mod",     "Neg",    "Max",
                                              "Min",   "Cast",   "Slice",     "Identity", "Constant"};
  return std::find(std::begin(kOps), std::end(kOps), std::string_view(op_type)) != std::end(kOps);
}

namespace {

// canonical_order_with's values by name.
class ValuesByName {
 public:
  ValuesByName(const Nodes& nodes, const std::vector<size_t>& members) : nodes_(nodes), members_(members) {}

  template <typename Pred>
  bool all_inputs(size_t i, Pred&& pred) const {
    for (const std::string& in : nodes_[static_cast<int>(i)].input())
      if (!in.empty() && !pred(in)) return false;
    return true;
  }
  template <typename Fn>
  void for_each_read(size_t i, Fn&& fn) const {
    hierarchy::for_each_read(nodes_[static_cast<int>(i)], fn);
  }
  bool made_inside(const std::string& value) {
    if (!made_filled_)  // asked only about the input of a Shape, so made only then
      for (size_t i : members_) made_.insert(nodes_[static_cast<int>(i)].output().begin(), nodes_[static_cast<int>(i)].output().end());
    made_filled_ = true;
    return made_.count(value) != 0;
  }
  void set_floating(size_t i) { *floating_of_.try_emplace(nodes_[static_cast<int>(i)].output(0), i).first = i; }
  long floating_maker(const std::string& value) const {
    const size_t* maker = floating_of_.find(value);
    return maker ? static_cast<long>(*maker) : -1;
  }

 private:
  const Nodes& nodes_;
  const std::vector<size_t>& members_;
  std::set<std::string_view> made_;  // the values members make
  bool made_filled_ = false;
  ViewMap<size_t> floating_of_;  // value -> floating member making it; views the members' outputs
};

}  // namespace

std::vector<size_t> canonical_order(const Nodes& nodes, const std::vector<size_t>& members) {
  ValuesByName values(nodes, members);
  return canonical_order_with(nodes, members, values);
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

Boundary instance_boundary(const Nodes& nodes, const std::vector<size_t>& members,
                           const std::function<bool(const std::string&)>& used_outside) {
  Boundary boundary;
  // Values made inside or taken in already: a read of either adds no input. One table, so each
  // read is one lookup. Views the members' names.
  ViewSet seen(members.size() * 4);
  for (size_t i : members) {
    for_each_read(nodes[i], [&](const std::string& in) {
      if (seen.insert(in)) boundary.inputs.push_back(in);
    });
    for (const std::string& out : nodes[i].output())
      if (!out.empty()) {
        seen.insert(out);
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

namespace {

// canonical_body of members none of which has a subgraph: names looked up in one flat table
// that views the boundary's and the nodes' strings (the std::map of the general case cost two
// string copies and a tree node per name, for every instance).
void flat_canonical_body(const Nodes& nodes, const std::vector<size_t>& members,
                         const Boundary& boundary, onnx::FunctionProto& body) {
  ViewMap<std::string> renamed(boundary.inputs.size() + members.size() * 2);
  auto renamed_at = [&](const std::string& name) -> const std::string& {
    const std::string* to = renamed.find(name);
    if (!to) throw std::out_of_range("canonical_body: " + name + " is read before it is made");
    return *to;
  };
  for (size_t k = 0; k < boundary.inputs.size(); ++k)
    *renamed.try_emplace(boundary.inputs[k], std::string()).first = positional('x', k);
  for (const std::string& in : boundary.inputs) body.add_input(renamed_at(in));
  size_t made = 0;
  for (size_t i : members) {
    const onnx::NodeProto& from = nodes[i];
    onnx::NodeProto* node = body.add_node();
    *node = from;
    node->clear_name();
    node->clear_doc_string();  // it names the instance's module path
    for (int k = 0; k < from.input_size(); ++k)
      if (!from.input(k).empty()) node->set_input(k, renamed_at(from.input(k)));
    for (int k = 0; k < from.output_size(); ++k)
      if (!from.output(k).empty()) {
        std::string& to = *renamed.try_emplace(from.output(k), std::string()).first;
        to = positional('v', made++);
        node->set_output(k, to);
      }
  }
  for (const std::string& out : boundary.outputs) body.add_output(renamed_at(out));
}

}  // namespace

void canonical_body(const Nodes& nodes, const std::vector<size_t>& members,
                    const Boundary& boundary, onnx::FunctionProto& body) {
  body.Clear();
  bool subgraphs = false;
  for (size_t i : members)
    for (const onnx::AttributeProto& attr : nodes[i].attribute()) subgraphs = subgraphs || attr.has_g() || attr.graphs_size();
  if (!subgraphs) return flat_canonical_body(nodes, members, boundary, body);
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

bool flat_structural_key(const Nodes& nodes, const std::vector<size_t>& members, const Boundary& boundary,
                         std::string& key) {
  for (size_t i : members)
    for (const onnx::AttributeProto& attr : nodes[i].attribute())
      if (attr.has_g() || attr.graphs_size()) return false;
  // Each value as the number its canonical name carries.
  ViewMap<size_t> number(boundary.inputs.size() + members.size() * 2);
  for (size_t k = 0; k < boundary.inputs.size(); ++k) number.insert(boundary.inputs[k], k);
  auto value = [&](const std::string& name) -> size_t {
    const size_t* n = number.find(name);
    if (!n) throw std::out_of_range("canonical_body: " + name + " is read before it is made");
    return *n + 1;
  };
  flat_key::write(
      nodes, members, boundary.inputs.size(), boundary.outputs.size(), key,
      [&](size_t i, int k) -> size_t {
        const std::string& in = nodes[static_cast<int>(i)].input(k);
        return in.empty() ? 0 : value(in);
      },
      [&](size_t i, int k, size_t n) { *number.try_emplace(nodes[static_cast<int>(i)].output(k), 0).first = n; },
      [&](size_t i, std::string& out) { flat_key::append_attributes(nodes[static_cast<int>(i)], out); },
      [&](size_t j) { return value(boundary.outputs[j]); });
  return true;
}

std::string structural_key(const onnx::FunctionProto& body) {
  std::string bytes = "S";
  {
    google::protobuf::io::StringOutputStream stream(&bytes);  // appends, after the tag
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    body.SerializeToCodedStream(&coded);
  }
  return bytes;
}

}  // namespace pt2onnx::hierarchy
