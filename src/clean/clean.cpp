// The clean-up driver: each pass enables the others (a folded Shape leaves its input dead, a
// merged constant makes two Concats identical), so they run in turn until nothing changes.
#include "clean/clean.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "common/view_map.h"
#include "clean/passes_internal.h"
#include "ir/sym_expr.h"
#include "model/lowering.h"

namespace pt2onnx::clean {

namespace {

// Enough for every chain seen in practice; each round is linear in the graph.
constexpr int kMaxRounds = 8;

// Which op types (any domain) the scope has, from one scan: a pass that rewrites only nodes of
// some ops is skipped without building its indexes when there is none (most of a large graph's
// clean-up time went to passes with nothing to do). Taken again only after a pass changed the
// scope: a pass that reports no change has changed nothing.
class OpCensus {
 public:
  explicit OpCensus(const Body& body) : body_(body) {}
  bool has(std::initializer_list<std::string_view> ops) { return has_any(ops.begin(), ops.end()); }
  bool has(const std::vector<std::string_view>& ops) { return has_any(ops.begin(), ops.end()); }
  void changed(int n) { stale_ = stale_ || n > 0; }

 private:
  template <typename It>
  bool has_any(It begin, It end) {
    if (stale_) take();
    for (It op = begin; op != end; ++op)
      if (ops_.find(*op) != ops_.end()) return true;
    return false;
  }
  void take() {
    ops_.clear();
    const std::string* last = nullptr;  // runs of one op need no lookup
    for (const onnx::NodeProto& node : *body_.nodes) {
      if (last && *last == node.op_type()) continue;
      last = &node.op_type();
      if (ops_.find(*last) == ops_.end()) ops_.insert(*last);
    }
    stale_ = false;
  }
  const Body& body_;
  std::set<std::string, std::less<>> ops_;
  bool stale_ = true;
};

// One pass of a clean-up round: the op types it rewrites, as sets of which the scope must hold
// one op each (none: it runs on any scope; it is skipped, indexes unbuilt, when the census says
// otherwise), and the report counter its changes add to.
struct RoundPass {
  const char* name;
  std::vector<std::vector<std::string_view>> triggers;
  int (*run)(Body&);
  int CleanReport::*counter;
};

// In the order a round runs them; the dead-node sweep ends each round.
const std::vector<RoundPass>& round_passes() {
  static const std::vector<RoundPass> passes = {
      {"fold_constants", {}, fold_constants, &CleanReport::folded_constants},
      {"fold_truncated_floats", {{"Cast"}}, fold_truncated_floats, &CleanReport::folded_constants},
      {"resolve_shape_operands", {{"Gather", "Reshape", "Expand"}}, resolve_shape_operands, &CleanReport::folded_constants},
      {"drop_identities", {}, drop_identities, &CleanReport::identities},
      // Only a Reshape of a MatMul/Gemm output starts a chain.
      {"fold_batched_matmuls", {{"Reshape"}, {"MatMul", "Gemm"}}, fold_batched_matmuls, &CleanReport::merged_nodes},
      {"compose_reshapes", {{"Reshape"}}, compose_reshapes, &CleanReport::merged_nodes},
      {"compose_unsqueezes", {{"Unsqueeze"}}, compose_unsqueezes, &CleanReport::merged_nodes},
      {"drop_index_wraps", {{"Where"}}, drop_index_wraps, &CleanReport::identities},
      {"split_concats", {{"Split"}, {"Concat"}}, split_concats, &CleanReport::merged_nodes},
      {"shapes_of_ranges", {{"Shape"}, {"Range"}}, shapes_of_ranges, &CleanReport::merged_nodes},
      {"slice_shape_dims", {{"Unsqueeze", "Gather", "Slice"}, {"Shape"}}, slice_shape_dims, &CleanReport::merged_nodes},
      {"simplify_floor_divs", {{"Mod"}, {"Div"}}, simplify_floor_divs, &CleanReport::identities},
      {"fuse_clamps", {{"Min", "Max"}}, fuse_clamps, &CleanReport::merged_nodes},
      {"fuse_transposes", {{"Transpose"}}, fuse_transposes, &CleanReport::merged_nodes},
      {"merge_duplicates", {}, merge_duplicates, &CleanReport::merged_nodes},
  };
  return passes;
}

void clean_body(Body& body, OpCensus& census, CleanReport& report) {
  ReadValues reads;
  bool settled = false;  // a round changed nothing: `reads` is what the last sweep found
  for (int round = 0; round < kMaxRounds && !settled; ++round) {
    int changed = 0;
    auto count = [&](int n, int& into) {
      into += n;
      changed += n;
      census.changed(n);
    };
    for (const RoundPass& pass : round_passes()) {
      const bool triggered = std::all_of(pass.triggers.begin(), pass.triggers.end(),
                                         [&](const std::vector<std::string_view>& ops) { return census.has(ops); });
      count(triggered ? pass.run(body) : 0, report.*pass.counter);
    }
    count(eliminate_dead_nodes(body, &reads), report.dead_nodes);
    settled = changed == 0;
  }
  report.dead_initializers += eliminate_dead_initializers(body, settled ? &reads : nullptr);
}

void clean_body(Body& body, CleanReport& report) {
  OpCensus census(body);
  clean_body(body, census, report);
}

}  // namespace

Cleaned clean_model(model::OnnxModel&& model, const CleanOptions& options) {
  CleanReport report;
  onnx::GraphProto& graph = *model.proto.mutable_graph();
  const bool tracked = static_cast<int>(model.node_modules.size()) == graph.node_size();
  Body body = main_body(graph, tracked ? &model.node_modules : nullptr, options.types, options.hiera_types);
  std::optional<WeightAccess> weights;
  if (options.weights) weights.emplace(*options.weights, graph, model.weights);
  const bool fold = weights && options.fold_weights, pack = weights && options.pack_weights;
  if (fold) report.batch_norms_folded = fold_batch_norms(body, *weights);
  OpCensus census(body);  // taken on first ask, after the BatchNorms are folded
  clean_body(body, census, report);
  if (fold && census.has({"ReduceL2", "Abs"})) {
    report.weight_norms_folded = fold_weight_norms(body, *weights);
    census.changed(report.weight_norms_folded);
    if (report.weight_norms_folded) clean_body(body, census, report);  // v, g and the norm go dead
  }
  if (fold) {
    const int small = fold_small_weights(body, *weights);
    report.folded_constants += small;
    census.changed(small);
    if (small) clean_body(body, census, report);
    report.shifts_folded = fold_weight_shifts(body, *weights);
    census.changed(report.shifts_folded);
    if (report.shifts_folded) clean_body(body, census, report);
    // After merging (identical Transposes are one) and before dropping the weights they free.
    report.transposes_folded = census.has({"Transpose"}) ? fold_weight_transposes(body, *weights) : 0;
    census.changed(report.transposes_folded);
    if (report.transposes_folded) clean_body(body, census, report);
  }
  if (options.matmul_nbits && pack && census.has({"DequantizeLinear"})) {
    report.matmul_nbits = use_matmul_nbits(body, *weights);
    census.changed(report.matmul_nbits);
    if (report.matmul_nbits) {
      clean_body(body, census, report);  // the dequantized weights go dead
      const auto& imports = model.proto.opset_import();
      if (std::none_of(imports.begin(), imports.end(), [](const auto& o) { return o.domain() == "com.microsoft"; })) {
        onnx::OperatorSetIdProto* op_set = model.proto.add_opset_import();
        op_set->set_domain("com.microsoft");
        op_set->set_version(1);
      }
    }
  }
  if (pack && census.has({"Cast"})) {
    report.weights_packed = pack_4bit_weights(body, *weights);
    census.changed(report.weights_packed);
    if (report.weights_packed) clean_body(body, census, report);  // the int8 originals go dead
  }
  report.unchanged_state = drop_unchanged_state(body, *model.proto.mutable_metadata_props());
  // --hiera clones Constants into function bodies; with it, this waits for clean_functions.
  if (options.hiera_types.empty()) report.constants_moved = constants_to_initializers(body);

  ViewSet initializers(static_cast<size_t>(graph.initializer_size()));  // views: unchanged from here
  for (const onnx::TensorProto& t : graph.initializer()) initializers.insert(t.name());
  std::erase_if(model.weights, [&](const model::WeightBinding& b) { return !initializers.contains(b.initializer); });
  std::vector<model::DerivedWeight> derived;
  if (weights) {
    derived = std::move(weights->derived());
    std::erase_if(derived, [&](const model::DerivedWeight& d) { return !initializers.contains(d.name); });
  }
  return Cleaned{std::move(model), std::move(derived), report};
}

CleanReport clean_functions(onnx::ModelProto& model) {
  CleanReport report;
  Body main = main_body(*model.mutable_graph(), nullptr, {}, {});
  clean_body(main, report);
  report.constants_moved = constants_to_initializers(main);
  for (onnx::FunctionProto& function : *model.mutable_functions()) {
    Body body = function_body(function);
    clean_body(body, report);
  }

  // Functions reachable from the main graph (calls inside functions count once reached).
  std::set<std::pair<std::string, std::string>> called;
  std::vector<const Nodes*> pending = {&model.graph().node()};
  while (!pending.empty()) {
    const Nodes* nodes = pending.back();
    pending.pop_back();
    for (const onnx::NodeProto& node : *nodes) {
      if (!called.insert({node.domain(), node.op_type()}).second) continue;
      for (const onnx::FunctionProto& f : model.functions())
        if (f.domain() == node.domain() && f.name() == node.op_type()) pending.push_back(&f.node());
    }
  }
  auto* functions = model.mutable_functions();
  int kept = 0;
  for (int i = 0; i < functions->size(); ++i) {
    const onnx::FunctionProto& f = functions->Get(i);
    if (!called.count({f.domain(), f.name()})) {
      ++report.dead_functions;
      continue;
    }
    if (kept != i) functions->SwapElements(kept, i);
    ++kept;
  }
  while (functions->size() > kept) functions->RemoveLast();
  return report;
}

TypeOracle value_type_oracle(const ir::TensorValues& types) {
  // Hashed by name (ir::TensorValues): the passes ask about many of the graph's values.
  const ir::TensorValues* values = &types;
  return [values](const std::string& name) -> std::optional<ValueType> {
    const auto found = values->find(name);
    if (found == values->end()) return std::nullopt;
    const ir::TensorMeta& meta = found->second;
    const std::optional<int32_t> elem_type = model::onnx_elem_type(meta);
    if (!elem_type) return std::nullopt;
    ValueType t;
    t.elem_type = *elem_type;
    t.shape_known = true;
    for (const ir::Dim& d : meta.sizes) {
      t.dims.push_back(d.is_static() ? std::optional<int64_t>(d.as_int()) : std::nullopt);
      t.symbols.push_back(d.is_static() ? "" : ir::to_string(d.as_expr()));
    }
    return t;
  };
}

}  // namespace pt2onnx::clean
