// decompose: the pass before translation that rewrites nodes into other aten ops (torch's
// _decomp/_refs, in C++). Each node whose target has a decomposition in the rule table
// (RuleTable::add_decomposition) is replaced, where it is, by the nodes the decomposition writes;
// their values' metas join the graph's tensor_values, and the nodes written are decomposed in turn.
// A node whose decomposition declines stays for the target's rules. Subgraphs are decomposed too.
#pragma once

#include "ir/program.h"
#include "translate/rule_table.h"

namespace pt2onnx::translate {

// True when some node of the program (subgraphs included) has a decomposition: without one,
// decompose would return the program as it is.
bool has_decompositions(const ir::Program& program, const RuleTable& rules);

ir::Program decompose(ir::Program program, const RuleTable& rules);

}  // namespace pt2onnx::translate
