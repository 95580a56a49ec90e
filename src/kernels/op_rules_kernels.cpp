// Codegen rules for the ops that get a kernel of their own: MatMul/Gemm (the tiled GEMM, with
// pointwise epilogues) and the row-wise reductions (softmax, Reduce*, LayerNormalization).

#include "common/error.h"
#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

namespace {

using onnx::TensorProto;

void matmul(OpContext& ctx) {
  ctx.gen.emit_gemm(ctx.node, ctx.input(0), ctx.input(1), false, false, 1.0, "", 0.0, ctx.out);
}

void gemm(OpContext& ctx) {
  ctx.gen.emit_gemm(ctx.node, ctx.input(0), ctx.input(1), ctx.attr_int("transA", 0) != 0, ctx.attr_int("transB", 0) != 0,
            ctx.attr_float("alpha", 1.0f), ctx.input(2), ctx.attr_float("beta", 1.0f), ctx.out);
}

void softmax(OpContext& ctx) {
  const int64_t axis = ctx.attr_int("axis", -1);
  ctx.gen.emit_rowwise(ctx.node, ctx.op() == "Softmax" ? Generator::RowOp::kSoftmax : Generator::RowOp::kLogSoftmax, ctx.input(0), {axis}, true, ctx.out);
}

// Each reduction's row operation, and the opset from which its axes are an input, not an attribute.
struct Reduction {
  const char* op;
  Generator::RowOp row_op;
  int axes_input_since;
};
constexpr Reduction kReductions[] = {{"ReduceSum", Generator::RowOp::kSum, 13},
                                     {"ReduceMean", Generator::RowOp::kMean, 18},
                                     {"ReduceMax", Generator::RowOp::kMax, 18},
                                     {"ReduceMin", Generator::RowOp::kMin, 18}};

const Reduction& reduction_of(const std::string& op) {
  for (const Reduction& r : kReductions)
    if (op == r.op) return r;
  throw Error(ErrorCode::kUnsupported, "no row-wise reduction for " + op);
}

void reduce(OpContext& ctx) {
  const Reduction& reduction = reduction_of(ctx.op());
  const bool axes_input = ctx.gen.opset() >= reduction.axes_input_since;
  std::optional<std::vector<int64_t>> axes = axes_input ? (ctx.input(1).empty() ? std::nullopt : ctx.axes_from(1, "axes"))
                                                        : ctx.axes_from(99, "axes");
  const size_t r = ctx.value(ctx.input(0)).shape.size();
  std::vector<int64_t> ax;
  if (axes && !axes->empty()) ax = *axes;
  else if (ctx.attr_int("noop_with_empty_axes", 0) != 0) {
    ctx.gen.define(ctx.out, ctx.value(ctx.input(0)));
    return;
  } else {
    for (size_t i = 0; i < r; ++i) ax.push_back(static_cast<int64_t>(i));
  }
  ctx.gen.emit_rowwise(ctx.node, reduction.row_op, ctx.input(0), ax, ctx.attr_int("keepdims", 1) != 0, ctx.out);
}

void layer_norm(OpContext& ctx) {
  for (int i = 1; i < ctx.node.output_size(); ++i)
    if (!ctx.node.output(i).empty()) ctx.unsupported("Mean/InvStdDev outputs are not generated");
  const size_t r = ctx.value(ctx.input(0)).shape.size();
  const size_t axis = ctx.norm_axis(ctx.attr_int("axis", -1), r);
  std::vector<int64_t> ax;
  for (size_t i = axis; i < r; ++i) ax.push_back(static_cast<int64_t>(i));
  ctx.gen.emit_rowwise(ctx.node, Generator::RowOp::kLayerNorm, ctx.input(0), ax, true, ctx.out, ctx.input(1), ctx.input(2), ctx.attr_float("epsilon", 1e-5f));
}

}  // namespace

void register_kernel_op_rules(OpRuleTable& t) {
  t.add("MatMul", matmul);
  t.add("Gemm", gemm);
  t.add("Softmax", softmax);
  t.add("LogSoftmax", softmax);
  for (const Reduction& r : kReductions) t.add(r.op, reduce);
  t.add("LayerNormalization", layer_norm, false, /*multi_output=*/true);
}

}  // namespace pt2onnx::kernels::detail
