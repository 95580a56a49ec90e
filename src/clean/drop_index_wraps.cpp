// Negative-index wraps on indices that cannot be negative: index translations guard every index
// i with Where(Less(i, 0), Add(i, dim), i), as torch allows i < 0. When i is provably >= 0 (made
// from Range from 0, Shape, comparisons, and ops that keep signs: a sign analysis over the
// scope), the Where is i itself, and the Less/Add/Shape/Gather behind it go dead. Graph inputs
// are never assumed non-negative. Nothing becomes a constant.
#include <map>

#include "clean/const_tensor.h"
#include "clean/passes_internal.h"
#include "clean/signs.h"

namespace pt2onnx::clean {

namespace {

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
