// Tables indexed by static index buffers: torchvision's MaxViT and Swin build their relative
// position bias as Gather(table, Reshape(index, [-1])) -> Reshape -> Transpose -> Unsqueeze of two
// weights, the same every run, where torch.onnx folds it to one constant. A node that
// fold_constants would fold if its weight inputs were constants becomes a Constant of the result
// when it reads an int64 archive weight (an index buffer) or a value this pass folded from one,
// and each weight it reads is an archive weight of at most kMaxFoldElements float32 or int64
// elements read by that node only: the weights go dead and no value is held twice. Later nodes
// of the chain fold in the same sweep (fold_constants folds the rest). Float weights read without
// an index buffer (a static slice of a rotary table, say) stay weights, as the --hiera functions
// keep them. Only with folding on (`--no-fold` keeps weights as in the archive), and not before
// --hiera, where the instances of a module type must keep reading their weights to share one
// function. Transposes of weights stay fold_weight_transposes'.
#include <algorithm>
#include <map>
#include <set>

#include "clean/clean.h"
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

// An archive weight's values as a ConstTensor (its dims and type from the declaration).
std::optional<ConstTensor> read_weight(const onnx::TensorProto& declared, WeightAccess& weights) {
  ConstTensor t;
  t.elem_type = declared.data_type();
  int64_t n = 1;
  for (int64_t d : declared.dims()) {
    if (d < 0 || d > kMaxFoldElements) return std::nullopt;
    t.dims.push_back(d);
    n *= d;
  }
  if (n > kMaxFoldElements || declared.has_raw_data() || declared.float_data_size() || declared.int64_data_size())
    return std::nullopt;  // data in the graph: fold_constants reads it itself
  if (t.elem_type == onnx::TensorProto_DataType_FLOAT) {
    std::optional<std::vector<float>> v = weights.read_floats(declared.name());
    if (!v || static_cast<int64_t>(v->size()) != n) return std::nullopt;
    t.floats.assign(v->begin(), v->end());
    return t;
  }
  if (t.elem_type == onnx::TensorProto_DataType_INT64) {
    std::optional<std::vector<int64_t>> v = weights.read_archived_int64s(declared.name());
    if (!v || static_cast<int64_t>(v->size()) != n) return std::nullopt;
    t.ints = std::move(*v);
    return t;
  }
  return std::nullopt;
}

}  // namespace

int fold_small_weights(Body& body, WeightAccess& weights) {
  if (!body.graph || !body.hiera_types.empty()) return 0;
  // Every fold starts at an index buffer: without one, no index is built (a large graph's uses
  // map is most of this pass's cost).
  const auto& initializers = body.graph->initializer();
  if (std::none_of(initializers.begin(), initializers.end(), [&](const onnx::TensorProto& t) {
        return t.data_type() == onnx::TensorProto_DataType_INT64 && weights.archived(t.name());
      }))
    return 0;
  std::map<std::string, const onnx::TensorProto*> candidates;  // archive weights no input overrides
  for (const onnx::TensorProto& t : body.graph->initializer())
    if (weights.archived(t.name())) candidates.emplace(t.name(), &t);
  for (const auto& v : body.graph->input()) candidates.erase(v.name());
  if (candidates.empty()) return 0;
  const ValueUses uses = value_uses(body);
  std::map<std::string, ConstTensor> values;  // Constant nodes, weights read, nodes folded here
  std::set<std::string> from_index;            // the nodes folded here
  int folded = 0;
  std::vector<const ConstTensor*> in;
  for (onnx::NodeProto& node : *body.nodes) {
    if (std::optional<ConstTensor> c = constant_node_value(node)) {
      if (node.output_size() == 1) values.insert_or_assign(node.output(0), std::move(*c));
      continue;
    }
    if (node.op_type() == "Transpose" || node.op_type() == "Shape" || node.op_type() == "Size") continue;
    bool reads_weight = false, indexed = false, all_known = node.input_size() > 0;
    for (const std::string& name : node.input()) {
      if (values.count(name)) {
        indexed = indexed || from_index.count(name);
        continue;
      }
      auto weight = candidates.find(name);
      auto reads = uses.reads.find(name);
      if (weight == candidates.end() || reads == uses.reads.end() || reads->second != 1) {
        all_known = false;
        break;
      }
      reads_weight = true;
      indexed = indexed || weight->second->data_type() == onnx::TensorProto_DataType_INT64;
    }
    if (!all_known || !reads_weight || !indexed) continue;
    in.clear();
    std::map<std::string, ConstTensor> read;  // this node's weights, kept only if it folds
    for (const std::string& name : node.input()) {
      if (auto v = values.find(name); v != values.end()) {
        in.push_back(&v->second);
        continue;
      }
      std::optional<ConstTensor> w = read_weight(*candidates.at(name), weights);
      if (!w) break;
      in.push_back(&read.emplace(name, std::move(*w)).first->second);
    }
    if (static_cast<int>(in.size()) != node.input_size()) continue;
    std::optional<ConstTensor> value = fold_node_value(node, in);
    if (!value) continue;
    replace_with_constant(node, *value);
    values.insert_or_assign(node.output(0), std::move(*value));
    from_index.insert(node.output(0));
    ++folded;
  }
  return folded;
}

}  // namespace pt2onnx::clean
