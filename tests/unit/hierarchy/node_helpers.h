// Hand-made ONNX nodes for the hierarchy's unit tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "hierarchy/instance_body.h"

namespace pt2onnx::hierarchy::testing {

inline onnx::NodeProto& add_node(Nodes& nodes, const std::string& op, const std::vector<std::string>& ins,
                                 const std::vector<std::string>& outs) {
  onnx::NodeProto& node = *nodes.Add();
  node.set_op_type(op);
  for (const auto& in : ins) node.add_input(in);
  for (const auto& out : outs) node.add_output(out);
  return node;
}

inline void set_int(onnx::NodeProto& node, const std::string& name, int64_t value) {
  onnx::AttributeProto& attr = *node.add_attribute();
  attr.set_name(name);
  attr.set_type(onnx::AttributeProto_AttributeType_INT);
  attr.set_i(value);
}

}  // namespace pt2onnx::hierarchy::testing
