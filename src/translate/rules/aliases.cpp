// Targets that are another target under a second name and share its rules: registered last, by
// copying the rules the families registered for the original, so the rule stays in its family's
// file and the alias cannot drift from it.
#include "translate/rules/register_all.h"

#include <span>
#include <utility>

namespace pt2onnx::translate {

namespace {

// (alias, original) pairs.
constexpr std::pair<const char*, const char*> kAliases[] = {
    // The unchecked forms that decompositions (upsampling, index_put on views) write: same
    // semantics, no bounds checks.
    {"aten._unsafe_index.Tensor", "aten.index.Tensor"},
    {"aten._unsafe_index_put.default", "aten.index_put.default"},
    {"aten.unsafe_split.Tensor", "aten.split.Tensor"},
    // NumPy-style names that the default IR keeps (they are CompositeImplicitAutograd, so core
    // IR writes the originals); same schemas.
    {"aten.divide.Tensor", "aten.div.Tensor"},
    {"aten.divide.Scalar", "aten.div.Scalar"},
    {"aten.divide.Tensor_mode", "aten.div.Tensor_mode"},
    {"aten.divide.Scalar_mode", "aten.div.Scalar_mode"},
    {"aten.true_divide.Tensor", "aten.div.Tensor"},
    {"aten.true_divide.Scalar", "aten.div.Scalar"},
    {"aten.multiply.Tensor", "aten.mul.Tensor"},
    {"aten.multiply.Scalar", "aten.mul.Scalar"},
    {"aten.subtract.Tensor", "aten.sub.Tensor"},
    {"aten.subtract.Scalar", "aten.sub.Scalar"},
    {"aten.greater.Tensor", "aten.gt.Tensor"},
    {"aten.greater.Scalar", "aten.gt.Scalar"},
    {"aten.greater_equal.Tensor", "aten.ge.Tensor"},
    {"aten.greater_equal.Scalar", "aten.ge.Scalar"},
    {"aten.less.Tensor", "aten.lt.Tensor"},
    {"aten.less.Scalar", "aten.lt.Scalar"},
    {"aten.less_equal.Tensor", "aten.le.Tensor"},
    {"aten.less_equal.Scalar", "aten.le.Scalar"},
    {"aten.concatenate.default", "aten.cat.default"},
    {"aten.argwhere.default", "aten.nonzero.default"},
    // The *_copy forms of views (functionalization's names): ONNX values are never views, so a
    // copy is the view's value. Same schemas.
    {"aten.expand_copy.default", "aten.expand.default"},
    {"aten.permute_copy.default", "aten.permute.default"},
    {"aten.t_copy.default", "aten.t.default"},
    {"aten.transpose_copy.int", "aten.transpose.int"},
    {"aten.unsqueeze_copy.default", "aten.unsqueeze.default"},
    {"aten.squeeze_copy.default", "aten.squeeze.default"},
    {"aten.squeeze_copy.dim", "aten.squeeze.dim"},
    {"aten.squeeze_copy.dims", "aten.squeeze.dims"},
    {"aten.alias_copy.default", "aten.alias.default"},
    {"aten.narrow_copy.default", "aten.narrow.default"},
    {"aten.unfold_copy.default", "aten.unfold.default"},
    {"aten.split_with_sizes_copy.default", "aten.split_with_sizes.default"},
    {"aten.unbind_copy.int", "aten.unbind.int"},
    {"aten.unsafe_chunk.default", "aten.chunk.default"},
    {"aten.matrix_H.default", "aten.mH.default"},
    // unary plus; var_mean/std_mean's unbiased= overloads over every element (the rule reads
    // `unbiased` where `correction` is absent); sgn of a real tensor is its sign.
    {"aten.positive.default", "aten.alias.default"},
    {"aten.var_mean.default", "aten.var_mean.correction"},
    {"aten.std_mean.default", "aten.std_mean.correction"},
    {"aten.sgn.default", "aten.sign.default"},
    // ravel(Tensor(a) self) -> Tensor(a) is flatten.using_ints at its defaults (0, -1).
    {"aten.ravel.default", "aten.flatten.using_ints"},
    // Real tensors have no conjugate or negative bit to resolve: the value itself.
    {"aten.resolve_conj.default", "aten.alias.default"},
    {"aten.resolve_neg.default", "aten.alias.default"},
    {"aten.special_polygamma.default", "aten.polygamma.default"},
    // More NumPy-style names, and the Scalar_Tensor / *_scalar forms of rules that read both
    // operands as tensor-or-Scalar (operand_as); same argument names.
    {"aten.arccos.default", "aten.acos.default"},
    {"aten.arccosh.default", "aten.acosh.default"},
    {"aten.arcsin.default", "aten.asin.default"},
    {"aten.arcsinh.default", "aten.asinh.default"},
    {"aten.arctan.default", "aten.atan.default"},
    {"aten.arctanh.default", "aten.atanh.default"},
    {"aten.absolute.default", "aten.abs.default"},
    {"aten.negative.default", "aten.neg.default"},
    {"aten.not_equal.Scalar", "aten.ne.Scalar"},
    {"aten.not_equal.Tensor", "aten.ne.Tensor"},
    {"aten.clip.Tensor", "aten.clamp.Tensor"},
    {"aten.special_zeta.self_scalar", "aten.special_zeta.default"},
    {"aten.special_zeta.other_scalar", "aten.special_zeta.default"},
    {"aten.special_xlog1py.self_scalar", "aten.special_xlog1py.default"},
    {"aten.special_xlog1py.other_scalar", "aten.special_xlog1py.default"},
    {"aten.bitwise_and.Scalar_Tensor", "aten.bitwise_and.Tensor"},
    {"aten.bitwise_or.Scalar_Tensor", "aten.bitwise_or.Tensor"},
    {"aten.bitwise_xor.Scalar_Tensor", "aten.bitwise_xor.Tensor"},
    {"aten.remainder.Scalar_Tensor", "aten.remainder.Tensor"},
    // Kernel-level and legacy names of ops with rules, same arguments (the rules read none that
    // differ): the deprecated _convolution lacks allow_tf32, which no rule reads; the CPU
    // fallback of grid_sampler_2d and the 3-D sampler are the grid_sampler rules (5-D from
    // opset 20); unsafe_split_with_sizes is split_with_sizes unchecked; _reshape_copy is a
    // reshape whose result never aliases (ONNX values never do).
    {"aten._convolution.deprecated", "aten._convolution.default"},
    {"aten._grid_sampler_2d_cpu_fallback.default", "aten.grid_sampler_2d.default"},
    {"aten.grid_sampler_3d.default", "aten.grid_sampler.default"},
    {"aten.unsafe_split_with_sizes.default", "aten.split_with_sizes.default"},
    {"aten._reshape_copy.default", "aten.reshape.default"},
};

// Second names the dispatcher registers beside ops with rules.
constexpr std::pair<const char*, const char*> kSecondNames[] = {
    // Second names of ops with rules that the dispatcher registers beside them, same argument
    // names: torch.matrix_exp/matrix_power, the special_* spellings, linalg.matmul, the
    // functionalized *_copy views,      // _aminmax (the older aminmax), nll_loss2d (nll_loss over [N, C, H, W]), _index_put_impl
    // (its `unsafe` flag only skips checks), _logcumsumexp, _stack, _neg_view (a real tensor's
    // negation), _conj_copy (complex values' conjugate), embedding_bag without padding_idx.
    {"aten.matrix_exp.default", "aten.linalg_matrix_exp.default"},
    {"aten.matrix_power.default", "aten.linalg_matrix_power.default"},
    {"aten.special_erfinv.default", "aten.erfinv.default"},
    {"aten.special_gammaln.default", "aten.lgamma.default"},
    {"aten.special_round.default", "aten.round.decimals"},
    {"aten.special_xlogy.other_scalar", "aten.xlogy.Scalar_Other"},
    {"aten.special_xlogy.self_scalar", "aten.xlogy.Scalar_Self"},
    {"aten.linalg_matmul.default", "aten.matmul.default"},
    {"aten.detach_copy.default", "aten.detach.default"},
    {"aten.select_copy.int", "aten.select.int"},
    {"aten.slice_copy.Tensor", "aten.slice.Tensor"},
    {"aten.split_copy.Tensor", "aten.split.Tensor"},
    {"aten._aminmax.default", "aten.aminmax.default"},
    {"aten._aminmax.dim", "aten.aminmax.default"},
    {"aten.nll_loss2d.default", "aten.nll_loss.default"},
    {"aten._index_put_impl.default", "aten.index_put.default"},
    {"aten._logcumsumexp.default", "aten.logcumsumexp.default"},
    {"aten._stack.default", "aten.stack.default"},
    {"aten._neg_view.default", "aten.neg.default"},
    {"aten._conj_copy.default", "aten._conj.default"},
    {"aten.embedding_bag.default", "aten.embedding_bag.padding_idx"},
    // linalg_pinv(self, float rcond) and its rcond tensor form; linalg_matrix_rank(self, float
    // tol) and its tol tensor form: the same rules, which read rcond and tol where given.
    {"aten.linalg_pinv.default", "aten.linalg_pinv.atol_rtol_float"},
    {"aten.linalg_pinv.rcond_tensor", "aten.linalg_pinv.atol_rtol_tensor"},
    {"aten.linalg_matrix_rank.default", "aten.linalg_matrix_rank.atol_rtol_float"},
    {"aten.linalg_matrix_rank.tol_tensor", "aten.linalg_matrix_rank.atol_rtol_tensor"},
    // Older names whose operands the rules read under either name: inverse(self), slogdet(self),
    // orgqr(self, input2), chain_matmul(matrices).
    {"aten.inverse.default", "aten.linalg_inv.default"},
    {"aten.slogdet.default", "aten.linalg_slogdet.default"},
    {"aten.orgqr.default", "aten.linalg_householder_product.default"},
    {"aten.chain_matmul.default", "aten.linalg_multi_dot.default"},
    // _reshape_alias_copy(self, size, stride) restrides a contiguous self: as_strided at offset 0.
    {"aten._reshape_alias_copy.default", "aten.as_strided.default"},
};

}  // namespace

void register_alias_rules(RuleTable& t) {
  using Table = std::span<const std::pair<const char*, const char*>>;
  for (const Table table : {Table(kAliases), Table(kSecondNames)})
    for (const auto& [alias, original] : table)
      if (const std::vector<Rule>* rules = t.find(original))
        for (const Rule& rule : *rules) t.add(alias, rule);
}

}  // namespace pt2onnx::translate
