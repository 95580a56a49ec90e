// Linear algebra rules: linear, matmul and its fixed-rank forms, addmm/baddbmm, einsum.
#include "common/error.h"
#include "translate/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
RuleResult aten_linear(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string input = args.tensor("input");
  const std::string weight = args.tensor("weight");
  const std::optional<std::string> bias = args.optional_tensor("bias");
  // Gemm is the natural form at rank 2 (as torchlib does); MatMul + Add broadcasts the rest.
  if (args.rank_of("input") == 2 && args.rank_of("weight") == 2) {
    std::vector<std::string> inputs = {input, weight};
    if (bias) inputs.push_back(*bias);
    return emitted(ctx, ctx.emit("Gemm", inputs, {Attr("transB", 1)}));
  }
  const std::string weight_t = args.rank_of("weight") == 2 ? ctx.transpose(weight, {1, 0}) : weight;
  const std::string product = ctx.emit("MatMul", {input, weight_t});
  return emitted(ctx, bias ? ctx.emit("Add", {product, *bias}) : product);
}

// matmul(Tensor self, Tensor other) -> Tensor; mm, bmm, mv, dot have the same semantics
RuleResult aten_matmul(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string other = args.has("other") ? "other" : args.has("mat2") ? "mat2" : args.has("vec") ? "vec" : "tensor";
  // Matrix times vector as MatMul with a [K, 1] column, squeezed after: onnxruntime 1.32 fuses a
  // Transpose into a MatMul whose second input is 1-D wrongly (a.t() @ v gave wrong numbers).
  if (args.rank_of(other) == 1 && args.rank_of("self") >= 2) {
    const std::string column = ctx.unsqueeze(args.tensor(other), {1});
    return emitted(ctx, ctx.squeeze(ctx.emit("MatMul", {args.tensor("self"), column}), {-1}));
  }
  return emitted(ctx, ctx.emit("MatMul", {args.tensor("self"), args.tensor(other)}));
}

// t(Tensor(a) self) -> Tensor(a)
RuleResult aten_t(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (args.rank_of("self") < 2) return emitted(ctx, args.tensor("self"));
  return emitted(ctx, ctx.transpose(args.tensor("self"), {1, 0}));
}

// beta * self + alpha * product, skipping the scalings that are 1 (and self when beta is 0,
// where torch ignores it, NaNs included).
std::string scaled_sum(EmitContext& ctx, const ArgReader& args, const std::string& product, DType type) {
  const double beta = args.float_or("beta", 1), alpha = args.float_or("alpha", 1);
  const std::string scaled_product = alpha == 1 ? product : ctx.emit("Mul", {product, ctx.const_scalar(alpha, type)});
  if (beta == 0) return scaled_product;
  std::string self = args.tensor("self");
  if (beta != 1) self = ctx.emit("Mul", {self, ctx.const_scalar(beta, type)});
  return ctx.emit("Add", {self, scaled_product});
}

// addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
RuleResult aten_addmm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const double beta = args.float_or("beta", 1), alpha = args.float_or("alpha", 1);
  const DType type = args.dtype_of("mat1");
  if (beta != 0 && (type == DType::kFloat32 || type == DType::kFloat64 || type == DType::kFloat16)) {
    return emitted(ctx, ctx.emit("Gemm", {args.tensor("mat1"), args.tensor("mat2"), args.tensor("self")},
                                 {Attr("alpha", alpha), Attr("beta", beta)}));
  }
  return emitted(ctx, scaled_sum(ctx, args, ctx.emit("MatMul", {args.tensor("mat1"), args.tensor("mat2")}), type));
}

// baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
RuleResult aten_baddbmm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string product = ctx.emit("MatMul", {args.tensor("batch1"), args.tensor("batch2")});
  return emitted(ctx, scaled_sum(ctx, args, product, args.dtype_of("batch1")));
}

// einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
RuleResult aten_einsum(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::string equation = args.string_or("equation", "");
  PT2ONNX_CHECK(!equation.empty(), ErrorCode::kUnsupported, "einsum without an equation");
  std::erase(equation, ' ');
  return emitted(ctx, ctx.emit("Einsum", args.tensors("tensors"), {Attr("equation", equation)}));
}

}  // namespace

void register_linalg_rules(RuleTable& t) {
  t.add("aten.linear.default", 1, aten_linear);
  t.add("aten.matmul.default", 1, aten_matmul);
  t.add("aten.mm.default", 1, aten_matmul);
  t.add("aten.bmm.default", 1, aten_matmul);
  t.add("aten.mv.default", 1, aten_matmul);
  t.add("aten.dot.default", 1, aten_matmul);
  t.add("aten.t.default", 1, aten_t);
  t.add("aten.addmm.default", 1, aten_addmm);
  t.add("aten.baddbmm.default", 1, aten_baddbmm);
  t.add("aten.einsum.default", 1, aten_einsum);
}

}  // namespace pt2onnx::translate
