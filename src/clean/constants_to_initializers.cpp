// Constant nodes of the main graph become initializers of the same name, as torch.onnx.export
// writes its constants: the value is the same and every reader reads it by the same name, one
// node fewer each. Runs last, once the graph is final (after --hiera, whose function bodies keep
// their Constant nodes: a function has no initializers). A Constant that is a graph output, or
// one of a kind with no tensor form here (sparse, strings), stays a node.
#include "clean/clean.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

std::optional<onnx::TensorProto> constant_tensor(const onnx::NodeProto& node) {
  if (node.op_type() != "Constant" || !node.domain().empty() || node.attribute_size() != 1 ||
      node.output_size() != 1 || node.output(0).empty() || node.input_size() != 0)
    return std::nullopt;
  const onnx::AttributeProto& a = node.attribute(0);
  onnx::TensorProto t;
  if (a.name() == "value") {
    if (a.t().data_location() == onnx::TensorProto_DataLocation_EXTERNAL) return std::nullopt;
    t = a.t();
  } else if (a.name() == "value_int") {
    t.set_data_type(onnx::TensorProto_DataType_INT64);
    t.add_int64_data(a.i());
  } else if (a.name() == "value_ints") {
    t.set_data_type(onnx::TensorProto_DataType_INT64);
    t.add_dims(a.ints_size());
    t.mutable_int64_data()->CopyFrom(a.ints());
  } else if (a.name() == "value_float") {
    t.set_data_type(onnx::TensorProto_DataType_FLOAT);
    t.add_float_data(a.f());
  } else if (a.name() == "value_floats") {
    t.set_data_type(onnx::TensorProto_DataType_FLOAT);
    t.add_dims(a.floats_size());
    t.mutable_float_data()->CopyFrom(a.floats());
  } else {
    return std::nullopt;
  }
  t.set_name(node.output(0));
  return t;
}

}  // namespace

int constants_to_initializers(Body& body) {
  if (!body.graph) return 0;
  Nodes& nodes = *body.nodes;
  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  int moved = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    if (node.op_type() != "Constant" || body.outputs.count(node.output(0))) continue;
    std::optional<onnx::TensorProto> t = constant_tensor(node);
    if (!t) continue;
    body.inputs.insert(t->name());
    *body.graph->add_initializer() = std::move(*t);
    keep[static_cast<size_t>(i)] = false;
    ++moved;
  }
  if (moved) erase_nodes(body, keep);
  return moved;
}

}  // namespace pt2onnx::clean
