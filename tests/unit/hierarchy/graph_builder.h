// Small hand-built ONNX graphs with a module stack per node, for the hierarchy tests.
#pragma once

#include <string>
#include <vector>

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "ir/program.h"

namespace pt2onnx::hierarchy::testing {

using Stack = std::vector<ir::ModuleFrame>;

inline ir::ModuleFrame frame(const std::string& key, const std::string& path, const std::string& type) {
  return {key, path, type};
}

struct GraphBuilder {
  onnx::ModelProto model;
  ir::ModuleStacks stacks;

  GraphBuilder() {
    model.set_ir_version(8);
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);  // the newest libonnx 1.12 checks
    model.mutable_graph()->set_name("g");
  }

  static void set_float(onnx::ValueInfoProto& info, const std::string& name) {
    info.set_name(name);
    auto* tensor = info.mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto_DataType_FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_value(4);
  }
  void input(const std::string& name) { set_float(*model.mutable_graph()->add_input(), name); }
  void output(const std::string& name) { set_float(*model.mutable_graph()->add_output(), name); }
  void weight(const std::string& name, float value) {
    auto* init = model.mutable_graph()->add_initializer();
    init->set_name(name);
    init->set_data_type(onnx::TensorProto_DataType_FLOAT);
    init->add_dims(4);
    for (int i = 0; i < 4; ++i) init->add_float_data(value);
  }
  void node(const std::string& op, const std::vector<std::string>& ins, const std::string& out, const Stack& stack) {
    auto* n = model.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name("node_" + out);
    for (const auto& in : ins) n->add_input(in);
    n->add_output(out);
    stacks.push_back(stack);
  }
  void constant(const std::string& out, float value, const Stack& stack) {
    node("Constant", {}, out, stack);
    auto* attr = model.mutable_graph()->mutable_node(model.graph().node_size() - 1)->add_attribute();
    attr->set_name("value");
    attr->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    attr->mutable_t()->set_data_type(onnx::TensorProto_DataType_FLOAT);
    attr->mutable_t()->add_float_data(value);
  }
};

inline int count_op(const onnx::GraphProto& graph, const std::string& op) {
  int n = 0;
  for (const auto& node : graph.node()) n += node.op_type() == op;
  return n;
}

}  // namespace pt2onnx::hierarchy::testing
