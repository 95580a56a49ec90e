// The families of built-in rules. Each register function adds its family's rules to the table;
// register_all_rules calls them all, in a fixed order.
#pragma once

#include "translate/rule_table.h"

namespace pt2onnx::translate {

void register_all_rules(RuleTable& table);

void register_elementwise_rules(RuleTable& table);  // arithmetic, math functions, comparisons, where
void register_activation_rules(RuleTable& table);   // relu, gelu, silu, softmax, ...
void register_linalg_rules(RuleTable& table);       // linear, matmul, addmm, bmm, ...
void register_conv_pool_rules(RuleTable& table);    // convolution, pooling
void register_resize_rules(RuleTable& table);       // upsample_* as Resize
void register_norm_rules(RuleTable& table);         // layer/batch/rms/group norm
void register_reduction_rules(RuleTable& table);    // mean, sum, amax, argmax, var, ...
void register_shape_rules(RuleTable& table);        // view, permute, cat, split, slice, ...
void register_indexing_rules(RuleTable& table);     // embedding, index, gather, ...
void register_creation_rules(RuleTable& table);     // arange, full, zeros, tril, ...
void register_cast_rules(RuleTable& table);         // to, _to_copy, type_as, copy
void register_transformer_fast_path_rules(RuleTable& table);  // nn.MultiheadAttention/TransformerEncoderLayer kernels
void register_attention_rules(RuleTable& table);    // scaled_dot_product_attention and its CPU form
void register_symint_rules(RuleTable& table);       // sym_size, Python int arithmetic on SymInts
void register_control_flow_rules(RuleTable& table); // cond, while_loop, scan, map_impl, invoke_subgraph
void register_moe_rules(RuleTable& table);         // transformers.grouped_mm_fallback (MoE experts)
void register_onnx_ops_rules(RuleTable& table);     // torch.onnx.ops: onnx::Attention, _symbolic, ...
void register_recurrent_rules(RuleTable& table);   // lstm, gru, rnn_tanh, rnn_relu as ONNX LSTM/GRU/RNN
void register_window_rules(RuleTable& table);      // hann, hamming, blackman windows
void register_random_rules(RuleTable& table);      // rand, randn, randint, normal, bernoulli, multinomial
void register_unique_rules(RuleTable& table);      // _unique2, unique_dim, unique_consecutive
void register_math_extra_rules(RuleTable& table);  // bit shifts, deg2rad, angle, isclose, det
void register_quantize_rules(RuleTable& table);     // quantized_decomposed Q/DQ, choose_qparams (PT2E, torchao)
void register_fake_quantize_rules(RuleTable& table);  // fake quantization and QAT observers (before convert_pt2e)
void register_grouped_mm_rules(RuleTable& table);  // _grouped_mm (mixture-of-experts)
void register_complex_rules(RuleTable& table);      // complex tensors as real pairs (complex_values.h)
void register_fft_rules(RuleTable& table);          // _fft_*, fft_*, stft/istft as ONNX DFT (opset 20)
void register_composite_shape_rules(RuleTable& table);  // tensor_split, kron, diag, block_diag, masked_select
void register_composite_math_rules(RuleTable& table);   // nan_to_num, copysign, fmax, nansum, erfinv, ...
void register_loss_rules(RuleTable& table);             // l1, smooth_l1, huber, bce (with logits), kl_div, ...
void register_decomp_special_rules(RuleTable& table);    // polygamma n >= 1, zeta, i0/i1 (scaled), spherical j0
void register_decomp_order_rules(RuleTable& table);      // median, nanmedian, quantile, kthvalue, cummax/cummin
void register_decomp_scatter_rules(RuleTable& table);    // index_reduce, max_unpool, adaptive_max_pool
void register_decomp_shape_rules(RuleTable& table);      // diagflat, vecdot, multi_dot, ...
void register_decomp_polynomial_rules(RuleTable& table); // Chebyshev, Hermite, Laguerre, Legendre at a tensor degree
void register_decomp_loss_rules(RuleTable& table);       // triplet, cosine embedding, multi(label) margin losses
void register_decomp_index_rules(RuleTable& table);      // put, scatter with a reduce string, nonzero_numpy/static
void register_decomp_linalg_rules(RuleTable& table);     // inverse, solves, Cholesky, LU, QR, Jacobi SVD (unrolled)
void register_histogram_rules(RuleTable& table);       // histogram, histogramdd and its _histogramdd_* parts
void register_hash_tensor_rules(RuleTable& table);     // hash_tensor: the xor of bit patterns (opset 26)
void register_cross_entropy_rules(RuleTable& table);   // nll, cross entropy, torch_nn linear cross entropy
void register_separable_filter_rules(RuleTable& table);  // lanczos and align_corners antialiasing by weight matrices
void register_random_loop_rules(RuleTable& table);     // _standard_gamma, poisson by rejection Loops
void register_kernel_form_rules(RuleTable& table);     // range, conv_tbc, RNN cells, rrelu, norm kernels, ...
void register_alias_rules(RuleTable& table);        // second names of targets above (_unsafe_index)
void register_half_in_float_rules(RuleTable& table);  // marks the rules torch computes in float for half operands

}  // namespace pt2onnx::translate
