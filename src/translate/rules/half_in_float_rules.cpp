// The rules whose ops torch computes in float for float16/bfloat16 operands, where computing in
// the half type gives other numbers: half_in_float.h runs them in float. Each entry is there
// because the float16 OpInfo samples give torch's numbers with the entry and not without it, in
// onnx's reference evaluator (ONNX's own float16 semantics, one rounding per node) or in
// onnxruntime: lerp (torch keeps the scalar weight in float: 0.4, not 0.39990), sinc and exp2
// (sin(pi x) / (pi x) and exp(x ln 2) rounded once) and cross_entropy_loss (log-softmax and the
// mean in float). Ops that torch composes of half-precision steps (cross, logit, diff, the margin
// losses, addr, bilinear) are right as they are, rounding per node as torch does, and are not
// listed. Attention (scaled_dot_product_attention and its kernels' forms): torch's CPU kernels
// compute scores, softmax and the weighted sum in float; any half rounding of the scores or the
// weights gives results beyond float16 tolerance. --compile's attention kernels still take the
// half operands to tensor cores (kernels/codegen_attention.cpp).
#include "translate/rule_table.h"
#include "translate/rules/register_all.h"

namespace pt2onnx::translate {

void register_half_in_float_rules(RuleTable& t) {
  static constexpr const char* kTargets[] = {"aten.lerp.Scalar",   "aten.lerp.Tensor", "aten.sinc.default",
                                             "aten.exp2.default",  "aten.cross_entropy_loss.default",
                                             "aten.scaled_dot_product_attention.default",
                                             "aten._scaled_dot_product_flash_attention_for_cpu.default",
                                             "aten._scaled_dot_product_efficient_attention.default",
                                             "aten._scaled_dot_product_flash_attention.default",
                                             "aten._scaled_dot_product_attention_math.default"};
  for (const char* target : kTargets) t.compute_half_in_float(target);
}

}  // namespace pt2onnx::translate
