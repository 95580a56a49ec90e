// An Add or Sub of an archive weight and a scalar float constant becomes a new initializer that
// holds the weight shifted: Gemma's RMSNorm scales by (1 + weight), which the export writes as
// add(weight, 1) in every norm. The new initializer is derived from the archive weight while emit
// writes it (model::DerivedWeight::Scaled with an offset), so it is never held in memory here;
// w + c in double rounded once to float32 is the float32 sum torch computes (and c - w the
// difference). Only when every reader of the weight is such a node with the same constant: then
// the original goes dead and the file holds the weight once. Shifts by 0 are drop_identities'
// (0 - w would turn a +0 weight into -0 here). Not inside a --hiera instance, whose function
// takes the module's weight as torch holds it.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "clean/clean.h"
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"
#include "common/view_map.h"

namespace pt2onnx::clean {

namespace {

// weight * factor + offset, as one reader computes it.
struct Shift {
  double factor = 1;
  double offset = 0;
  bool operator==(const Shift& o) const { return factor == o.factor && offset == o.offset; }
};


// The scalar float32 constant that `name` holds (a Constant node's output) when it broadcasts to
// no more than `rank` dims, or nullopt.
std::optional<double> scalar_constant(const std::map<std::string, ConstTensor>& constants, const std::string& name,
                                      int rank) {
  auto found = constants.find(name);
  if (found == constants.end()) return std::nullopt;
  const ConstTensor& c = found->second;
  if (c.elem_type != onnx::TensorProto_DataType_FLOAT || c.numel() != 1 || c.floats.size() != 1 ||
      static_cast<int>(c.dims.size()) > rank)
    return std::nullopt;
  return c.floats[0];
}

// The shift node `node` applies to `weight` (one of its inputs), or nullopt.
std::optional<Shift> shift_of(const onnx::NodeProto& node, const std::string& weight, int rank,
                              const std::map<std::string, ConstTensor>& constants) {
  const bool add = node.op_type() == "Add", sub = node.op_type() == "Sub";
  if ((!add && !sub) || !node.domain().empty() || node.input_size() != 2 || node.input(0) == node.input(1))
    return std::nullopt;
  const bool weight_first = node.input(0) == weight;
  std::optional<double> c = scalar_constant(constants, node.input(weight_first ? 1 : 0), rank);
  if (!c || *c == 0) return std::nullopt;
  if (add) return Shift{1, *c};
  return weight_first ? Shift{1, -*c} : Shift{-1, *c};
}

// Whether `node` is an Add or Sub that shift_of may take (reads of other nodes never shift).
bool shift_shaped(const onnx::NodeProto& node) {
  return (node.op_type() == "Add" || node.op_type() == "Sub") && node.domain().empty() && node.input_size() == 2 &&
         node.input(0) != node.input(1);
}

}  // namespace

int fold_weight_shifts(Body& body, WeightAccess& weights) {
  if (!body.graph) return 0;
  Nodes& nodes = *body.nodes;
  // Only weights that some Add or Sub reads can fold: most graphs' weights are not looked up.
  ViewSet shift_operands;  // views the nodes' input names, unchanged until the folds below
  for (const onnx::NodeProto& node : nodes) {
    if (!shift_shaped(node)) continue;
    shift_operands.insert(node.input(0));
    shift_operands.insert(node.input(1));
  }
  if (shift_operands.size() == 0) return 0;
  std::unordered_map<std::string, const onnx::TensorProto*> candidates;  // float32 archive weights
  for (const onnx::TensorProto& t : body.graph->initializer())
    if (shift_operands.contains(t.name()) && t.data_type() == onnx::TensorProto_DataType_FLOAT && is_declaration(t) &&
        weights.archived(t.name()))
      candidates.emplace(t.name(), &t);
  for (const auto& v : body.graph->input()) candidates.erase(v.name());
  if (candidates.empty()) return 0;

  std::map<std::string, ConstTensor> constants;
  std::map<std::string, std::vector<std::pair<int, Shift>>> shifts;  // by weight: its readers
  std::set<std::pair<int, int>> shift_reads;                           // (node, input) of each reader
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    if (std::optional<ConstTensor> c = constant_node_value(node); c && node.output_size() == 1)
      constants.insert_or_assign(node.output(0), std::move(*c));
    if (!shift_shaped(node)) continue;
    for (int j = 0; j < node.input_size(); ++j) {
      const std::string& in = node.input(j);
      auto weight = candidates.find(in);
      if (weight == candidates.end()) continue;
      std::optional<Shift> shift = shift_of(node, in, weight->second->dims_size(), constants);
      if (!shift || inside_instance(body, i)) continue;
      shifts[in].emplace_back(i, *shift);
      shift_reads.emplace(i, j);
    }
  }
  if (shifts.empty()) return 0;
  // Every other read of a shifted weight keeps it whole (only those weights are asked about).
  std::set<std::string> other_reads(body.outputs.begin(), body.outputs.end());
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    for (int j = 0; j < node.input_size(); ++j)
      if (shifts.count(node.input(j)) && !shift_reads.count({i, j})) other_reads.insert(node.input(j));
    subgraph_reads(node, other_reads);
  }
  FreshNames fresh(body);

  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  std::map<std::string, std::string> renames;
  int folded = 0;
  for (const auto& [weight, readers] : shifts) {
    if (other_reads.count(weight)) continue;
    const Shift shift = readers.front().second;
    bool same = true;
    for (const auto& reader : readers) same = same && reader.second == shift;
    if (!same) continue;
    const onnx::TensorProto& w = *candidates.at(weight);
    int64_t numel = 1;
    for (int64_t d : w.dims()) numel *= d;
    const std::string name = fresh(weight + ".shifted");
    if (!weights.add(weight, name, model::DerivedWeight::Scaled{{shift.factor}, std::max<int64_t>(numel, 1), shift.offset})) {
      fresh.release(name);
      continue;
    }
    onnx::TensorProto declared = w;
    declared.set_name(name);
    declare_initializer(body, std::move(declared));
    for (const auto& reader : readers) replace_by_value(body, reader.first, name, keep, renames);
    ++folded;
  }
  if (!folded) return 0;
  for (onnx::NodeProto& node : nodes) apply_renames(node, renames);
  erase_nodes(body, keep);
  return folded;
}

}  // namespace pt2onnx::clean
