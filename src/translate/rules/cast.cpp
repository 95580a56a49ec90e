// Cast rules: to/_to_copy/type_as become Cast to the node's output dtype, or nothing when the
// dtype does not change (device and memory format mean nothing in ONNX).
#include <string>

#include "common/error.h"
#include "ir/dtype.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// Casts `self` to `target`, or passes it through when it has that dtype already.
RuleResult cast_self(EmitContext& ctx, const ArgReader& args, DType target) {
  return emitted(ctx, cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), target));
}

// _to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, ...) -> Tensor;
// to.dtype(Tensor(a) self, ScalarType dtype, ...), to.dtype_layout(...), to.device(self, Device device, ScalarType dtype, ...)
RuleResult aten_to_copy(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType requested = args.dtype("dtype").value_or(args.dtype_of("self"));
  return cast_self(ctx, args, result_dtype(args, requested));
}

// to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, ...) -> Tensor(a);
// type_as(Tensor self, Tensor other) -> Tensor
RuleResult aten_type_as(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return cast_self(ctx, args, result_dtype(args, args.dtype_of("other")));
}

// view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a); view_copy.dtype alike: the same bytes
// read as another dtype. ONNX has no bit reinterpretation below opset 26 (BitCast), so only the
// views whose values a Cast gives exactly convert: the same dtype, and integers of one width
// changing signedness (Cast wraps modulo 2^bits, as two's complement reads the bytes). Others
// are refused by name.
RuleResult aten_view_dtype(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType from = args.dtype_of("self"), to = args.dtype("dtype").value_or(from);
  const bool same_width_ints = is_integral(from) && is_integral(to) && ir::dtype_size(from) == ir::dtype_size(to);
  PT2ONNX_CHECK(from == to || same_width_ints, ErrorCode::kUnsupported,
                "view of " + std::string(ir::dtype_name(from)) + " bytes as " + std::string(ir::dtype_name(to)) +
                    " (a bit reinterpretation ONNX expresses only from opset 26's BitCast, which pt2onnx does not emit)");
  return cast_self(ctx, args, to);
}

}  // namespace

void register_cast_rules(RuleTable& t) {
  t.add("aten._to_copy.default", aten_to_copy);
  t.add("aten.to.dtype", aten_to_copy);
  t.add("aten.to.dtype_layout", aten_to_copy);
  t.add("aten.to.device", aten_to_copy);
  t.add("aten.to.other", aten_type_as);
  t.add("aten.type_as.default", aten_type_as);
  t.add("aten.view.dtype", aten_view_dtype);
  t.add("aten.view_copy.dtype", aten_view_dtype);
}

}  // namespace pt2onnx::translate
