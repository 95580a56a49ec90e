// The sign analysis of signs.h.
#include "clean/signs.h"

#include "clean/passes_internal.h"

namespace pt2onnx::clean {

bool all_at_least(const ConstTensor& c, int64_t least) {
  if (c.is_integer()) {
    for (int64_t v : c.ints)
      if (v < least) return false;
    return true;
  }
  for (double v : c.floats)
    if (!(v >= static_cast<double>(least))) return false;
  return true;
}

Signs::Signs(const Body& body) {
  if (body.graph) {
    std::set<std::string> graph_inputs;  // an initializer that is also an input can be overridden
    for (const auto& v : body.graph->input()) graph_inputs.insert(v.name());
    for (const auto& t : body.graph->initializer())
      if (!graph_inputs.count(t.name()))
        if (std::optional<ConstTensor> c = read_const(t)) constants_.emplace(t.name(), std::move(*c));
  }
  for (const onnx::NodeProto& node : *body.nodes) {
    if (node.output_size() == 1)
      if (std::optional<ConstTensor> c = constant_node_value(node)) constants_.emplace(node.output(0), std::move(*c));
    if (node.domain().empty() && non_negative_result(node))
      for (const std::string& o : node.output()) non_negative_.insert(o);
  }
}

bool Signs::non_negative(const std::string& value) const {
  if (non_negative_.count(value)) return true;
  auto c = constants_.find(value);
  return c != constants_.end() && all_at_least(c->second, 0);
}
const ConstTensor* Signs::constant(const std::string& value) const {
  auto c = constants_.find(value);
  return c == constants_.end() ? nullptr : &c->second;
}

bool Signs::input_non_negative(const onnx::NodeProto& node, int k) const {
  return k < node.input_size() && !node.input(k).empty() && non_negative(node.input(k));
}
bool Signs::all_inputs_non_negative(const onnx::NodeProto& node) const {
  for (int k = 0; k < node.input_size(); ++k)
    if (!node.input(k).empty() && !non_negative(node.input(k))) return false;
  return node.input_size() > 0;
}
bool Signs::is_zero(const std::string& value) const {
  const ConstTensor* c = constant(value);
  return c && all_at_least(*c, 0) && c->is_integer() && [&] {
    for (int64_t v : c->ints)
      if (v != 0) return false;
    return true;
  }();
}

bool Signs::non_negative_result(const onnx::NodeProto& node) const {
  static const std::set<std::string> kAlways = {"Shape", "Size", "Abs", "Relu", "Equal", "Less", "Greater",
                                                "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor",
                                                "IsNaN", "IsInf", "NonZero"};
  // The values of the data input (input 0) only move or repeat.
  static const std::set<std::string> kMovesData = {"Unsqueeze", "Squeeze", "Reshape", "Expand", "Flatten",
                                                   "Transpose", "Identity", "Slice", "Gather", "GatherElements",
                                                   "GatherND", "Tile"};
  static const std::set<std::string> kOfNonNegatives = {"Concat", "Add", "Mul", "Min", "CumSum", "Where",
                                                        "ReduceSum", "ReduceMax", "ReduceMin"};
  const std::string& op = node.op_type();
  if (kAlways.count(op)) return true;
  if (kMovesData.count(op)) return input_non_negative(node, 0);
  if (op == "Max") {  // at least any one input
    for (int k = 0; k < node.input_size(); ++k)
      if (input_non_negative(node, k)) return true;
    return false;
  }
  if (op == "Mul" && node.input_size() == 2 && (is_zero(node.input(0)) || is_zero(node.input(1)))) return true;
  if (op == "Where") return input_non_negative(node, 1) && input_non_negative(node, 2);
  if (op == "CumSum" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin") return input_non_negative(node, 0);
  if (kOfNonNegatives.count(op)) return all_inputs_non_negative(node);
  if (op == "Range" && node.input_size() == 3) {  // start >= 0, step > 0: every element >= start
    const ConstTensor* start = constant(node.input(0));
    const ConstTensor* delta = constant(node.input(2));
    return start && delta && all_at_least(*start, 0) && all_at_least(*delta, 1);
  }
  if (op == "Cast") {  // widening to int64 or a float type keeps the sign; bools are 0/1
    const int64_t to = int_attribute(node, "to", 0);
    return input_non_negative(node, 0) &&
           (to == onnx::TensorProto_DataType_INT64 || to == onnx::TensorProto_DataType_FLOAT ||
            to == onnx::TensorProto_DataType_DOUBLE);
  }
  return false;
}

}  // namespace pt2onnx::clean
