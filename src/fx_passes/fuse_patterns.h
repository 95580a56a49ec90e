// fuse_patterns: an IR-to-IR pass, run before translation at opset 23 and above (unless
// translate::TranslateOptions::fuse is off), that rewrites what ONNX's fused ops say exactly into
// the torch.onnx.ops nodes naming those ops, so that one family of rules (rules/onnx_ops.cpp)
// translates both the fusions and programs written with torch.onnx.ops:
//   - aten.scaled_dot_product_attention (rank-4 q/k/v, bool or same-dtype float mask or causal,
//     GQA, scale, no dropout) -> onnx.Attention.opset23;
//   - aten.rms_norm with a weight of the input's dtype, and the pattern transformers writes,
//     w * (x * rsqrt(mean(x^2, trailing dims, keepdim) + eps)), every intermediate read once
//     -> onnx_symbolic._symbolic (RMSNormalization, opset 23);
//   - the rotate-half rotary transformers writes, x * cos + rotate_half(x) * sin with cos/sin
//     [B or 1, S, D] unsqueezed at 1 and built as f(cat(a, a)) so both halves agree, float32
//     x [B, H, S, D] -> onnx.RotaryEmbedding.opset23 on the first halves of cos and sin (new slice,
//     and expand to the batch, nodes right before it). Interleaved and other forms stay.
// Whatever does not match stays as it is and is decomposed by the aten rules. The inner nodes of
// a matched pattern are left in place; nothing reads them any more, so liveness drops them.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"
#include "translate/translate.h"

namespace pt2onnx::fx_passes {

// One rewritten node: the FX node (its name is kept), the ONNX op it becomes and what it was.
struct FusedOp {
  std::string node;
  std::string op_type;  // "Attention", "RMSNormalization", "RotaryEmbedding"
  std::string source;   // "aten.scaled_dot_product_attention.default", "pow-mean-rsqrt-mul pattern", ...
};

struct FusedProgram {
  ir::Program program;
  std::vector<FusedOp> fused;  // in graph order
};

// The lowest opset whose fused ops the pass emits.
constexpr int kMinFusedOpset = 23;

// `program` with the matches rewritten; unchanged (and `fused` empty) when options.fuse is off
// or options.opset is below kMinFusedOpset.
FusedProgram fuse_patterns(const ir::Program& program, const translate::TranslateOptions& options);

}  // namespace pt2onnx::fx_passes
