// An instance's boundary and its canonical body: the FunctionProto it would become, with values
// renamed by position, so that structurally identical instances give identical bodies.
#pragma once

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include <onnx/onnx_pb.h>

namespace pt2onnx::hierarchy {

// A graph's nodes as the passes of --hiera hold them: the graph's own field, swapped out and
// back, not moved into a std::vector of NodeProtos (a second array at the hierarchy's peak).
using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;
inline size_t node_count(const Nodes& nodes) { return static_cast<size_t>(nodes.size()); }

struct Boundary {
  std::vector<std::string> inputs;   // read inside, made outside (initializers included); by first use
  std::vector<std::string> outputs;  // made inside, read outside or graph outputs; by production
};

// Values a node reads: its inputs, then the outer values its subgraphs (If branches, Loop and
// Scan bodies) read by name, in order of first use.
std::vector<std::string> node_reads(const onnx::NodeProto& node);
// The same values, as pointers to the node's own strings (valid while the node is unchanged).
void node_reads(const onnx::NodeProto& node, std::vector<const std::string*>& out);
// Whether the node's subgraphs (not its inputs) read outer value `name`.
bool subgraphs_read(const onnx::NodeProto& node, const std::string& name);

// Calls fn(name) for each value of node_reads(node), in its order, with a reference into the
// node. Allocation-free for a node without subgraphs and with few inputs: the passes of --hiera
// ask this of every node of 100k-node graphs, several times.
template <class Fn>
void for_each_read(const onnx::NodeProto& node, Fn&& fn) {
  const int count = node.input_size();
  bool simple = count <= 16;
  for (const onnx::AttributeProto& attr : node.attribute()) simple = simple && !attr.has_g() && attr.graphs_size() == 0;
  if (simple) {
    // The names by pointer: RepeatedPtrField<std::string>::Get is not inlined (protobuf declares
    // that instantiation extern), and the repeat check would call it for every pair.
    const std::string* const* in = node.input().data();
    for (int k = 0; k < count; ++k) {
      if (in[k]->empty()) continue;
      bool repeated = false;
      for (int j = 0; j < k && !repeated; ++j) repeated = *in[j] == *in[k];
      if (!repeated) fn(*in[k]);
    }
    return;
  }
  std::vector<const std::string*> reads;
  node_reads(node, reads);
  for (const std::string* name : reads) fn(*name);
}

// Ops of integer shape arithmetic (Shape, Gather, Mul, Concat, Constant ...): symbol values and
// sizes are made of them.
bool is_shape_arithmetic(const std::string& op_type);

// `members` reordered so that bodies differing only in where their constants and shape
// arithmetic sit (the translator emits a cached value at its first use anywhere) compare equal:
// each input-less Constant, Shape of a value from outside, and shape-arithmetic node on such
// values only goes right before its first reader inside, unread ones last. Still topological.
std::vector<size_t> canonical_order(const Nodes& nodes, const std::vector<size_t>& members);

// `members` in canonical order. `used_outside(v)`: v is read by a node that is not a member, or is a graph output.
Boundary instance_boundary(const Nodes& nodes, const std::vector<size_t>& members,
                           const std::function<bool(const std::string&)>& used_outside);

// The body as a FunctionProto without name, domain or opset imports: inputs x0.., every value
// made inside v0.. in production order, node names and doc strings dropped. Written into `body`,
// cleared first: one body reused across the instances of a type keeps its node objects.
void canonical_body(const Nodes& nodes, const std::vector<size_t>& members,
                    const Boundary& boundary, onnx::FunctionProto& body);

// Bytes that are equal exactly when two canonical bodies are.
std::string structural_key(const onnx::FunctionProto& body);
// The same without making the body, written into `key`, for members none of which has a subgraph
// (false, and `key` unspecified, when one has): each node's op, domain, attributes and values by
// their canonical numbers. Equal exactly when the bodies are (a NodeProto holds nothing else that
// canonical_body keeps), and never equal to a structural_key.
bool flat_structural_key(const Nodes& nodes, const std::vector<size_t>& members, const Boundary& boundary,
                         std::string& key);

}  // namespace pt2onnx::hierarchy
