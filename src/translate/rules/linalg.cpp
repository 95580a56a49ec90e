// Linear algebra rules: linear, matmul and its fixed-rank forms, addmm/baddbmm, einsum, and the
// pairwise p-norm distances (cdist, pdist).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/typed_emit.h"
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

// beta * self + term, skipping the scaling that is 1 (and self when beta is 0, where torch ignores
// it, NaNs included).
std::string plus_scaled_self(EmitContext& ctx, const ArgReader& args, const std::string& term, DType type) {
  const double beta = args.float_or("beta", 1);
  if (beta == 0) return term;
  std::string self = args.tensor("self");
  if (beta != 1) self = emit_in(ctx, "Mul", {self, ctx.const_scalar(beta, type)}, type);
  return emit_in(ctx, "Add", {self, term}, type);
}

// beta * self + alpha * product.
std::string scaled_sum(EmitContext& ctx, const ArgReader& args, const std::string& product, DType type) {
  const double alpha = args.float_or("alpha", 1);
  const std::string scaled_product = alpha == 1 ? product : emit_in(ctx, "Mul", {product, ctx.const_scalar(alpha, type)}, type);
  return plus_scaled_self(ctx, args, scaled_product, type);
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

// _addmm_activation(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, bool
// use_gelu=False) -> Tensor: addmm's value, then ReLU or GELU. The erf GELU, as torch's CPU kernel
// and decomposition compute it; on CUDA torch takes the tanh approximation, so a program
// exported from CUDA tensors is refused rather than given other numbers.
RuleResult aten_addmm_activation(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const bool gelu = args.bool_or("use_gelu", false);
  PT2ONNX_CHECK(!gelu || args.meta("self").device.rfind("cuda", 0) != 0, ErrorCode::kUnsupported,
                "_addmm_activation with use_gelu on CUDA tensors (torch takes GELU's tanh approximation there)");
  aten_addmm(ctx, node);
  const std::string sum = ctx.output_value(0);
  if (!gelu) return emitted(ctx, emit_in(ctx, "Relu", {sum}, args.dtype_of("mat1")));
  const DType type = args.dtype_of("mat1");
  const std::string half = ctx.const_scalar(0.5, type), one = ctx.const_scalar(1, type);
  const std::string erf = ctx.emit("Erf", {ctx.emit("Mul", {sum, ctx.const_scalar(std::numbers::sqrt2 / 2, type)})});
  return emitted(ctx, ctx.emit("Mul", {ctx.emit("Mul", {sum, half}), ctx.emit("Add", {erf, one})}));
}

// mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype), bmm.dtype alike, addmm.dtype(Tensor
// self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, Scalar alpha=1): torch's
// CUDA kernels for half-precision operands (no CPU kernel): products summed in float32 and the
// result rounded to out_dtype once. Here: the operands cast to float32 (exact for float16/bfloat16),
// one float32 MatMul, one Cast. (baddbmm.dtype has no rule: torch 2.15's export fails on it.)
DType accumulation_type(DType out) { return out == DType::kFloat16 || out == DType::kBFloat16 ? DType::kFloat32 : out; }
std::string operand_in(EmitContext& ctx, const ArgReader& args, const std::string& name, DType type) {
  return cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), type);
}
RuleResult matmul_with_out_dtype(EmitContext& ctx, const ir::Node& node, const char* a, const char* b, bool with_self) {
  ArgReader args(ctx, node);
  const DType out = args.dtype("out_dtype").value_or(args.out_dtype()), acc = accumulation_type(out);
  std::string value = ctx.emit("MatMul", {operand_in(ctx, args, a, acc), operand_in(ctx, args, b, acc)});
  if (with_self) {
    const double beta = args.float_or("beta", 1), alpha = args.float_or("alpha", 1);
    if (alpha != 1) value = ctx.emit("Mul", {value, ctx.const_scalar(alpha, acc)});
    if (beta != 0) value = ctx.emit("Add", {ctx.emit("Mul", {operand_in(ctx, args, "self", acc), ctx.const_scalar(beta, acc)}), value});
  }
  return emitted(ctx, cast_if_needed(ctx, value, acc, out));
}
RuleResult aten_mm_dtype(EmitContext& ctx, const ir::Node& node) { return matmul_with_out_dtype(ctx, node, "self", "mat2", false); }
RuleResult aten_addmm_dtype(EmitContext& ctx, const ir::Node& node) { return matmul_with_out_dtype(ctx, node, "mat1", "mat2", true); }

// einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
RuleResult aten_einsum(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::string equation = args.string_or("equation", "");
  PT2ONNX_CHECK(!equation.empty(), ErrorCode::kUnsupported, "einsum without an equation");
  std::erase(equation, ' ');
  std::vector<std::string> operands = args.tensors("tensors");
  // torch broadcasts ellipses of different ranks from the right; ONNX's Einsum wants them all of
  // one rank: shorter ones get size-1 dims at the start of their ellipsis.
  const std::string lhs = equation.substr(0, equation.find("->"));
  // onnxruntime's Einsum cannot sum over the dims of an ellipsis (an explicit output without it):
  // the output keeps them in front, and a ReduceSum over them follows.
  const bool sums_ellipsis = lhs.find("...") != std::string::npos && equation.find("->") != std::string::npos &&
                             equation.find("...", equation.find("->")) == std::string::npos;
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::vector<int64_t> ranks;
  if (const auto* list = std::get_if<ir::TensorListArg>(&args.arg("tensors")))
    for (const auto& n : list->names)
      if (const ir::TensorMeta* m = ctx.meta(n)) ranks.push_back(static_cast<int64_t>(m->sizes.size()));
  int64_t widest = -1;
  if (terms.size() == operands.size() && ranks.size() == operands.size()) {
    std::vector<int64_t> ellipsis_rank(terms.size(), -1);
    for (size_t i = 0; i < terms.size(); ++i) {
      if (terms[i].find("...") == std::string::npos) continue;
      ellipsis_rank[i] = ranks[i] - static_cast<int64_t>(terms[i].size() - 3);
      widest = std::max(widest, ellipsis_rank[i]);
    }
    for (size_t i = 0; i < terms.size(); ++i) {
      if (ellipsis_rank[i] < 0 || ellipsis_rank[i] == widest) continue;
      const int64_t at = static_cast<int64_t>(terms[i].find("..."));
      std::vector<int64_t> axes;
      for (int64_t a = 0; a < widest - ellipsis_rank[i]; ++a) axes.push_back(at + a);
      operands[i] = ctx.unsqueeze(operands[i], axes);
    }
  }
  if (!sums_ellipsis) return emitted(ctx, ctx.emit("Einsum", operands, {Attr("equation", equation)}));
  PT2ONNX_CHECK(widest >= 0, ErrorCode::kUnsupported, "einsum summing over the dims of an ellipsis of unknown rank ('" + equation + "')");
  const std::string kept = lhs + "->..." + equation.substr(equation.find("->") + 2);
  const std::string product = ctx.emit("Einsum", operands, {Attr("equation", kept)});
  if (widest == 0) return emitted(ctx, product);
  std::vector<int64_t> leading;
  for (int64_t i = 0; i < widest; ++i) leading.push_back(i);
  return emitted(ctx, ctx.reduce("ReduceSum", product, leading, false));
}

// The p-norm over the last axis of `diff`, as torch's distance kernels compute it: p = 0 counts
// nonzero entries, p = inf takes the largest magnitude, 1 and 2 avoid Pow.
std::string distance(EmitContext& ctx, const std::string& diff, double p, DType type) {
  const std::vector<int64_t> last = {-1};
  if (p == 0) {
    const std::string nonzero = ctx.emit("Not", {ctx.emit("Equal", {diff, ctx.const_scalar(0, type)})});
    return ctx.reduce("ReduceSum", ctx.cast(nonzero, type), last, false);
  }
  const std::string magnitude = ctx.emit("Abs", {diff});
  if (std::isinf(p)) return ctx.reduce("ReduceMax", magnitude, last, false);
  if (p == 1) return ctx.reduce("ReduceSum", magnitude, last, false);
  if (p == 2) return ctx.emit("Sqrt", {ctx.reduce("ReduceSum", ctx.emit("Mul", {diff, diff}), last, false)});
  const std::string powered = ctx.emit("Pow", {magnitude, ctx.const_scalar(p, type)});
  return ctx.emit("Pow", {ctx.reduce("ReduceSum", powered, last, false), ctx.const_scalar(1.0 / p, type)});
}

double distance_p(const ArgReader& args) {
  const double p = args.float_or("p", 2.0);
  PT2ONNX_CHECK(p >= 0, ErrorCode::kUnsupported, "a p-norm distance with p < 0");
  return p;
}

// _cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor: [..., P, M] and
// [..., R, M] give [..., P, R], from the broadcast differences (torch's direct form; its matmul
// form for p = 2 on large inputs differs only by rounding).
RuleResult aten_cdist_forward(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("x1");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "cdist of non-float tensors");
  const std::string diff = ctx.emit("Sub", {ctx.unsqueeze(args.tensor("x1"), {-2}),
                                            ctx.unsqueeze(cast_if_needed(ctx, args.tensor("x2"), args.dtype_of("x2"), type), {-3})});
  return emitted(ctx, distance(ctx, diff, distance_p(args), type));
}

// _euclidean_dist(Tensor x1, Tensor x2) -> Tensor: cdist's p = 2 distances of the rows (torch
// computes them through a matmul of squared norms, clamped at 1e-30 before the root; the
// difference form here is the same value, without that cancellation).
RuleResult aten_euclidean_dist(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, args.dtype_of("x1"));
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "_euclidean_dist of non-float tensors");
  const std::string diff = ctx.emit("Sub", {ctx.unsqueeze(operand_in(ctx, args, "x1", type), {-2}), ctx.unsqueeze(operand_in(ctx, args, "x2", type), {-3})});
  return emitted(ctx, distance(ctx, diff, 2.0, type));
}

// _pdist_forward(Tensor self, float p=2) -> Tensor: distances of rows i < j of [N, M], in row-major
// order of (i, j): the full [N, N] table, compressed by an upper-triangle mask (N may be symbolic).
RuleResult aten_pdist_forward(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(is_floating(type) && args.rank_of("self") == 2, ErrorCode::kUnsupported, "pdist of a non-float or non-2-D tensor");
  const std::string x = args.tensor("self");
  const std::string diff = ctx.emit("Sub", {ctx.unsqueeze(x, {1}), ctx.unsqueeze(x, {0})});
  const std::string table = distance(ctx, diff, distance_p(args), type);
  const std::string rows = ctx.emit("Range", {ctx.const_i64(0), ctx.size_of(args.tensor_fx("self"), 0), ctx.const_i64(1)});
  const std::string upper = ctx.emit("Less", {ctx.unsqueeze(rows, {1}), ctx.unsqueeze(rows, {0})});
  const std::string flat_shape = ctx.const_i64s({-1});
  return emitted(ctx, ctx.emit("Compress", {ctx.reshape(table, flat_shape), ctx.reshape(upper, flat_shape)}, {Attr("axis", 0)}));
}


// addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
RuleResult aten_addmv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string column = ctx.unsqueeze(args.tensor("vec"), {1});  // as matmul does (see aten_matmul)
  const std::string product = ctx.squeeze(ctx.emit("MatMul", {args.tensor("mat"), column}), {-1});
  return emitted(ctx, scaled_sum(ctx, args, product, args.dtype_of("mat")));
}

// addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor   (outer product)
// torch's kernel forms alpha * vec1 * vec2 left to right, each product rounded to the tensors'
// type: alpha scales vec1 before the outer product, which float16 results show.
RuleResult aten_addr(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("vec1");
  const double alpha = args.float_or("alpha", 1);
  std::string vec1 = args.tensor("vec1");
  if (alpha != 1) vec1 = emit_in(ctx, "Mul", {vec1, ctx.const_scalar(alpha, type)}, type);
  const std::string outer = emit_in(ctx, "Mul", {ctx.unsqueeze(vec1, {1}), ctx.unsqueeze(args.tensor("vec2"), {0})}, type);
  return emitted(ctx, plus_scaled_self(ctx, args, outer, type));
}

// addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
//   (the batch of products summed)
RuleResult aten_addbmm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string products = ctx.emit("MatMul", {args.tensor("batch1"), args.tensor("batch2")});
  return emitted(ctx, scaled_sum(ctx, args, ctx.reduce("ReduceSum", products, std::vector<int64_t>{0}, false),
                                 args.dtype_of("batch1")));
}

// linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor; cross(..., int? dim=None) alike.
// a x b = a[i+1] * b[i+2] - a[i+2] * b[i+1] over the 3 entries of `dim` (torch broadcasts a and b).
RuleResult aten_linalg_cross(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = std::max(args.rank_of("self"), args.rank_of("other"));
  std::optional<int64_t> dim = args.optional_int("dim");
  if (!dim) {
    // cross without dim: the first dim of size 3 (torch's deprecated default).
    const std::vector<ir::Dim>& sizes = args.meta("self").sizes;
    for (size_t i = 0; i < sizes.size() && !dim; ++i)
      if (sizes[i].is_static() && sizes[i].as_int() == 3) dim = static_cast<int64_t>(i);
    PT2ONNX_CHECK(dim.has_value(), ErrorCode::kUnsupported, "cross without dim and no dimension of size 3");
  }
  const int64_t d = normalize_dim(*dim, rank) - rank;  // from the end: a and b broadcast from the right
  const std::string a = args.tensor("self"), b = args.tensor("other");
  auto rolled = [&](const std::string& x, int64_t shift) {
    return ctx.emit("Gather", {x, ctx.const_i64s({shift % 3, (shift + 1) % 3, (shift + 2) % 3})}, {Attr("axis", d)});
  };
  const std::string left = ctx.emit("Mul", {rolled(a, 1), rolled(b, 2)});
  const std::string right = ctx.emit("Mul", {rolled(a, 2), rolled(b, 1)});
  return emitted(ctx, ctx.emit("Sub", {left, right}));
}

}  // namespace

void register_linalg_rules(RuleTable& t) {
  t.add("aten.linear.default", aten_linear);
  t.add("aten.matmul.default", aten_matmul);
  t.add("aten.mm.default", aten_matmul);
  t.add("aten.bmm.default", aten_matmul);
  t.add("aten.mv.default", aten_matmul);
  t.add("aten.dot.default", aten_matmul);
  t.add("aten.t.default", aten_t);
  t.add("aten.addmm.default", aten_addmm);
  t.add("aten.baddbmm.default", aten_baddbmm);
  t.add("aten._addmm_activation.default", aten_addmm_activation);
  t.add("aten.mm.dtype", aten_mm_dtype);
  t.add("aten.bmm.dtype", aten_mm_dtype);
  t.add("aten.addmm.dtype", aten_addmm_dtype);
  t.add("aten._euclidean_dist.default", aten_euclidean_dist);
  t.add("aten.einsum.default", aten_einsum);
  t.add("aten._cdist_forward.default", aten_cdist_forward);
  t.add("aten.cdist.default", aten_cdist_forward);  // the default IR's form, same arguments
  t.add("aten._pdist_forward.default", aten_pdist_forward);
  t.add("aten.pdist.default", aten_pdist_forward);
  t.add("aten.addmv.default", aten_addmv);
  t.add("aten.addr.default", aten_addr);
  t.add("aten.addbmm.default", aten_addbmm);
  t.add("aten.linalg_cross.default", aten_linalg_cross);
  t.add("aten.cross.default", aten_linalg_cross);
}

}  // namespace pt2onnx::translate
