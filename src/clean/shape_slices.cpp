// One dim of a shape as a 1-D value: the translator reads a dim as Gather(Shape(x), k) (a scalar,
// for dims arithmetic) and, where a shape vector needs it, unsqueezes that to [1]. Shape (opset 15)
// slices itself: Unsqueeze(Gather(Shape(x), k), [0]) is Shape(x, start=k', end=k'+1), one node,
// and the Gather (and the full Shape) go dead where nothing else reads them.
#include <map>

#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

bool is_op(const onnx::NodeProto& node, const char* op) { return node.op_type() == op && node.domain().empty(); }

// The dim Gather(Shape(x), k) reads, as a position of x's shape, when k is a non-negative scalar
// (a negative one would need x's rank) inside the Shape's own slice; -1 otherwise.
int64_t shape_position(const onnx::NodeProto& shape, const ConstTensor& index) {
  if (!index.is_integer() || !index.dims.empty() || index.ints.size() != 1 || index.ints[0] < 0) return -1;
  const int64_t start = int_attribute(shape, "start", 0);
  if (start < 0) return -1;
  const int64_t position = start + index.ints[0];
  if (find_attribute(shape, "end")) {
    const int64_t end = int_attribute(shape, "end", 0);
    if (end < 0 || position >= end) return -1;
  }
  return position;
}

}  // namespace

int slice_shape_dims(Body& body) {
  // Before --hiera the new Shape could read a value of another instance; clean_functions runs it
  // on the function bodies instead.
  if (!body.hiera_types.empty()) return 0;
  std::map<std::string, const onnx::NodeProto*> made;
  std::map<std::string, ConstTensor> constants;
  for (const onnx::NodeProto& node : *body.nodes) {
    for (const std::string& o : node.output()) made[o] = &node;
    if (node.output_size() == 1)
      if (std::optional<ConstTensor> c = constant_node_value(node)) constants.emplace(node.output(0), std::move(*c));
  }
  auto producer = [&](const std::string& value) -> const onnx::NodeProto* {
    auto p = made.find(value);
    return p == made.end() ? nullptr : p->second;
  };
  int changed = 0;
  for (onnx::NodeProto& node : *body.nodes) {
    if (!is_op(node, "Unsqueeze") || node.input_size() != 2 || node.output_size() != 1) continue;
    auto axes = constants.find(node.input(1));
    if (axes == constants.end() || axes->second.ints != std::vector<int64_t>{0}) continue;
    const onnx::NodeProto* gather = producer(node.input(0));
    if (!gather || !is_op(*gather, "Gather") || gather->input_size() != 2 || int_attribute(*gather, "axis", 0) != 0)
      continue;
    auto index = constants.find(gather->input(1));
    const onnx::NodeProto* shape = producer(gather->input(0));
    if (index == constants.end() || !shape || !is_op(*shape, "Shape") || shape->input_size() != 1) continue;
    const int64_t position = shape_position(*shape, index->second);
    if (position < 0) continue;
    const std::string x = shape->input(0);
    node.set_op_type("Shape");
    node.clear_input();
    node.add_input(x);
    node.clear_attribute();
    onnx::AttributeProto* start = node.add_attribute();
    start->set_name("start");
    start->set_type(onnx::AttributeProto_AttributeType_INT);
    start->set_i(position);
    onnx::AttributeProto* end = node.add_attribute();
    end->set_name("end");
    end->set_type(onnx::AttributeProto_AttributeType_INT);
    end->set_i(position + 1);
    ++changed;
  }
  return changed;
}

}  // namespace pt2onnx::clean
