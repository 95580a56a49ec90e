// The decomposition families, each registering into the rule table (rule_table.h), called by
// register_all_rules.
#pragma once

#include "translate/rule_table.h"

namespace pt2onnx::translate {

void register_shape_decompositions(RuleTable& table);  // swapaxes, movedim, flipud, rot90, atleast_nd, *stack, meshgrid, outer
void register_math_decompositions(RuleTable& table);   // hypot, dist, vdot, count_nonzero

}  // namespace pt2onnx::translate
