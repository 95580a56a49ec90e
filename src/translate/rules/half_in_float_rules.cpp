// The rules whose ops torch computes in float for float16/bfloat16 operands, where computing in
// the half type gives other numbers: half_in_float.h runs them in float. Each entry is there
// because onnx's reference evaluator (ONNX's own float16 semantics, one rounding per node) gives
// torch's numbers for the converted OpInfo samples with the entry and not without it: lerp
// (torch keeps the scalar weight in float: 0.4, not 0.39990), sinc (sin(pi x) / (pi x) rounded
// once). Ops that torch composes of half-precision steps (cross, logit, diff, the margin losses)
// are right as they are, rounding per node as torch does, and are not listed.
#include "translate/rule_table.h"
#include "translate/rules/register_all.h"

namespace pt2onnx::translate {

void register_half_in_float_rules(RuleTable& t) {
  static constexpr const char* kTargets[] = {"aten.lerp.Scalar", "aten.lerp.Tensor", "aten.sinc.default"};
  for (const char* target : kTargets) t.compute_half_in_float(target);
}

}  // namespace pt2onnx::translate
