// Inlines the higher-order ops that only wrap a subgraph in a grad or autocast mode, so that the
// translator sees plain aten nodes: torch.export keeps `with torch.no_grad():` (and disabled
// autocast) regions of the default IR as `higher_order.wrap_with_set_grad_enabled` /
// `higher_order.wrap_with_autocast` nodes over a submodule graph; core IR inlines them itself.
#pragma once

#include "ir/program.h"

namespace pt2onnx::import {

// Replaces every wrap_with_set_grad_enabled node, and every wrap_with_autocast node whose autocast
// is disabled, by its subgraph's nodes (recursively). The subgraph's inputs become the wrapper's
// operands and its outputs the wrapper's outputs; its other values are renamed
// "<wrapper node>__<name>" so they cannot clash with the outer graph's. Enabled autocast regions
// are left alone (their numbers differ from plain fp32), and so are wrappers whose shapes do not
// match (operand or output counts).
void inline_mode_wrappers(ir::Graph& graph);

}  // namespace pt2onnx::import
