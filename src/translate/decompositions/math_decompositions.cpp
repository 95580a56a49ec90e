// Math composites the default IR keeps, written as the aten ops torch's _refs use: hypot as
// sqrt(a*a + b*b), dist as the vector norm of a - b, vdot of real vectors as the sum of their
// product, count_nonzero as the sum of x != 0.
#include "common/error.h"
#include "translate/decompositions/aten_builder.h"
#include "translate/decompositions/register_decompositions.h"
#include "translate/onnx_types.h"

namespace pt2onnx::translate {

namespace {

RuleResult result(AtenBuilder& b, const std::string& value) {
  b.set_output(0, value);
  return RuleResult::kEmitted;
}

// hypot(Tensor self, Tensor other) -> Tensor
RuleResult hypot(AtenBuilder& b, const NodeArgs& args) {
  const std::string &x = args.tensor_fx("self"), &y = args.tensor_fx("other");
  const std::string xx = b.mul(x, x);  // in this order: argument evaluation order is unspecified
  const std::string yy = b.mul(y, y);
  return result(b, b.sqrt(b.add(xx, yy)));
}

// dist(Tensor self, Tensor other, Scalar p=2) -> Tensor: the p-norm of self - other, all elements.
RuleResult dist(AtenBuilder& b, const NodeArgs& args) {
  const double p = args.has("p") ? args.scalar_number("p") : 2.0;
  return result(b, b.vector_norm(b.sub(args.tensor_fx("self"), args.tensor_fx("other")), p));
}

// vdot(Tensor self, Tensor other) -> Tensor: sum(self * other) of real vectors, in their dtype
// (complex ones would take the conjugate of self).
RuleResult vdot(AtenBuilder& b, const NodeArgs& args) {
  if (is_complex(args.dtype_of("self")) || is_complex(args.dtype_of("other"))) return RuleResult::kDeclined;
  const ir::DType type = b.output_meta(0).dtype;
  return result(b, b.sum(b.mul(args.tensor_fx("self"), args.tensor_fx("other")), std::nullopt, false, type));
}

// count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor; count_nonzero.default(Tensor self,
// int? dim=None): int64 counts (a bool tensor is its own nonzero mask).
RuleResult count_nonzero(AtenBuilder& b, const NodeArgs& args) {
  if (is_complex(args.dtype_of("self"))) return RuleResult::kDeclined;
  const std::string& x = args.tensor_fx("self");
  std::optional<std::vector<int64_t>> dims;
  if (args.has("dim")) dims = args.ints("dim");
  if (dims && dims->empty()) dims.reset();  // count_nonzero's empty list is every dim
  const std::string mask = args.dtype_of("self") == ir::DType::kBool ? x : b.ne_zero(x);
  return result(b, b.sum(mask, dims, false, ir::DType::kInt64));
}

}  // namespace

void register_math_decompositions(RuleTable& t) {
  t.add_decomposition("aten.hypot.default", hypot);
  t.add_decomposition("aten.dist.default", dist);
  t.add_decomposition("aten.vdot.default", vdot, "vdot of complex vectors (the conjugate of self)");
  t.add_decomposition("aten.count_nonzero.dim_IntList", count_nonzero, "count_nonzero of complex values");
  t.add_decomposition("aten.count_nonzero.default", count_nonzero, "count_nonzero of complex values");
}

}  // namespace pt2onnx::translate
