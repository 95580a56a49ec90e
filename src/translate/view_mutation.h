// In-place writes through views (default IR is not functional: `x[0] = 5` is fill_ on select(x)).
// After an in-place node's rule ran, the new value of `self` is written back along its chain of
// views to the base tensor, each base rebuilt from its other parts and the updated view. Views of
// the same base that are read after the write would be stale, so they are refused.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"
#include "translate/emit_context.h"
#include "translate/liveness.h"

namespace pt2onnx::translate {

class ArgReader;

// A 0-D int64 position argument `name` along `dim` of the node's `self`, made non-negative and
// clamped to the size as torch reads slice bounds; `fallback` when absent or None.
std::string absolute_position(EmitContext& ctx, const ArgReader& args, const std::string& name, int64_t fallback, int64_t dim);
// `base` (of rank `rank`) with elements start, start+step, ... along `dim` replaced by `src`
// (as many as src has along dim, or `known_count`, a 0-D int64, where given): slice_scatter's semantics.
std::string scatter_slice(EmitContext& ctx, const std::string& base, int64_t rank, int64_t dim, const std::string& start,
                          int64_t step, const std::string& src, const std::string& known_count = "");
// The node's `self` with the slice at its `index` along `dim` replaced by `src` (that slice's
// shape): select_scatter's semantics. A static index into a static dim is a Where on a constant
// one-hot mask along dim (selection only: two nodes, no shape math); otherwise the slices around it.
std::string scatter_select(EmitContext& ctx, const ArgReader& args, int64_t dim, const std::string& src);

struct Rebinding {
  std::string fx_name;  // an FX value the write changed (a view's source)
  std::string value;    // its new ONNX value
};

// For in-place node `node` (graph.nodes[index], `graph` the FX graph being translated) whose rule has set output 0: emits the updated
// sources of `self`'s view chain (in the node's scope) and returns the rebindings to apply after
// finish_node. Throws Error(kUnsupported) for a view read after the write.
std::vector<Rebinding> write_back_views(EmitContext& ctx, const ir::Graph& graph, const ir::Node& node,
                                        size_t index, const Liveness& liveness);

}  // namespace pt2onnx::translate
