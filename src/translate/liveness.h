// Which FX nodes the ONNX graph needs: a node is live when a graph output reads (transitively)
// one of its outputs, or when it mutates in place a value (or the base a view of it aliases) that
// a later live node reads. Dead
// nodes (asserts, buffer updates that are not outputs, unused shape computations) are skipped
// by the pre-check and by translation alike.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/view_map.h"
#include "ir/program.h"

namespace pt2onnx::translate {

struct Liveness {
  std::vector<bool> live;      // per node of graph.nodes
  // FX names read by live nodes or by graph outputs: views of the graph's own strings (valid
  // while it is alive and unchanged) and of `returned`. Lookups only, never iterated.
  ViewSet used;
  std::vector<std::string> returned;  // the names the outputs read, which `used` views
  // FX name of a view -> index of its last live reader (nodes.size(): an output).
  std::unordered_map<std::string, size_t> last_use;
  std::map<std::string, const ir::Node*, std::less<>> views;  // FX name of a view -> the node that made it
};

Liveness analyze_liveness(const ir::Program& program);
// The same for a subgraph (the body of a higher-order op): live from the graph's own outputs.
Liveness analyze_liveness(const ir::Graph& graph);

// Runtime checks that ONNX has no use for (_assert_scalar, sym_constrain_range_for_size, ...).
bool is_dropped_target(std::string_view target);
// aten ops that write their `self` argument ("aten.add_.Tensor", "aten.relu_.default").
bool is_inplace_target(std::string_view target);
// The arguments `node` writes in place, by schema name: `self` of an in-place op; `running_mean`
// and `running_var` of a batch norm in training (batch_norm, native_batch_norm,
// _native_batch_norm_legit), whose schemas return the new statistics nowhere but there;
// `running_min`, `running_max`, `scale` and `zero_point` of a QAT observer
// (fused_moving_avg_obs_fake_quant), likewise.
std::vector<std::string_view> written_arguments(const ir::Node& node);
// aten ops whose output aliases their `self` argument (select, slice, view, transpose, ...), so
// that an in-place write to the output writes to `self` too.
bool is_view_target(std::string_view target);
// The FX name of the tensor a view node aliases (its `self`), or "".
std::string view_source(const ir::Node& node);
using ir::collect_value_names;
// The graph outputs that the ONNX graph returns (user and loss outputs).
bool is_returned_output(const ir::OutputSpec& spec);

}  // namespace pt2onnx::translate
