// Attention rules: scaled_dot_product_attention and the fused forms core ATen IR may keep
// (_scaled_dot_product_flash_attention_for_cpu, ...), decomposed into MatMul + Softmax as torch's
// math backend computes it: q and k both scaled by sqrt(scale), a causal mask built from the
// (possibly symbolic) sequence lengths, and rows that are masked entirely giving zeros. ONNX
// Attention (opset 23) is not used: the decomposition is valid at every opset.
#include <cmath>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

struct AttentionArgs {
  std::string mask_name;  // "attn_mask" or "attn_bias"; absent when the op has none
  bool is_causal = false;
  std::optional<double> scale;
  bool enable_gqa = false;
  bool logsumexp = false;  // output 1 is the logsumexp of each query's scaled, masked scores
  bool weights = false;    // output 1 is the attention weights (the math kernel's)
};

// k or v with its heads repeated to `query_heads` (repeat_interleave along dim -3).
std::string repeat_heads(EmitContext& ctx, const ArgReader& args, const std::string& name, int64_t query_heads) {
  const ir::TensorMeta& meta = args.meta(name);
  const int64_t rank = static_cast<int64_t>(meta.sizes.size());
  const ir::Dim& heads = meta.sizes[rank - 3];
  PT2ONNX_CHECK(heads.is_static() && heads.as_int() > 0 && query_heads % heads.as_int() == 0, ErrorCode::kUnsupported,
                "enable_gqa with symbolic or non-dividing head counts");
  const int64_t repeats = query_heads / heads.as_int();
  if (repeats == 1) return args.tensor(name);
  const std::string& fx = args.tensor_fx(name);
  std::vector<int64_t> before, after;
  for (int64_t i = 0; i < rank - 2; ++i) before.push_back(i);
  for (int64_t i = rank - 2; i < rank; ++i) after.push_back(i);
  // [..., Hk, S, E] -> [..., Hk, r, S, E] -> [..., Hk*r, S, E]
  const std::string expanded_shape = ctx.concat({sizes_value(ctx, fx, before), ctx.const_i64s({repeats}), sizes_value(ctx, fx, after)}, 0);
  const std::string expanded = ctx.emit("Expand", {ctx.unsqueeze(args.tensor(name), {rank - 2}), expanded_shape});
  std::vector<int64_t> leading;
  for (int64_t i = 0; i < rank - 3; ++i) leading.push_back(i);
  const std::string target = ctx.concat({sizes_value(ctx, fx, leading), ctx.const_i64s({query_heads}), sizes_value(ctx, fx, after)}, 0);
  return ctx.reshape(expanded, target);
}

// 0/-inf bias of shape [L, S] that keeps key j for query i when j <= i (torch's tril mask).
std::string causal_bias(EmitContext& ctx, const ArgReader& args, DType type) {
  const std::string length = ctx.size_of(args.tensor_fx("query"), -2);
  const std::string source = ctx.size_of(args.tensor_fx("key"), -2);
  const std::string zero = ctx.const_i64(0), one = ctx.const_i64(1);
  const std::string rows = ctx.unsqueeze(ctx.emit("Range", {zero, length, one}), {1});
  const std::string cols = ctx.emit("Range", {zero, source, one});
  const std::string allowed = ctx.emit("LessOrEqual", {cols, rows});
  return ctx.emit("Where", {allowed, ctx.const_scalar(0, type), ctx.const_scalar(-INFINITY, type)});
}

RuleResult emit_attention(EmitContext& ctx, const ArgReader& args, const AttentionArgs& a) {
  const DType type = args.dtype_of("query");
  const int64_t q_rank = args.rank_of("query"), k_rank = args.rank_of("key");
  PT2ONNX_CHECK(k_rank >= 2, ErrorCode::kUnsupported, "attention with a key of rank below 2");
  std::string key = args.tensor("key"), value = args.tensor("value");
  if (a.enable_gqa && q_rank >= 3) {
    const ir::Dim& heads = args.meta("query").sizes[q_rank - 3];
    PT2ONNX_CHECK(heads.is_static(), ErrorCode::kUnsupported, "enable_gqa with a symbolic query head count");
    key = repeat_heads(ctx, args, "key", heads.as_int());
    value = repeat_heads(ctx, args, "value", heads.as_int());
  }

  // sqrt(scale), scale defaulting to 1/sqrt(E) with E the (maybe symbolic) embedding size.
  std::string sqrt_scale;
  const ir::Dim& embed = args.meta("query").sizes.back();
  if (a.scale) {
    sqrt_scale = ctx.const_scalar(std::sqrt(*a.scale), type);
  } else if (embed.is_static()) {
    sqrt_scale = ctx.const_scalar(std::sqrt(1.0 / std::sqrt(static_cast<double>(embed.as_int()))), type);
  } else {
    const std::string e = ctx.cast(ctx.dim_of(args.tensor("query"), -1), type);
    sqrt_scale = ctx.emit("Sqrt", {ctx.emit("Reciprocal", {ctx.emit("Sqrt", {e})})});
  }
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < k_rank; ++i) perm.push_back(i);
  std::swap(perm[static_cast<size_t>(k_rank - 1)], perm[static_cast<size_t>(k_rank - 2)]);
  const std::string q = ctx.emit("Mul", {args.tensor("query"), sqrt_scale});
  const std::string k_t = ctx.emit("Mul", {ctx.transpose(key, perm), sqrt_scale});
  std::string scores = ctx.emit("MatMul", {q, k_t});

  const bool has_mask = !a.mask_name.empty() && args.has(a.mask_name);
  const bool bool_mask = has_mask && args.dtype_of(a.mask_name) == DType::kBool;
  PT2ONNX_CHECK(!(has_mask && a.is_causal), ErrorCode::kUnsupported, "attention with both a mask and is_causal");
  if (a.is_causal) scores = ctx.emit("Add", {scores, causal_bias(ctx, args, type)});
  if (has_mask) {
    const std::string mask = args.tensor(a.mask_name);
    if (bool_mask) scores = ctx.emit("Where", {mask, scores, ctx.const_scalar(-INFINITY, type)});
    else scores = ctx.emit("Add", {scores, cast_if_needed(ctx, mask, args.dtype_of(a.mask_name), type)});
  }
  std::string weights = ctx.emit("Softmax", {scores}, {Attr("axis", -1)});
  // A row masked everywhere gives zeros (torch's _safe_softmax), not NaN. A bool mask says which
  // rows by itself, so the layers that share a mask share the test (merge_duplicates); a float
  // mask's -inf is found in the scores.
  if (bool_mask) {
    const std::string kept = ctx.cast(args.tensor(a.mask_name), DType::kInt32);
    const std::string any_kept = ctx.cast(ctx.reduce("ReduceMax", kept, std::vector<int64_t>{-1}, true), DType::kBool);
    weights = ctx.emit("Where", {any_kept, weights, ctx.const_scalar(0, type)});
  } else if (has_mask) {
    const std::string masked = ctx.cast(ctx.emit("Equal", {scores, ctx.const_scalar(-INFINITY, type)}), DType::kInt32);
    const std::string all_masked = ctx.cast(ctx.reduce("ReduceMin", masked, std::vector<int64_t>{-1}, true), DType::kBool);
    weights = ctx.emit("Where", {all_masked, ctx.const_scalar(0, type), weights});
  }
  ctx.set_output(0, ctx.emit("MatMul", {weights, value}));
  size_t first_unset = 1;
  if (a.weights && ctx.output_count() > 1) {
    if (ctx.output_used(1)) ctx.set_output(1, weights);
    first_unset = 2;
  }
  if (a.logsumexp && ctx.output_count() > 1) {
    // float32 for half-precision inputs, as torch gives it.
    const DType lse_type = args.out_dtype(1) == DType::kUnknown ? type : args.out_dtype(1);
    if (ctx.output_used(1))
      ctx.set_output(1, cast_if_needed(ctx, ctx.reduce("ReduceLogSumExp", scores, std::vector<int64_t>{-1}, false), type,
                                       lse_type));
    first_unset = 2;
  }
  for (size_t i = first_unset; i < ctx.output_count(); ++i)
    PT2ONNX_CHECK(!ctx.output_used(i), ErrorCode::kUnsupported,
                  "output " + std::to_string(i) + " of a fused attention op (logsumexp, seeds...) is used");
  return RuleResult::kEmitted;
}

void warn_dropout(EmitContext& ctx, const ArgReader& args, const ir::Node& node) {
  if (args.float_or("dropout_p", 0) > 0) ctx.warn(describe_node(node) + ": attention dropout is exported as no dropout");
}

// scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
//     float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor
RuleResult aten_scaled_dot_product_attention(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  warn_dropout(ctx, args, node);
  return emit_attention(ctx, args, {"attn_mask", args.bool_or("is_causal", false), args.optional_float("scale"),
                                    args.bool_or("enable_gqa", false)});
}

// _scaled_dot_product_attention_math(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
//     float dropout_p=0., bool is_causal=False, Tensor? dropout_mask=None, *, float? scale=None,
//     bool enable_gqa=False) -> (Tensor, Tensor): the output and the attention weights; a given
// dropout mask or dropout_p > 0 is refused.
RuleResult aten_sdpa_math(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!args.has("dropout_mask") && args.float_or("dropout_p", 0) == 0, ErrorCode::kUnsupported,
                "_scaled_dot_product_attention_math with dropout");
  AttentionArgs a{"attn_mask", args.bool_or("is_causal", false), args.optional_float("scale"), args.bool_or("enable_gqa", false)};
  a.weights = true;
  return emit_attention(ctx, args, a);
}

// _scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0.0,
//     bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp)
// The logsumexp is [..., L] over the key axis, as torch's CPU kernel saves it for the backward.
RuleResult aten_sdpa_flash_for_cpu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  warn_dropout(ctx, args, node);
  return emit_attention(ctx, args, {"attn_mask", args.bool_or("is_causal", false), args.optional_float("scale"), false, true});
}

// _scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias,
//     bool compute_log_sumexp, float dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> (...)
RuleResult aten_sdpa_efficient(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  warn_dropout(ctx, args, node);
  return emit_attention(ctx, args, {"attn_bias", args.bool_or("is_causal", false), args.optional_float("scale"), false});
}

// _scaled_dot_product_flash_attention(Tensor query, Tensor key, Tensor value, float dropout_p=0.0,
//     bool is_causal=False, bool return_debug_mask=False, *, float? scale=None) -> (...)
RuleResult aten_sdpa_flash(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  warn_dropout(ctx, args, node);
  return emit_attention(ctx, args, {"", args.bool_or("is_causal", false), args.optional_float("scale"), false});
}

}  // namespace

void register_attention_rules(RuleTable& t) {
  t.add("aten.scaled_dot_product_attention.default", aten_scaled_dot_product_attention);
  t.add("aten._scaled_dot_product_flash_attention_for_cpu.default", aten_sdpa_flash_for_cpu);
  t.add("aten._scaled_dot_product_efficient_attention.default", aten_sdpa_efficient);
  t.add("aten._scaled_dot_product_flash_attention.default", aten_sdpa_flash);
  t.add("aten._scaled_dot_product_attention_math.default", aten_sdpa_math);
}

}  // namespace pt2onnx::translate
