// One dim of a shape as a 1-D value: the translator reads a dim as Gather(Shape(x), k) (a scalar,
// for dims arithmetic) and, where a shape vector needs it, unsqueezes that to [1]. Shape (opset 15)
// slices itself: Unsqueeze(Gather(Shape(x), k), [0]) is Shape(x, start=k', end=k'+1), one node,
// and the Gather (and the full Shape) go dead where nothing else reads them. The length of
// Range(0, n, 1) of a non-negative n (an arange over a dim, meshgrid's operand) is n itself.
#include <map>
#include <optional>

#include "clean/const_tensor.h"
#include "clean/passes_internal.h"
#include "clean/signs.h"

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

bool is_scalar_int(const ConstTensor* c, int64_t v) {
  return c && c->is_integer() && c->dims.empty() && c->ints.size() == 1 && c->ints[0] == v;
}

}  // namespace

int shapes_of_ranges(Body& body) {
  if (!body.hiera_types.empty()) return 0;  // as slice_shape_dims
  std::map<std::string, const onnx::NodeProto*> made;
  for (const onnx::NodeProto& node : *body.nodes)
    for (const std::string& o : node.output()) made[o] = &node;
  std::optional<Signs> signs;  // built on the first candidate
  std::optional<FreshNames> fresh;
  std::vector<std::pair<int, onnx::NodeProto>> inserts;
  Nodes& nodes = *body.nodes;
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto& node = *nodes.Mutable(i);
    if (!is_op(node, "Shape") || node.input_size() != 1 || int_attribute(node, "start", 0) != 0 ||
        (find_attribute(node, "end") && int_attribute(node, "end", 0) < 1))
      continue;
    auto range = made.find(node.input(0));
    if (range == made.end() || !is_op(*range->second, "Range") || range->second->input_size() != 3) continue;
    const onnx::NodeProto& r = *range->second;
    if (!signs) signs.emplace(body);
    if (!is_scalar_int(signs->constant(r.input(0)), 0) || !is_scalar_int(signs->constant(r.input(2)), 1) ||
        !signs->non_negative(r.input(1)))
      continue;
    if (!fresh) fresh.emplace(body);
    onnx::NodeProto axes;
    const std::string axes_name = (*fresh)(node.output(0) + "_axes");
    axes.set_op_type("Constant");
    axes.add_output(axes_name);
    ConstTensor zero;
    zero.elem_type = onnx::TensorProto_DataType_INT64;
    zero.dims = {1};
    zero.ints = {0};
    onnx::AttributeProto* value = axes.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    *value->mutable_t() = to_tensor_proto(zero);
    const std::string limit = r.input(1);
    node.set_op_type("Unsqueeze");
    node.clear_attribute();
    node.clear_input();
    node.add_input(limit);
    node.add_input(axes_name);
    inserts.emplace_back(i, std::move(axes));
  }
  const int changed = static_cast<int>(inserts.size());
  insert_before(body, std::move(inserts));
  return changed;
}

namespace {

void set_int(onnx::NodeProto& node, const char* name, int64_t v) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(v);
}

// Turns `node` into Shape(x, start, end).
void make_shape_slice(onnx::NodeProto& node, const std::string& x, int64_t start, int64_t end) {
  node.set_op_type("Shape");
  node.clear_input();
  node.add_input(x);
  node.clear_attribute();
  set_int(node, "start", start);
  set_int(node, "end", end);
}

// The scope's producers, constants and the Shape slices it already has, by (x, start).
class ShapeIndex {
 public:
  explicit ShapeIndex(const Body& body) {
    for (const onnx::NodeProto& node : *body.nodes) {
      for (const std::string& o : node.output()) made_[o] = &node;
      if (node.output_size() == 1)
        if (std::optional<ConstTensor> c = constant_node_value(node)) constants_.emplace(node.output(0), std::move(*c));
      if (is_op(node, "Shape") && node.input_size() == 1 && node.output_size() == 1 && find_attribute(node, "end")) {
        const int64_t start = int_attribute(node, "start", 0), end = int_attribute(node, "end", 0);
        if (start >= 0 && end == start + 1) slices_.emplace(std::make_pair(node.input(0), start), node.output(0));
      }
    }
  }
  const onnx::NodeProto* producer(const std::string& value, const char* op) const {
    auto p = made_.find(value);
    return p != made_.end() && is_op(*p->second, op) ? p->second : nullptr;
  }
  const ConstTensor* constant(const std::string& value) const {
    auto c = constants_.find(value);
    return c == constants_.end() ? nullptr : &c->second;
  }
  // The Shape(x) a dim Gather reads and the position it reads, or nullopt.
  std::optional<std::pair<std::string, int64_t>> gathered_dim(const onnx::NodeProto& gather) const {
    if (!is_op(gather, "Gather") || gather.input_size() != 2 || int_attribute(gather, "axis", 0) != 0)
      return std::nullopt;
    const onnx::NodeProto* shape = producer(gather.input(0), "Shape");
    const ConstTensor* index = constant(gather.input(1));
    if (!shape || !index || shape->input_size() != 1) return std::nullopt;
    const int64_t position = shape_position(*shape, *index);
    if (position < 0) return std::nullopt;
    return std::make_pair(shape->input(0), position);
  }
  const std::string* slice_of(const std::string& x, int64_t position) const {
    auto found = slices_.find({x, position});
    return found == slices_.end() ? nullptr : &found->second;
  }

 private:
  std::map<std::string, const onnx::NodeProto*> made_;
  std::map<std::string, ConstTensor> constants_;
  std::map<std::pair<std::string, int64_t>, std::string> slices_;
};

// Slice(Shape(x), [s], [e]) (axis 0, step 1, 0 <= s): Shape(x, s, e), which clamps e as Slice does.
bool slice_of_shape(const ShapeIndex& index, onnx::NodeProto& node) {
  if (!is_op(node, "Slice") || node.input_size() < 3 || node.input_size() > 5) return false;
  const onnx::NodeProto* shape = index.producer(node.input(0), "Shape");
  if (!shape || shape->input_size() != 1 || shape->attribute_size() != 0) return false;
  const ConstTensor* starts = index.constant(node.input(1));
  const ConstTensor* ends = index.constant(node.input(2));
  auto one_value = [](const ConstTensor* c) { return c && c->is_integer() && c->ints.size() == 1; };
  if (!one_value(starts) || !one_value(ends) || starts->ints[0] < 0 || ends->ints[0] < starts->ints[0]) return false;
  for (int k = 3; k < node.input_size(); ++k) {
    if (node.input(k).empty()) continue;
    const ConstTensor* c = index.constant(node.input(k));
    if (!one_value(c) || c->ints[0] != (k == 3 ? 0 : 1)) return false;
  }
  make_shape_slice(node, shape->input(0), starts->ints[0], ends->ints[0]);
  return true;
}

}  // namespace

int slice_shape_dims(Body& body) {
  // Before --hiera the new Shape could read a value of another instance; clean_functions runs it
  // on the function bodies instead.
  if (!body.hiera_types.empty()) return 0;
  const ShapeIndex index(body);
  FreshNames fresh(body);
  std::vector<std::pair<int, onnx::NodeProto>> inserts;
  int changed = 0;
  for (int i = 0; i < body.nodes->size(); ++i) {
    onnx::NodeProto& node = *body.nodes->Mutable(i);
    if (node.output_size() != 1) continue;
    if (slice_of_shape(index, node)) {
      ++changed;
      continue;
    }
    if (is_op(node, "Gather")) {
      // A scalar dim whose one-element slice the scope has (maybe later on): Squeeze of that
      // slice made here (merge_duplicates then merges the later one into it), so the full Shape
      // can go.
      const auto dim = index.gathered_dim(node);
      if (!dim || !index.slice_of(dim->first, dim->second) || !index.constant(node.input(1))->dims.empty()) continue;
      onnx::NodeProto slice;
      slice.add_output(fresh(node.output(0) + "_slice"));
      make_shape_slice(slice, dim->first, dim->second, dim->second + 1);
      node.set_op_type("Squeeze");
      node.clear_attribute();
      node.clear_input();
      node.add_input(slice.output(0));
      inserts.emplace_back(i, std::move(slice));
      ++changed;
      continue;
    }
    if (!is_op(node, "Unsqueeze") || node.input_size() != 2) continue;
    const ConstTensor* axes = index.constant(node.input(1));
    const onnx::NodeProto* gather = index.producer(node.input(0), "Gather");
    if (!axes || axes->ints != std::vector<int64_t>{0} || !gather) continue;
    const auto dim = index.gathered_dim(*gather);
    if (!dim) continue;
    make_shape_slice(node, dim->first, dim->second, dim->second + 1);
    ++changed;
  }
  insert_before(body, std::move(inserts));
  return changed;
}

}  // namespace pt2onnx::clean
