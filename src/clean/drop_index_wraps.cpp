// Negative-index wraps on indices that cannot be negative: index translations guard every index
// i with Where(Less(i, 0), Add(i, dim), i), as torch allows i < 0. When i is provably >= 0 (made
// from Range from 0, Shape, comparisons, and ops that keep signs: a sign analysis over the
// scope), the Where is i itself, and the Less/Add/Shape/Gather behind it go dead. Graph inputs
// are never assumed non-negative. Nothing becomes a constant.
#include <set>

#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

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

class Signs {
 public:
  explicit Signs(const Body& body) {
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

  bool non_negative(const std::string& value) const {
    if (non_negative_.count(value)) return true;
    auto c = constants_.find(value);
    return c != constants_.end() && all_at_least(c->second, 0);
  }
  const ConstTensor* constant(const std::string& value) const {
    auto c = constants_.find(value);
    return c == constants_.end() ? nullptr : &c->second;
  }

 private:
  bool input_non_negative(const onnx::NodeProto& node, int k) const {
    return k < node.input_size() && !node.input(k).empty() && non_negative(node.input(k));
  }
  bool all_inputs_non_negative(const onnx::NodeProto& node) const {
    for (int k = 0; k < node.input_size(); ++k)
      if (!node.input(k).empty() && !non_negative(node.input(k))) return false;
    return node.input_size() > 0;
  }
  bool is_zero(const std::string& value) const {
    const ConstTensor* c = constant(value);
    return c && all_at_least(*c, 0) && c->is_integer() && [&] {
      for (int64_t v : c->ints)
        if (v != 0) return false;
      return true;
    }();
  }

  bool non_negative_result(const onnx::NodeProto& node) const {
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

  std::map<std::string, ConstTensor> constants_;
  std::set<std::string> non_negative_;
};

// A value of rank 0: a scalar constant, or one dim of a Shape (Gather by a scalar index).
bool is_scalar(const std::string& value, const Signs& signs, const std::map<std::string, const onnx::NodeProto*>& made) {
  if (const ConstTensor* c = signs.constant(value)) return c->dims.empty();
  auto p = made.find(value);
  if (p == made.end()) return false;
  const onnx::NodeProto& g = *p->second;
  if (g.op_type() != "Gather" || !g.domain().empty() || g.input_size() != 2 || int_attribute(g, "axis", 0) != 0)
    return false;
  auto shape = made.find(g.input(0));
  const ConstTensor* index = signs.constant(g.input(1));
  return shape != made.end() && shape->second->op_type() == "Shape" && index && index->dims.empty();
}

}  // namespace

int drop_index_wraps(Body& body) {
  // Before --hiera the renames could make values cross instances; clean_functions runs it on
  // the function bodies instead.
  if (!body.hiera_types.empty()) return 0;
  const Signs signs(body);
  std::map<std::string, const onnx::NodeProto*> made;
  for (const onnx::NodeProto& node : *body.nodes)
    for (const std::string& o : node.output()) made[o] = &node;

  Nodes& nodes = *body.nodes;
  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  std::map<std::string, std::string> renames;
  int dropped = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& where = nodes.Get(i);
    if (where.op_type() != "Where" || !where.domain().empty() || where.input_size() != 3 ||
        body.outputs.count(where.output(0)))
      continue;
    const std::string& index = where.input(2);
    if (!signs.non_negative(index)) continue;
    // cond = Less(index, 0) with a scalar 0: false everywhere, and of index's shape.
    auto cond = made.find(where.input(0));
    if (cond == made.end()) continue;
    const onnx::NodeProto& less = *cond->second;
    if (less.op_type() != "Less" || !less.domain().empty() || less.input_size() != 2 || less.input(0) != index)
      continue;
    const ConstTensor* zero = signs.constant(less.input(1));
    if (!zero || !zero->dims.empty() || !all_at_least(*zero, 0) || (zero->is_integer() ? zero->ints[0] : 1) != 0)
      continue;
    // The wrapped value index + dim (dim a scalar) has index's shape too, so the Where does.
    auto wrapped = made.find(where.input(1));
    if (wrapped == made.end()) continue;
    const onnx::NodeProto& add = *wrapped->second;
    if (add.op_type() != "Add" || !add.domain().empty() || add.input_size() != 2) continue;
    const int at = add.input(0) == index ? 0 : add.input(1) == index ? 1 : -1;
    if (at < 0 || !is_scalar(add.input(1 - at), signs, made)) continue;
    renames[where.output(0)] = index;
    keep[static_cast<size_t>(i)] = false;
    ++dropped;
  }
  if (!dropped) return 0;
  for (onnx::NodeProto& node : nodes) apply_renames(node, renames);
  erase_nodes(body, keep);
  return dropped;
}

}  // namespace pt2onnx::clean
