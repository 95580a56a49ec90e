// Unsqueeze(Unsqueeze(x, a), b) is one Unsqueeze of x: the atleast_3d of a vector ([n] -> [1, n, 1])
// and core IR's x[:, None, None] write two. The inner axes, counted in the middle rank, land on the
// final positions that b leaves free, in order; the axes are the union. Both axes operands must be
// constants of non-negative axes (as translation writes them), or of negative ones where x's rank
// is known. Only an inner Unsqueeze that nothing else reads is folded in (it then goes).
#include <algorithm>
#include <set>

#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

bool plain_unsqueeze(const onnx::NodeProto& node) {
  return node.op_type() == "Unsqueeze" && node.domain().empty() && node.input_size() == 2 && node.output_size() == 1;
}

// The ints of a constant 0-D or 1-D integer operand, or nullopt.
std::optional<std::vector<int64_t>> constant_ints(const Nodes& nodes, const ValueUses& uses, const std::string& value) {
  const auto made = uses.producer.find(value);
  if (made == uses.producer.end()) return std::nullopt;
  const std::optional<ConstTensor> axes = constant_node_value(nodes.Get(made->second));
  if (!axes || !axes->is_integer() || axes->dims.size() > 1) return std::nullopt;
  return axes->ints;
}

// Axes sorted, negative ones normalized to `rank` (the rank after the Unsqueeze; -1: unknown);
// nullopt when one repeats, is out of range, or is negative with no rank.
std::optional<std::vector<int64_t>> normalized(std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& a : axes) {
    if (a < 0 && rank < 0) return std::nullopt;
    if (a < 0) a += rank;
    if (a < 0 || (rank >= 0 && a >= rank)) return std::nullopt;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return std::nullopt;
  return axes;
}

}  // namespace

int compose_unsqueezes(Body& body) {
  Nodes& nodes = *body.nodes;
  const KnownTypes known = known_types(body);
  const ValueUses uses = value_uses(body);
  FreshNames fresh(body);

  std::vector<std::pair<int, onnx::NodeProto>> inserts;
  int composed = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& outer = *nodes.Mutable(i);
    if (!plain_unsqueeze(outer)) continue;
    auto made = uses.producer.find(outer.input(0));
    if (made == uses.producer.end()) continue;
    const onnx::NodeProto& inner = nodes.Get(made->second);
    if (!plain_unsqueeze(inner) || instance_key(body, made->second) != instance_key(body, i)) continue;
    const auto reads = uses.reads.find(outer.input(0));
    if (reads == uses.reads.end() || reads->second != 1) continue;  // the inner one stays for another reader
    const std::optional<ValueType> x = known.lookup(inner.input(0));
    const int64_t rank = x && x->shape_known ? static_cast<int64_t>(x->dims.size()) : -1;
    const auto inner_axes = constant_ints(nodes, uses, inner.input(1));
    const auto outer_axes = constant_ints(nodes, uses, outer.input(1));
    if (!inner_axes || !outer_axes) continue;
    const int64_t middle = rank < 0 ? -1 : rank + static_cast<int64_t>(inner_axes->size());
    const auto a = normalized(*inner_axes, middle);
    if (!a) continue;
    const auto b = normalized(*outer_axes, middle < 0 ? -1 : middle + static_cast<int64_t>(outer_axes->size()));
    if (!b) continue;
    // The final positions b leaves free hold the middle tensor's dims in order; without the
    // ranks, those up to the largest inner axis are enough.
    const int64_t needed = a->empty() ? 0 : a->back() + 1;
    std::vector<int64_t> free_positions;
    std::set<int64_t> axes(b->begin(), b->end());
    for (int64_t p = 0; static_cast<int64_t>(free_positions.size()) < needed; ++p)
      if (!axes.contains(p)) free_positions.push_back(p);
    for (int64_t p : *a) axes.insert(free_positions[static_cast<size_t>(p)]);
    ConstTensor value;
    value.elem_type = onnx::TensorProto_DataType_INT64;
    value.ints.assign(axes.begin(), axes.end());
    value.dims = {static_cast<int64_t>(value.ints.size())};
    const std::string name = fresh(outer.output(0) + "_axes");
    onnx::NodeProto constant;
    constant.set_name(name);
    constant.set_op_type("Constant");
    constant.add_output(name);
    onnx::AttributeProto* attr = constant.add_attribute();
    attr->set_name("value");
    attr->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    *attr->mutable_t() = to_tensor_proto(value);
    outer.set_input(0, inner.input(0));
    outer.set_input(1, name);
    inserts.emplace_back(i, std::move(constant));
    ++composed;
  }
  insert_before(body, std::move(inserts));
  return composed;
}

}  // namespace pt2onnx::clean
