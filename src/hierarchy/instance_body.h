// An instance's boundary and its canonical body: the FunctionProto it would become, with values
// renamed by position, so that structurally identical instances give identical bodies.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace pt2onnx::hierarchy {

struct Boundary {
  std::vector<std::string> inputs;   // read inside, made outside (initializers included); by first use
  std::vector<std::string> outputs;  // made inside, read outside or graph outputs; by production
};

// Values a node reads: its inputs, then the outer values its subgraphs (If branches, Loop and
// Scan bodies) read by name, in order of first use.
std::vector<std::string> node_reads(const onnx::NodeProto& node);

// Ops of integer shape arithmetic (Shape, Gather, Mul, Concat, Constant ...): symbol values and
// sizes are made of them.
bool is_shape_arithmetic(const std::string& op_type);

// `members` reordered so that bodies differing only in where their constants and shape
// arithmetic sit (the translator emits a cached value at its first use anywhere) compare equal:
// each input-less Constant, Shape of a value from outside, and shape-arithmetic node on such
// values only goes right before its first reader inside, unread ones last. Still topological.
std::vector<size_t> canonical_order(const std::vector<onnx::NodeProto>& nodes, const std::vector<size_t>& members);

// `members` in canonical order. `used_outside(v)`: v is read by a node that is not a member, or is a graph output.
Boundary instance_boundary(const std::vector<onnx::NodeProto>& nodes, const std::vector<size_t>& members,
                           const std::function<bool(const std::string&)>& used_outside);

// The body as a FunctionProto without name, domain or opset imports: inputs x0.., every value
// made inside v0.. in production order, node names and doc strings dropped.
onnx::FunctionProto canonical_body(const std::vector<onnx::NodeProto>& nodes, const std::vector<size_t>& members,
                                   const Boundary& boundary);

// Bytes that are equal exactly when two canonical bodies are.
std::string structural_key(const onnx::FunctionProto& body);

}  // namespace pt2onnx::hierarchy
