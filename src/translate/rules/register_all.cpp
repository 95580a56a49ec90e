// register_all_rules: the one list of rule families, called in a fixed order.
#include "translate/rules/register_all.h"

#include "translate/decompositions/register_decompositions.h"

namespace pt2onnx::translate {

void register_all_rules(RuleTable& table) {
  register_shape_decompositions(table);
  register_math_decompositions(table);
  register_elementwise_rules(table);
  register_activation_rules(table);
  register_linalg_rules(table);
  register_conv_pool_rules(table);
  register_resize_rules(table);
  register_norm_rules(table);
  register_reduction_rules(table);
  register_shape_rules(table);
  register_indexing_rules(table);
  register_creation_rules(table);
  register_cast_rules(table);
  register_attention_rules(table);
  register_transformer_fast_path_rules(table);
  register_symint_rules(table);
  register_control_flow_rules(table);
  register_moe_rules(table);
  register_onnx_ops_rules(table);
  register_recurrent_rules(table);
  register_window_rules(table);
  register_random_rules(table);
  register_unique_rules(table);
  register_math_extra_rules(table);
  register_quantize_rules(table);
  register_fake_quantize_rules(table);
  register_grouped_mm_rules(table);
  register_complex_rules(table);  // after shape: it reuses the pair-transparent real rules
  register_fft_rules(table);
  register_composite_shape_rules(table);
  register_composite_math_rules(table);
  register_loss_rules(table);
  register_cross_entropy_rules(table);
  register_decomp_special_rules(table);
  register_decomp_order_rules(table);
  register_decomp_scatter_rules(table);
  register_decomp_shape_rules(table);
  register_decomp_polynomial_rules(table);
  register_decomp_loss_rules(table);
  register_decomp_index_rules(table);
  register_decomp_linalg_rules(table);
  register_histogram_rules(table);
  register_hash_tensor_rules(table);
  register_separable_filter_rules(table);
  register_random_loop_rules(table);
  register_kernel_form_rules(table);
  register_alias_rules(table);
  register_half_in_float_rules(table);  // last: it marks rules registered above, aliases too
}

}  // namespace pt2onnx::translate
