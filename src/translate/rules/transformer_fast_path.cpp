// The fused kernels of nn.MultiheadAttention's and nn.TransformerEncoderLayer's inference fast
// path (taken in eval mode under no_grad): _native_multi_head_attention and
// _transformer_encoder_layer_fwd, expanded into the projections, MatMul + Softmax attention,
// layer norms and feed-forward network they compute, as torch's CPU kernels do.
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// x @ weight^T + bias (torch's linear).
std::string linear(EmitContext& ctx, const std::string& x, const std::string& weight, const std::string& bias) {
  return ctx.emit("Add", {ctx.emit("MatMul", {x, ctx.transpose(weight, {1, 0})}), bias});
}

// [B, T, H * dh] -> [B, H, T, dh]
std::string split_heads(EmitContext& ctx, const std::string& x, int64_t heads, int64_t head_dim) {
  return ctx.transpose(ctx.reshape(x, ctx.const_i64s({0, 0, heads, head_dim})), {0, 2, 1, 3});
}

struct MhaWeights {
  std::string qkv_weight, qkv_bias, proj_weight, proj_bias;
};

struct MhaResult {
  std::string output;  // [B, T, D]
  std::string probs;   // [B, H, T, S]
};

// torch's mask_type: 0 an attention mask [T, S], 1 a key padding mask [B, S], 2 any shape that
// broadcasts to [B, H, T, S]. True marks a masked key. As additive -inf bias and the rows whose
// keys are all masked (torch's masked softmax gives them zeros, not NaN).
struct MaskTerms {
  std::string bias, all_masked;
};
MaskTerms mask_terms(EmitContext& ctx, const ArgReader& args, const std::string& scores, DType type) {
  PT2ONNX_CHECK(args.dtype_of("mask") == DType::kBool, ErrorCode::kUnsupported, "a fast-path attention mask that is not bool");
  const int64_t rank = args.rank_of("mask");
  const std::optional<int64_t> mask_type = args.optional_int("mask_type");
  std::string mask = args.tensor("mask");
  if (mask_type == 1 || (!mask_type && rank == 2)) {
    PT2ONNX_CHECK(rank == 2, ErrorCode::kUnsupported, "a key padding mask (mask_type 1) of rank " + std::to_string(rank));
    mask = ctx.unsqueeze(mask, {1, 2});
  } else {
    PT2ONNX_CHECK(mask_type && (*mask_type == 0 || *mask_type == 2), ErrorCode::kUnsupported,
                  "a fast-path attention mask of rank " + std::to_string(rank) + " without mask_type 0 or 2");
  }
  mask = ctx.emit("Expand", {mask, ctx.shape_of(scores)});
  const std::string bias = ctx.emit("Where", {mask, ctx.const_scalar(-INFINITY, type), ctx.const_scalar(0, type)});
  const std::string all_masked = ctx.cast(ctx.reduce("ReduceMin", ctx.cast(mask, DType::kInt32), std::vector<int64_t>{-1}, true), DType::kBool);
  return {bias, all_masked};
}

// The attention of query [B, T, D] over key/value [B, S, D] with `heads` heads.
MhaResult multi_head_attention(EmitContext& ctx, const ArgReader& args, const std::string& query, const std::string& key,
                               const std::string& value, int64_t embed_dim, int64_t heads, const MhaWeights& w, DType type) {
  PT2ONNX_CHECK(heads > 0 && embed_dim % heads == 0, ErrorCode::kUnsupported,
                "fast-path attention with embed_dim " + std::to_string(embed_dim) + " not a multiple of " + std::to_string(heads) + " heads");
  const int64_t head_dim = embed_dim / heads;
  const std::string sizes = ctx.const_i64s({embed_dim, embed_dim, embed_dim});
  const std::vector<std::string> weight = ctx.emit("Split", {w.qkv_weight, sizes}, {Attr("axis", int64_t{0})}, 3);
  const std::vector<std::string> bias = ctx.emit("Split", {w.qkv_bias, sizes}, {Attr("axis", int64_t{0})}, 3);
  // torch divides q by sqrt(head_dim) after adding its bias.
  const std::string q = ctx.emit("Div", {linear(ctx, query, weight[0], bias[0]), ctx.const_scalar(std::sqrt(double(head_dim)), type)});
  const std::string k = linear(ctx, key, weight[1], bias[1]), v = linear(ctx, value, weight[2], bias[2]);
  std::string scores = ctx.emit("MatMul", {split_heads(ctx, q, heads, head_dim),
                                           ctx.transpose(split_heads(ctx, k, heads, head_dim), {0, 1, 3, 2})});  // [B, H, T, S]
  std::string probs;
  if (args.has("mask")) {
    const MaskTerms m = mask_terms(ctx, args, scores, type);
    probs = ctx.emit("Softmax", {ctx.emit("Add", {scores, m.bias})}, {Attr("axis", int64_t{-1})});
    probs = ctx.emit("Where", {m.all_masked, ctx.const_scalar(0, type), probs});
  } else {
    probs = ctx.emit("Softmax", {scores}, {Attr("axis", int64_t{-1})});
  }
  const std::string attended = ctx.transpose(ctx.emit("MatMul", {probs, split_heads(ctx, v, heads, head_dim)}), {0, 2, 1, 3});
  const std::string merged = ctx.reshape(attended, ctx.const_i64s({0, 0, embed_dim}));
  return {linear(ctx, merged, w.proj_weight, w.proj_bias), probs};
}

MhaWeights mha_weights(const ArgReader& args) {
  return {args.tensor("qkv_weight"), args.tensor("qkv_bias"), args.tensor("proj_weight"), args.tensor("proj_bias")};
}

void require_batched(const ArgReader& args, const char* name) {
  PT2ONNX_CHECK(args.rank_of(name) == 3 && is_floating(args.dtype_of(name)), ErrorCode::kUnsupported,
                std::string("a fast-path transformer kernel whose ") + name + " is not a 3-D float tensor (nested tensors are out of scope)");
}

// _native_multi_head_attention(Tensor query, Tensor key, Tensor value, int embed_dim, int num_head,
// Tensor qkv_weight, Tensor qkv_bias, Tensor proj_weight, Tensor proj_bias, Tensor? mask=None, bool
// need_weights=True, bool average_attn_weights=True, int? mask_type=None) -> (Tensor, Tensor): the
// output, and the attention weights (averaged over heads: [B, T, S]; else [B, H, T, S]; without
// need_weights an empty [0]).
RuleResult aten_native_multi_head_attention(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  for (const char* name : {"query", "key", "value"}) require_batched(args, name);
  const DType type = args.dtype_of("query");
  const MhaResult r = multi_head_attention(ctx, args, args.tensor("query"), args.tensor("key"), args.tensor("value"),
                                           args.get_int("embed_dim"), args.get_int("num_head"), mha_weights(args), type);
  if (ctx.output_count() > 1 && ctx.output_used(1)) {
    std::string weights = ctx.emit("Expand", {ctx.const_scalar(0, type), ctx.const_i64s({0})});
    if (args.bool_or("need_weights", true))
      weights = args.bool_or("average_attn_weights", true) ? ctx.reduce("ReduceMean", r.probs, std::vector<int64_t>{1}, false) : r.probs;
    ctx.set_output(1, weights);
  }
  return emitted(ctx, r.output);
}

// _transformer_encoder_layer_fwd(Tensor src, int embed_dim, int num_heads, Tensor qkv_weight, Tensor
// qkv_bias, Tensor proj_weight, Tensor proj_bias, bool use_gelu, bool norm_first, float eps, Tensor
// norm_weight_1, Tensor norm_bias_1, Tensor norm_weight_2, Tensor norm_bias_2, Tensor ffn_weight_1,
// Tensor ffn_bias_1, Tensor ffn_weight_2, Tensor ffn_bias_2, Tensor? mask=None, int? mask_type=None)
// -> Tensor: self-attention and a ReLU/GELU (erf) feed-forward block, each with its residual and
// layer norm after (or, norm_first, before) it.
RuleResult aten_transformer_encoder_layer_fwd(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  require_batched(args, "src");
  const DType type = args.dtype_of("src");
  const bool norm_first = args.get_bool("norm_first");
  const double eps = args.get_float("eps");
  auto norm = [&](const std::string& x, int which) {
    const std::string n = std::to_string(which);
    return ctx.emit("LayerNormalization", {x, args.tensor("norm_weight_" + n), args.tensor("norm_bias_" + n)},
                    {Attr("axis", int64_t{-1}), Attr("epsilon", eps)});
  };
  const std::string src = args.tensor("src");
  const std::string attn_in = norm_first ? norm(src, 1) : src;
  const MhaResult r = multi_head_attention(ctx, args, attn_in, attn_in, attn_in, args.get_int("embed_dim"), args.get_int("num_heads"),
                                           mha_weights(args), type);
  std::string x = ctx.emit("Add", {r.output, src});
  if (!norm_first) x = norm(x, 1);
  std::string hidden = linear(ctx, norm_first ? norm(x, 2) : x, args.tensor("ffn_weight_1"), args.tensor("ffn_bias_1"));
  if (args.get_bool("use_gelu")) {
    const std::string erf = ctx.emit("Erf", {ctx.emit("Div", {hidden, ctx.const_scalar(std::sqrt(2.0), type)})});
    hidden = ctx.emit("Mul", {ctx.emit("Mul", {hidden, ctx.const_scalar(0.5, type)}), ctx.emit("Add", {erf, ctx.const_scalar(1, type)})});
  } else {
    hidden = ctx.emit("Relu", {hidden});
  }
  x = ctx.emit("Add", {linear(ctx, hidden, args.tensor("ffn_weight_2"), args.tensor("ffn_bias_2")), x});
  return emitted(ctx, norm_first ? x : norm(x, 2));
}

// _transform_bias_rescale_qkv(Tensor qkv, Tensor qkv_bias, int num_heads) -> (Tensor, Tensor, Tensor):
// qkv [B, T, 3 D] plus its bias, split into q, k, v [B, H, T, D / H], q divided by sqrt(D / H).
RuleResult aten_transform_bias_rescale_qkv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  require_batched(args, "qkv");
  const DType type = args.dtype_of("qkv");
  const ir::Dim& width = args.meta("qkv").sizes.back();
  const int64_t heads = args.get_int("num_heads");
  PT2ONNX_CHECK(width.is_static() && width.as_int() % 3 == 0 && heads > 0 && (width.as_int() / 3) % heads == 0, ErrorCode::kUnsupported,
                "_transform_bias_rescale_qkv of a symbolic width or one not 3 x heads x head size");
  const int64_t embed = width.as_int() / 3, head_dim = embed / heads;
  const std::string biased = ctx.emit("Add", {args.tensor("qkv"), args.tensor("qkv_bias")});
  const std::vector<std::string> parts = ctx.emit("Split", {biased, ctx.const_i64s({embed, embed, embed})}, {Attr("axis", int64_t{-1})}, 3);
  ctx.set_output(0, split_heads(ctx, ctx.emit("Div", {parts[0], ctx.const_scalar(std::sqrt(double(head_dim)), type)}), heads, head_dim));
  ctx.set_output(1, split_heads(ctx, parts[1], heads, head_dim));
  ctx.set_output(2, split_heads(ctx, parts[2], heads, head_dim));
  return RuleResult::kEmitted;
}

// _masked_softmax(Tensor self, Tensor mask, int? dim=None, int? mask_type=None) -> Tensor: softmax
// over the last dim with masked (true) positions left out, a row masked everywhere giving NaN as
// torch's kernel does (the fast-path attention zeroes those rows itself);
// mask as the fast path reads it (mask_type 0 [T, S], 1 [B, S], 2 broadcasting).
RuleResult aten_masked_softmax(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const std::optional<int64_t> dim = args.optional_int("dim");
  PT2ONNX_CHECK(!dim || normalize_dim(*dim, rank) == rank - 1, ErrorCode::kUnsupported, "_masked_softmax over other than the last dim");
  const DType type = args.dtype_of("self");
  const std::string x = args.tensor("self");
  const MaskTerms m = mask_terms(ctx, args, x, type);
  return emitted(ctx, ctx.emit("Softmax", {ctx.emit("Add", {x, m.bias})}, {Attr("axis", int64_t{-1})}));
}

}  // namespace

void register_transformer_fast_path_rules(RuleTable& t) {
  // LayerNormalization is opset 17, the lowest pt2onnx emits.
  t.add("aten._native_multi_head_attention.default", aten_native_multi_head_attention);
  t.add("aten._transformer_encoder_layer_fwd.default", aten_transformer_encoder_layer_fwd);
  t.add("aten._transform_bias_rescale_qkv.default", aten_transform_bias_rescale_qkv);
  t.add("aten._masked_softmax.default", aten_masked_softmax);
}

}  // namespace pt2onnx::translate
