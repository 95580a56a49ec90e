// The individual clean-up passes over one scope; passes.h runs them to a fixed point. Each
// returns how many nodes (or initializers) it changed or removed.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "clean/body.h"
#include "clean/const_tensor.h"
#include "common/view_map.h"

namespace pt2onnx::clean {

// Names for values a pass adds: none of the scope's node outputs, initializers or graph inputs,
// nor one handed out before (base, then base_1, base_2, ...). The scope's names are gathered at
// the first request, so a pass that adds nothing does not pay for them.
class FreshNames {
 public:
  explicit FreshNames(const Body& body) : body_(&body) {}
  std::string operator()(const std::string& base) {
    if (!gathered_) gather();
    std::string name = base;
    for (int i = 1; taken_.count(name); ++i) name = base + "_" + std::to_string(i);
    taken_.insert(name);
    return name;
  }
  // Gives back a name whose value the pass did not add after all.
  void release(const std::string& name) { taken_.erase(name); }

 private:
  void gather() {
    gathered_ = true;
    for (const onnx::NodeProto& n : *body_->nodes) taken_.insert(n.output().begin(), n.output().end());
    if (body_->graph) {
      for (const auto& t : body_->graph->initializer()) taken_.insert(t.name());
      for (const auto& v : body_->graph->input()) taken_.insert(v.name());
    }
  }
  const Body* body_;
  bool gathered_ = false;
  std::set<std::string> taken_;
};

// What the scope itself declares of its values' types (graph inputs, outputs, value_info,
// initializers, Constant nodes), then the body's oracle.
class KnownTypes {
 public:
  std::optional<ValueType> lookup(const std::string& name) const;

 private:
  friend KnownTypes known_types(const Body& body);
  std::map<std::string, ValueType> declared_;
  TypeOracle oracle_;
};
KnownTypes known_types(const Body& body);

// Whether `count` dims of a from `a_from` and of b from `b_from` are provably equal at run time:
// each the same static size or the same symbolic expression of the export.
bool same_dims(const ValueType& a, size_t a_from, const ValueType& b, size_t b_from, size_t count);
// Same rank and same_dims over all of it.
bool same_shape(const ValueType& a, const ValueType& b);

// The values a scope reads, as the dead-node sweep finds them: its outputs, the inputs of the
// nodes it keeps and the outer names their subgraphs read. Views of the scope's strings (valid
// while nothing renames or removes them) and of `outer`.
struct ReadValues {
  ViewSet names;
  std::set<std::string> outer;
};

// Nodes whose outputs nothing reads (scope outputs and subgraphs' outer reads count), then, in
// the main graph, initializers and value_info entries that nothing refers to any more. When the
// sweep removed nothing, what it found read is left in `reads` (if given), and
// eliminate_dead_initializers takes it instead of walking every node again.
int eliminate_dead_nodes(Body& body, ReadValues* reads = nullptr);
int eliminate_dead_initializers(Body& body, const ReadValues* reads = nullptr);
// Shape arithmetic on constants and static dims -> Constant nodes.
int fold_constants(Body& body);
// What fold_constants makes of `node` given its inputs' values (null: not constant), or nullopt;
// Shape and Size, which read types, never fold here.
std::optional<ConstTensor> fold_node_value(const onnx::NodeProto& node, const std::vector<const ConstTensor*>& inputs);
// Turns `node` into a Constant node of `value`, its output name kept.
void replace_with_constant(onnx::NodeProto& node, const ConstTensor& value);
// Integers computed from constants by float arithmetic that rounds (WavLM's Log buckets) ->
// Constants, where every runtime's rounding gives the same integers.
int fold_truncated_floats(Body& body);
// Reshape/Expand shape operands made of dims the data already has -> Constants (0 / 1 pieces),
// and Gathers of static dims from a Shape -> Constants.
int resolve_shape_operands(Body& body);
// A node identical to an earlier one (op, domain, inputs, attributes) is replaced by it.
int merge_duplicates(Body& body);
// Identity nodes, and Casts/Reshapes that provably change nothing, are bypassed.
int drop_identities(Body& body);
// Where(Less(i, 0), Add(i, dim), i) -> i where i is provably non-negative.
int drop_index_wraps(Body& body);
// Split(Concat(a, b, ...)) along the same axis by the inputs' static lengths -> a, b, ...
int split_concats(Body& body);
// Unsqueeze(Gather(Shape(x), k), [0]) -> Shape(x, start=k, end=k+1).
int slice_shape_dims(Body& body);
// Shape(Range(0, n, 1)) -> Unsqueeze(n, [0]) where n is provably >= 0.
int shapes_of_ranges(Body& body);
// Div(Sub(a, Mod(a, b)), b) -> Div(a, b) where a is provably >= 0 and b a constant >= 1.
int simplify_floor_divs(Body& body);
// Min(Max(x, lo), hi) and Max(Min(x, hi), lo) with scalar constant bounds -> Clip(x, lo, hi).
int fuse_clamps(Body& body);
// Transpose(Transpose(x, p1), p2) -> Transpose(x, p1 o p2), or x when that is the identity.
int fuse_transposes(Body& body);
// Reshape -> MatMul (or Gemm) -> Reshape chains that only merge and split leading batch dims ->
// one broadcasting MatMul (+ Add of the Gemm's bias) on the unreshaped operands.
int fold_batched_matmuls(Body& body);
// Reshape(Reshape(x, s1), s2) -> Reshape(x, s) with s written from the types of x and the result.
int compose_reshapes(Body& body);
// Unsqueeze(Unsqueeze(x, a), b) -> Unsqueeze(x, axes) with constant axes (compose_unsqueezes.cpp).
int compose_unsqueezes(Body& body);
// State pairs (pkg.pt2onnx.state) whose new value is the state input itself: the pair leaves the
// signature, the input stays as its default initializer (unchanged_state.cpp).
int drop_unchanged_state(Body& body, google::protobuf::RepeatedPtrField<onnx::StringStringEntryProto>& metadata);
// Constant nodes of the main graph -> initializers of the same name (the graph's last step).
int constants_to_initializers(Body& body);

}  // namespace pt2onnx::clean
