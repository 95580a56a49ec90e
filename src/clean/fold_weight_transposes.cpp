// A Transpose of a weight (an initializer whose data is in the archive) becomes a new initializer
// that holds the weight transposed: `linear` on inputs of rank > 2 is MatMul(x, Transpose(W)),
// and core ATen IR writes permute(W) before mm/addmm. The new initializer is a strided view of
// the weight's storage (WeightAccess::add), gathered while it is written, so memory
// stays bounded. Only when every reader of the weight is a Transpose with the same perm: then the
// original goes dead and the file holds the weight once, as before. Transposes that --hiera will
// fold into a function stay, so a function's inputs are the module's weights unchanged.
#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "clean/clean.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

std::vector<int64_t> transpose_perm(const onnx::NodeProto& node, int rank) {
  const onnx::AttributeProto* a = find_attribute(node, "perm");
  std::vector<int64_t> perm;
  if (a) {
    perm.assign(a->ints().begin(), a->ints().end());
  } else {  // ONNX's default: reverse the dims
    perm.resize(static_cast<size_t>(rank));
    std::iota(perm.rbegin(), perm.rend(), int64_t{0});
  }
  return perm;
}



}  // namespace

int fold_weight_transposes(Body& body, WeightAccess& weights) {
  if (!body.graph) return 0;
  Nodes& nodes = *body.nodes;
  // Readers of each value: node indices (a subgraph read or a scope output counts as a non-Transpose).
  std::map<std::string, std::vector<int>> readers;
  std::set<std::string> other_reads(body.outputs.begin(), body.outputs.end());
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    // Not inside a --hiera instance: its function takes the module's weight as torch holds it
    // (the signature kernel bundles and users see); the Transpose stays in the body.
    const bool transpose = node.op_type() == "Transpose" && node.domain().empty() && node.input_size() == 1 &&
                           !inside_instance(body, i);
    for (const std::string& in : node.input()) {
      if (transpose) readers[in].push_back(i);
      else other_reads.insert(in);
    }
    subgraph_reads(node, other_reads);
  }
  std::set<std::string> graph_inputs;
  for (const auto& v : body.graph->input()) graph_inputs.insert(v.name());

  // By name, once (a search per weight was quadratic); protobuf keeps elements in place on Add.
  std::unordered_map<std::string_view, const onnx::TensorProto*> initializer_by_name;
  for (const onnx::TensorProto& t : body.graph->initializer()) initializer_by_name.emplace(t.name(), &t);

  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  std::map<std::string, std::string> renames;
  FreshNames fresh(body);
  int folded = 0;
  for (const auto& [weight, transposes] : readers) {
    if (other_reads.count(weight) || graph_inputs.count(weight)) continue;
    auto found = initializer_by_name.find(weight);
    const onnx::TensorProto* w = found == initializer_by_name.end() ? nullptr : found->second;
    if (!w || !is_declaration(*w)) continue;
    const std::vector<int64_t> perm = transpose_perm(nodes.Get(transposes.front()), w->dims_size());
    bool same = perm.size() == static_cast<size_t>(w->dims_size());
    for (int t : transposes) same = same && transpose_perm(nodes.Get(t), w->dims_size()) == perm;
    if (!same) continue;
    const std::string name = fresh(weight + ".T");
    if (!weights.add(weight, name, model::DerivedWeight::Permuted{perm})) {
      fresh.release(name);
      continue;
    }
    onnx::TensorProto declared = *w;
    declared.set_name(name);
    declared.clear_dims();
    for (int64_t from : perm) declared.add_dims(w->dims(static_cast<int>(from)));
    declare_initializer(body, std::move(declared));
    for (int t : transposes) replace_by_value(body, t, name, keep, renames);
    ++folded;
  }
  if (!folded) return 0;
  for (onnx::NodeProto& node : nodes) apply_renames(node, renames);
  erase_nodes(body, keep);
  return folded;
}

}  // namespace pt2onnx::clean
