// A Split that undoes a Concat: Split(Concat(a, b, c, axis), [len(a), len(b), len(c)], axis) gives
// a, b and c back (WavLM's attention concatenates the q, k and v biases into in_proj_bias and
// chunks it again). Each Split output is renamed to the Concat input it equals, and both nodes go
// dead where nothing else reads the Concat. The lengths must be static in the types.
#include <map>

#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

bool is_op(const onnx::NodeProto& node, const char* op) { return node.op_type() == op && node.domain().empty(); }

// The static length along `axis` of each of the concat's inputs (all of one rank), or nullopt.
std::optional<std::vector<int64_t>> input_lengths(const onnx::NodeProto& concat, int64_t axis, const KnownTypes& known) {
  std::vector<int64_t> lengths;
  for (const std::string& in : concat.input()) {
    const std::optional<ValueType> t = known.lookup(in);
    if (!t || !t->shape_known) return std::nullopt;
    const auto rank = static_cast<int64_t>(t->dims.size());
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank || !t->dims[static_cast<size_t>(a)]) return std::nullopt;
    lengths.push_back(*t->dims[static_cast<size_t>(a)]);
  }
  return lengths;
}

}  // namespace

int split_concats(Body& body) {
  // Renames could make values cross instances before --hiera; clean_functions runs it later.
  if (!body.hiera_types.empty()) return 0;
  std::map<std::string, const onnx::NodeProto*> made;
  std::map<std::string, ConstTensor> constants;
  for (const onnx::NodeProto& node : *body.nodes) {
    for (const std::string& o : node.output()) made[o] = &node;
    if (node.output_size() == 1)
      if (std::optional<ConstTensor> c = constant_node_value(node)) constants.emplace(node.output(0), std::move(*c));
  }
  std::optional<KnownTypes> known;
  std::map<std::string, std::string> renames;
  for (const onnx::NodeProto& split : *body.nodes) {
    if (!is_op(split, "Split") || split.input_size() != 2 || find_attribute(split, "num_outputs")) continue;
    auto producer = made.find(split.input(0));
    auto sizes = constants.find(split.input(1));
    if (producer == made.end() || sizes == constants.end() || !is_op(*producer->second, "Concat")) continue;
    const onnx::NodeProto& concat = *producer->second;
    const int64_t axis = int_attribute(split, "axis", 0);
    if (int_attribute(concat, "axis", 0) != axis || concat.input_size() != split.output_size()) continue;
    if (!known) known = known_types(body);
    const std::optional<std::vector<int64_t>> lengths = input_lengths(concat, axis, *known);
    if (!lengths || *lengths != sizes->second.ints) continue;
    bool outputs_free = true;  // a scope output keeps its name (and so its node)
    for (const std::string& o : split.output()) outputs_free = outputs_free && !body.outputs.count(o);
    if (!outputs_free) continue;
    for (int k = 0; k < split.output_size(); ++k)
      if (!split.output(k).empty()) renames[split.output(k)] = concat.input(k);
  }
  if (renames.empty()) return 0;
  for (onnx::NodeProto& node : *body.nodes) apply_renames(node, renames);
  return static_cast<int>(renames.size());
}

}  // namespace pt2onnx::clean
