// Shape and small linear-algebra composites the default IR keeps.
#include "translate/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

void register_decomp_shape_rules(RuleTable& /*t*/) {}

}  // namespace pt2onnx::translate
