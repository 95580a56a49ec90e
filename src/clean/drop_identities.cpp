// Nodes that pass an input through unchanged: Identity, a Cast to the type the input already
// has, a Reshape to the static shape the input already has (or a Reshape/Expand whose result
// the types show to have the input's dims, symbolic ones included), and arithmetic with the neutral
// element (x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1) where the constant cannot broadcast x to a
// larger shape. Their readers read that input instead; when the output is a scope output, the
// input's producer is renamed to it instead.
#include <string_view>
#include <unordered_set>

#include "common/view_map.h"
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

// Whether `c` is `neutral` everywhere and cannot broadcast a value of type `other` to a larger
// shape (a scalar never does; all-1 dims do not when `other` has at least that rank).
// `other` gives that type, asked only when it matters (the types are costly to gather).
template <typename OtherType>
bool is_neutral(const ConstTensor& c, double neutral, OtherType&& other_type) {
  if (c.numel() != 1) return false;
  const bool value = c.is_integer() ? c.ints.size() == 1 && c.ints[0] == static_cast<int64_t>(neutral)
                                    : c.floats.size() == 1 && c.floats[0] == neutral;
  if (!value) return false;
  if (c.dims.empty()) return true;
  const std::optional<ValueType> other = other_type();
  return other && other->shape_known && other->dims.size() >= c.dims.size();
}

// The scope's types, gathered on the first question (most graphs ask none).
class LazyTypes {
 public:
  explicit LazyTypes(const Body& body) : body_(body) {}
  std::optional<ValueType> lookup(const std::string& name) {
    if (!known_) known_ = known_types(body_);
    return known_->lookup(name);
  }

 private:
  const Body& body_;
  std::optional<KnownTypes> known_;
};

// The input a node passes through unchanged, or -1.
int identity_input(const onnx::NodeProto& node, LazyTypes& known,
                   const ViewMap<ConstTensor>& constants) {
  if (!node.domain().empty() || node.output_size() != 1 || node.input_size() < 1 || node.input(0).empty())
    return -1;
  const std::string& op = node.op_type();
  if (op == "Identity") return 0;
  if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && node.input_size() == 2 && !node.input(1).empty()) {
    const double neutral = op == "Add" || op == "Sub" ? 0.0 : 1.0;
    const bool commutes = op == "Add" || op == "Mul";
    for (int k = 1; k >= (commutes ? 0 : 1); --k) {  // k: the constant operand
      const ConstTensor* c = constants.find(node.input(k));
      if (c && is_neutral(*c, neutral, [&] { return known.lookup(node.input(1 - k)); }))
        return 1 - k;
    }
    return -1;
  }
  if (op != "Cast" && op != "Reshape" && op != "Expand") return -1;
  const std::optional<ValueType> in = known.lookup(node.input(0));
  if (!in) return -1;
  if (op == "Cast") return in->elem_type != 0 && in->elem_type == int_attribute(node, "to", -1) ? 0 : -1;
  // A Reshape or Expand whose result has the input's dims (static, or the same symbols of the
  // export) changes nothing.
  if ((op == "Reshape" || op == "Expand") && node.input_size() == 2)
    if (const std::optional<ValueType> out = known.lookup(node.output(0)); out && same_shape(*in, *out)) return 0;
  if (op == "Reshape" && node.input_size() == 2 && in->static_shape()) {
    const ConstTensor* shape = constants.find(node.input(1));
    if (!shape) return -1;
    std::vector<int64_t> dims;
    for (const auto& d : in->dims) dims.push_back(*d);
    const std::optional<std::vector<int64_t>> target =
        reshape_target(dims, *shape, int_attribute(node, "allowzero", 0) != 0);
    return target && *target == dims ? 0 : -1;
  }
  return -1;
}

}  // namespace

int drop_identities(Body& body) {
  LazyTypes known(body);
  Nodes& nodes = *body.nodes;
  ViewMap<ConstTensor> constants;  // views the Constant nodes' outputs, unchanged until the renames
  for (const onnx::NodeProto& node : nodes)
    if (node.output_size() == 1)
      if (std::optional<ConstTensor> c = constant_node_value(node)) constants.insert(node.output(0), std::move(*c));
  // Which values some node makes (names stable until the renames); only an identity whose output
  // is a scope output asks, so it is gathered then.
  std::optional<std::unordered_set<std::string_view>> produced;
  auto is_produced = [&](const std::string& name) {
    if (!produced) {
      produced.emplace();
      for (const onnx::NodeProto& node : nodes) produced->insert(node.output().begin(), node.output().end());
    }
    return produced->count(name) > 0;
  };

  std::map<std::string, std::string> renames;  // reads of key -> reads of value
  std::map<std::string, std::string> redefine;  // producer output -> new name (a scope output)
  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  int dropped = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    const int through = identity_input(node, known, constants);
    if (through < 0) continue;
    const std::string& in = node.input(through);
    const std::string& out = node.output(0);
    if (!body.outputs.count(out)) {
      renames[out] = in;
    } else {
      // out must keep its name: give it to the producer of `in`, if `in` is only a local value.
      if (!is_produced(in) || body.outputs.count(in) || body.inputs.count(in) || redefine.count(in) ||
          renames.count(in))
        continue;
      redefine[in] = out;
      renames[in] = out;
    }
    keep[static_cast<size_t>(i)] = false;
    ++dropped;
  }
  if (!dropped) return 0;
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& node = *nodes.Mutable(i);
    apply_renames(node, renames);
    for (std::string& o : *node.mutable_output()) {
      auto found = redefine.find(o);
      if (found != redefine.end()) o = found->second;
    }
  }
  erase_nodes(body, keep);
  return dropped;
}

}  // namespace pt2onnx::clean
