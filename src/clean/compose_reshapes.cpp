// Reshape(Reshape(x, s1), s2) is Reshape(x, s) for any s that gives the same dims: core ATen IR
// writes a linear's output view and the heads split as two views in a row ([batch * seq, 64] ->
// [batch, seq, 64] -> [batch, seq, 4, 16]). Where the types of x and of the result are known, s
// is written from them: a static dim is its size, a symbolic one the same as x's at the same
// position is 0 (copied at run time), and one other symbolic dim is the -1 that the element count
// leaves. Nothing dynamic becomes a constant; the inner Reshape goes when nothing else reads it.
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

bool plain_reshape(const onnx::NodeProto& node) {
  return node.op_type() == "Reshape" && node.domain().empty() && node.input_size() == 2 && node.output_size() == 1 &&
         int_attribute(node, "allowzero", 0) == 0;
}

// The shape operand that takes x to `out`, or nullopt.
std::optional<ConstTensor> typed_operand(const ValueType& x, const ValueType& out) {
  if (!x.shape_known || !out.shape_known || x.symbols.size() != x.dims.size() ||
      out.symbols.size() != out.dims.size())
    return std::nullopt;
  ConstTensor s;
  s.elem_type = onnx::TensorProto_DataType_INT64;
  bool inferred = false;
  for (size_t j = 0; j < out.dims.size(); ++j) {
    if (out.dims[j]) {
      if (*out.dims[j] == 0) return std::nullopt;  // 0 would copy x's dim instead
      s.ints.push_back(*out.dims[j]);
    } else if (j < x.dims.size() && same_dims(x, j, out, j, 1)) {
      s.ints.push_back(0);
    } else {
      if (inferred) return std::nullopt;
      inferred = true;
      s.ints.push_back(-1);
    }
  }
  s.dims = {static_cast<int64_t>(s.ints.size())};
  return s;
}

}  // namespace

int compose_reshapes(Body& body) {
  Nodes& nodes = *body.nodes;
  const KnownTypes known = known_types(body);
  const ValueUses uses = value_uses(body);
  FreshNames fresh(body);

  std::vector<std::pair<int, onnx::NodeProto>> inserts;
  int composed = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& outer = *nodes.Mutable(i);
    if (!plain_reshape(outer)) continue;
    auto made = uses.producer.find(outer.input(0));
    if (made == uses.producer.end()) continue;
    const onnx::NodeProto& inner = nodes.Get(made->second);
    if (!plain_reshape(inner) || instance_key(body, made->second) != instance_key(body, i)) continue;
    const std::optional<ValueType> x = known.lookup(inner.input(0)), out = known.lookup(outer.output(0));
    if (!x || !out) continue;
    const std::optional<ConstTensor> shape = typed_operand(*x, *out);
    if (!shape) continue;
    const std::string name = fresh(outer.output(0) + "_shape");
    onnx::NodeProto constant;
    constant.set_name(name);
    constant.set_op_type("Constant");
    constant.add_output(name);
    onnx::AttributeProto* a = constant.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    *a->mutable_t() = to_tensor_proto(*shape);
    outer.set_input(0, inner.input(0));
    outer.set_input(1, name);
    inserts.emplace_back(i, std::move(constant));
    ++composed;
  }
  insert_before(body, std::move(inserts));
  return composed;
}

}  // namespace pt2onnx::clean
