// Shape operands built from the dims of other values: `Reshape(x, Concat(.., Unsqueeze(Gather(
// Shape(v), k)), ..))` where that piece is a dim that x has at the same position (the same
// static size, or the same symbolic expression of the export) needs no run-time shape math: a
// Reshape copies it with 0, an Expand keeps it with 1; one other dynamic piece of a Reshape is
// what the element count leaves, -1 (the program's shapes are consistent, so it is that dim). When every piece of the Concat is known
// that way, the operand becomes one Constant and the Shape/Gather/Unsqueeze/Concat go dead. A
// Gather of static dims from a Shape becomes a Constant directly.
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

// One dim of some value: a static size, or a symbolic expression.
struct DimValue {
  std::optional<int64_t> size;
  std::string symbol;
};

class Graph {
 public:
  explicit Graph(const Body& body) : known_(known_types(body)), fresh_(body) {
    const Nodes& nodes = *body.nodes;
    for (int i = 0; i < nodes.size(); ++i)
      for (const std::string& o : nodes.Get(i).output()) producer_[o] = &nodes.Get(i);
    for (const onnx::NodeProto& n : nodes)
      if (n.output_size() == 1)
        if (std::optional<ConstTensor> c = constant_node_value(n)) constants_.emplace(n.output(0), std::move(*c));
  }

  const KnownTypes& known() const { return known_; }
  const ConstTensor* constant(const std::string& v) const {
    auto found = constants_.find(v);
    return found == constants_.end() ? nullptr : &found->second;
  }
  const onnx::NodeProto* producer(const std::string& v) const {
    auto found = producer_.find(v);
    return found == producer_.end() ? nullptr : found->second;
  }
  std::string fresh(const std::string& base) {
    return fresh_(base);
  }

  // The dims `Gather(Shape(v), indices)` reads, when `shape` is a Shape of a value of known rank.
  std::optional<std::vector<DimValue>> gathered_dims(const std::string& shape, const ConstTensor& indices) const {
    const onnx::NodeProto* s = producer(shape);
    if (!s || s->op_type() != "Shape" || !s->domain().empty() || !indices.is_integer()) return std::nullopt;
    const std::optional<ValueType> t = known_.lookup(s->input(0));
    if (!t || !t->shape_known || t->symbols.size() != t->dims.size()) return std::nullopt;
    const auto rank = static_cast<int64_t>(t->dims.size());
    auto clamp = [rank](int64_t v) { return std::min(std::max(v < 0 ? v + rank : v, int64_t{0}), rank); };
    const int64_t start = clamp(int_attribute(*s, "start", 0));
    const int64_t end = clamp(int_attribute(*s, "end", rank));
    std::vector<DimValue> out;
    for (int64_t k : indices.ints) {
      if (k < -(end - start) || k >= end - start) return std::nullopt;
      const auto d = static_cast<size_t>(start + (k < 0 ? k + end - start : k));
      out.push_back({t->dims[d], t->symbols[d]});
    }
    return out;
  }

  // The one dim a Concat piece holds: Unsqueeze(Gather(Shape(v), k scalar), [0]), Gather(Shape(v),
  // [k]) or Shape(v, start=k, end=k+1).
  // A rank-0 integer computed from dims: Gather(Shape(v), scalar index), rank-0 constants, and
  // Add/Sub/Mul of those (e.g. batch * 56 * 56 of a view on the dynamic batch).
  bool scalar_of_dims(const std::string& v, int depth = 0) const {
    if (depth > 8) return false;
    if (const ConstTensor* c = constant(v)) return c->is_integer() && c->dims.empty();
    const onnx::NodeProto* n = producer(v);
    if (!n || !n->domain().empty()) return false;
    if (n->op_type() == "Gather" && n->input_size() == 2 && int_attribute(*n, "axis", 0) == 0) {
      const onnx::NodeProto* s = producer(n->input(0));
      const ConstTensor* index = constant(n->input(1));
      return s && s->op_type() == "Shape" && index && index->dims.empty();
    }
    if ((n->op_type() == "Mul" || n->op_type() == "Add" || n->op_type() == "Sub") && n->input_size() == 2)
      return scalar_of_dims(n->input(0), depth + 1) && scalar_of_dims(n->input(1), depth + 1);
    return false;
  }
  // A one-element piece of a shape vector: Unsqueeze(axes [0]) of a scalar_of_dims.
  bool one_element_piece(const std::string& piece) const {
    const onnx::NodeProto* n = producer(piece);
    if (!n || n->op_type() != "Unsqueeze" || !n->domain().empty() || n->input_size() != 2) return false;
    const ConstTensor* axes = constant(n->input(1));
    return axes && axes->ints == std::vector<int64_t>{0} && scalar_of_dims(n->input(0));
  }

  std::optional<DimValue> piece_dim(const std::string& piece) const {
    const onnx::NodeProto* n = producer(piece);
    if (!n || !n->domain().empty()) return std::nullopt;
    if (n->op_type() == "Unsqueeze" && n->input_size() == 2) {
      const ConstTensor* axes = constant(n->input(1));
      const onnx::NodeProto* g = producer(n->input(0));
      if (!axes || axes->ints != std::vector<int64_t>{0} || !g || g->op_type() != "Gather") return std::nullopt;
      return single(*g, /*scalar=*/true);
    }
    if (n->op_type() == "Gather") return single(*n, /*scalar=*/false);
    if (n->op_type() == "Shape") {
      ConstTensor zero;
      zero.elem_type = onnx::TensorProto_DataType_INT64;
      zero.ints = {0};
      const std::optional<std::vector<DimValue>> dims = gathered_dims(piece, zero);
      const std::optional<ValueType> t = known_.lookup(n->input(0));
      if (!dims || !t) return std::nullopt;
      const auto rank = static_cast<int64_t>(t->dims.size());
      const int64_t start = int_attribute(*n, "start", 0), end = int_attribute(*n, "end", rank);
      if ((end < 0 ? end + rank : std::min(end, rank)) - (start < 0 ? start + rank : start) != 1) return std::nullopt;
      return dims->front();
    }
    return std::nullopt;
  }

 private:
  std::optional<DimValue> single(const onnx::NodeProto& gather, bool scalar) const {
    if (!gather.domain().empty() || gather.input_size() != 2 || int_attribute(gather, "axis", 0) != 0)
      return std::nullopt;
    const ConstTensor* index = constant(gather.input(1));
    if (!index || index->ints.size() != 1 || index->dims.size() != (scalar ? 0u : 1u)) return std::nullopt;
    const std::optional<std::vector<DimValue>> dims = gathered_dims(gather.input(0), *index);
    if (!dims) return std::nullopt;
    return dims->front();
  }

  KnownTypes known_;
  std::map<std::string, const onnx::NodeProto*> producer_;
  std::map<std::string, ConstTensor> constants_;
  FreshNames fresh_;
};

bool same_dim(const DimValue& piece, const std::optional<int64_t>& size, const std::string& symbol) {
  if (piece.size && size) return *piece.size == *size;
  return !piece.symbol.empty() && piece.symbol == symbol;
}

// A Reshape whose result type the export gives (its static sizes, and which dynamic dims equal
// the data's at the same position) needs no shape operand computed at run time, whatever computes
// it: static dims as they are, a dim of the data's at its position 0, and at most one other dim -1.
// Not with a static 0 in the result: 0 in the operand copies the data's dim.
std::optional<ConstTensor> operand_from_result(const Graph& g, const onnx::NodeProto& node, const ValueType& data) {
  const std::optional<ValueType> result = g.known().lookup(node.output(0));
  if (!result || !result->shape_known || result->symbols.size() != result->dims.size()) return std::nullopt;
  ConstTensor out;
  out.elem_type = onnx::TensorProto_DataType_INT64;
  bool inferred = false;
  for (size_t p = 0; p < result->dims.size(); ++p) {
    if (result->dims[p]) {
      if (*result->dims[p] == 0) return std::nullopt;
      out.ints.push_back(*result->dims[p]);
    } else if (p < data.dims.size() && !data.dims[p] && !result->symbols[p].empty() &&
               data.symbols[p] == result->symbols[p]) {
      out.ints.push_back(0);
    } else {
      if (inferred) return std::nullopt;
      inferred = true;
      out.ints.push_back(-1);
    }
  }
  out.dims = {static_cast<int64_t>(out.ints.size())};
  return out;
}

// The constant a Reshape/Expand shape operand can be, or nullopt.
std::optional<ConstTensor> static_operand(const Graph& g, const onnx::NodeProto& node) {
  const bool reshape = node.op_type() == "Reshape";
  if (node.input_size() != 2 || !node.domain().empty()) return std::nullopt;
  if (reshape && int_attribute(node, "allowzero", 0) != 0) return std::nullopt;
  if (g.constant(node.input(1))) return std::nullopt;  // fold_constants' (or an earlier round's) already
  const std::optional<ValueType> data = g.known().lookup(node.input(0));
  if (!data || !data->shape_known || data->symbols.size() != data->dims.size()) return std::nullopt;
  if (reshape)
    if (std::optional<ConstTensor> from_result = operand_from_result(g, node, *data)) return from_result;
  const onnx::NodeProto* concat = g.producer(node.input(1));
  if (!concat || concat->op_type() != "Concat" || !concat->domain().empty() ||
      int_attribute(*concat, "axis", 0) != 0)
    return std::nullopt;

  // Lengths first: an Expand's operand aligns with the data from the right.
  struct Piece {
    const ConstTensor* constant = nullptr;
    std::optional<DimValue> dim;
    bool computed = false;  // a one-element piece of dims arithmetic, not one dim
  };
  std::vector<Piece> pieces;
  int64_t length = 0;
  bool any_dim = false;
  for (const std::string& in : concat->input()) {
    Piece p;
    p.constant = g.constant(in);
    if (p.constant) {
      if (!p.constant->is_integer() || p.constant->dims.size() != 1) return std::nullopt;
      length += static_cast<int64_t>(p.constant->ints.size());
    } else {
      p.dim = g.piece_dim(in);
      // Any other one-element piece of a Reshape's shape can only be what the element count
      // leaves (-1 below), when it is the only one.
      if (!p.dim && !(reshape && g.one_element_piece(in))) return std::nullopt;
      p.computed = !p.dim;
      any_dim = true;
      ++length;
    }
    pieces.push_back(std::move(p));
  }
  if (!any_dim) return std::nullopt;  // all constant: fold_constants' job

  ConstTensor out;
  out.elem_type = onnx::TensorProto_DataType_INT64;
  const auto rank = static_cast<int64_t>(data->dims.size());
  bool inferred = false;  // a -1 in the operand already
  for (const Piece& p : pieces)
    if (p.constant)
      for (int64_t v : p.constant->ints) inferred = inferred || v == -1;
  for (const Piece& p : pieces) {
    if (p.constant) {
      out.ints.insert(out.ints.end(), p.constant->ints.begin(), p.constant->ints.end());
      continue;
    }
    const auto position = static_cast<int64_t>(out.ints.size());
    if (reshape) {
      if (p.computed) {
        if (inferred) return std::nullopt;
        inferred = true;
        out.ints.push_back(-1);
        continue;
      }
      // A static piece is its value; a symbolic one must be the data's dim at the same position.
      if (p.dim->size) {
        out.ints.push_back(*p.dim->size);
        continue;
      }
      if (position < rank && same_dim(*p.dim, data->dims[static_cast<size_t>(position)],
                                      data->symbols[static_cast<size_t>(position)])) {
        out.ints.push_back(0);
        continue;
      }
      // One dim nothing else pins down is what the element count leaves: -1.
      if (inferred) return std::nullopt;
      inferred = true;
      out.ints.push_back(-1);
    } else {
      if (p.dim->size) {
        out.ints.push_back(*p.dim->size);
        continue;
      }
      const int64_t d = position - (length - rank);
      if (d < 0 || !same_dim(*p.dim, data->dims[static_cast<size_t>(d)], data->symbols[static_cast<size_t>(d)]))
        return std::nullopt;
      out.ints.push_back(1);  // broadcasting keeps the data's own (equal) dim
    }
  }
  out.dims = {static_cast<int64_t>(out.ints.size())};
  return out;
}

void make_constant(onnx::NodeProto& node, const ConstTensor& value) {
  node.clear_input();
  node.clear_attribute();
  node.set_op_type("Constant");
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  *a->mutable_t() = to_tensor_proto(value);
}

}  // namespace

int resolve_shape_operands(Body& body) {
  Graph g(body);
  Nodes& nodes = *body.nodes;
  std::vector<std::pair<int, onnx::NodeProto>> inserts;
  int changed = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& node = *nodes.Mutable(i);
    if (!node.domain().empty()) continue;
    if (node.op_type() == "Gather" && node.input_size() == 2 && node.output_size() == 1 &&
        int_attribute(node, "axis", 0) == 0) {
      const ConstTensor* indices = g.constant(node.input(1));
      if (!indices) continue;
      const std::optional<std::vector<DimValue>> dims = g.gathered_dims(node.input(0), *indices);
      if (!dims) continue;
      ConstTensor value;
      value.elem_type = onnx::TensorProto_DataType_INT64;
      value.dims = indices->dims;
      bool all_static = true;
      for (const DimValue& d : *dims) {
        all_static = all_static && d.size.has_value();
        if (d.size) value.ints.push_back(*d.size);
      }
      if (!all_static) continue;
      make_constant(node, value);
      ++changed;
      continue;
    }
    if (node.op_type() != "Reshape" && node.op_type() != "Expand") continue;
    std::optional<ConstTensor> operand = static_operand(g, node);
    if (!operand) continue;
    onnx::NodeProto constant;
    const std::string name = g.fresh(node.output(0) + "_shape");
    constant.set_name(name);
    constant.set_op_type("Constant");
    constant.add_output(name);
    onnx::AttributeProto* a = constant.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    *a->mutable_t() = to_tensor_proto(*operand);
    node.set_input(1, name);
    inserts.emplace_back(i, std::move(constant));
    ++changed;
  }
  insert_before(body, std::move(inserts));
  return changed;
}

}  // namespace pt2onnx::clean
