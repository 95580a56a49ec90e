// Emitting an ONNX op on values of a dtype its schema may not take. torch computes many ops on
// every dtype (max of bools, ceil of integers, isinf of float16), and ONNX's schemas name the
// types each op takes at each opset: an op emitted on a type its schema leaves out is an invalid
// file that onnx.checker and onnxruntime refuse. emit_in asks the schema and, where the type is
// not taken, computes the op in the narrowest type it takes that holds every value of the given
// one exactly, or refuses.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "translate/emit_context.h"

namespace pt2onnx::translate {

// The type emit_in computes op_type in for inputs of `type`: nullopt where the schema takes `type`
// (or is not known), else the carrier; refuses as emit_in does. For callers that build the node
// through another helper (EmitContext::reduce) and cast around it themselves.
std::optional<ir::DType> computing_type(const EmitContext& ctx, std::string_view op_type, ir::DType type);

// Refuses (kUnsupported) unless the schema of op_type takes `type` itself: for ops whose result a
// carrier type would change (a convolution's integer arithmetic, a pool's integer division).
void require_takes(const EmitContext& ctx, std::string_view op_type, ir::DType type);

// `x` reduced by `op` (ReduceMax, ReduceSum, ...) through EmitContext::reduce, in a type the op
// takes (computing_type), cast back to `type`.
std::string reduce_in(EmitContext& ctx, std::string_view op, const std::string& x, ir::DType type,
                      const std::optional<std::vector<int64_t>>& axes, bool keepdims);

// Emits op_type(inputs) where `type` is the dtype of the inputs bound to the first input's type
// parameter (the others are passed as they are). Where the schema does not take `type`, those
// inputs are cast to the first type of bool -> int32 -> int64 -> float -> double (integers of up
// to 16 bits from int32, float16 and bfloat16 from float, int32 from int64 or double, float from
// double) that it takes and that holds every value of `type` exactly, and the outputs of the same
// type parameter are cast back (for bool, nonzero is true). Refuses (kUnsupported, naming the op
// and the dtype) where no such type is taken: int64 and double have none.
std::vector<std::string> emit_in(EmitContext& ctx, std::string_view op_type, const std::vector<std::string>& inputs,
                                 ir::DType type, const std::vector<Attr>& attrs, int num_outputs);
std::string emit_in(EmitContext& ctx, std::string_view op_type, const std::vector<std::string>& inputs,
                    ir::DType type, const std::vector<Attr>& attrs = {});

// ScatterElements/ScatterND of `type` data with the given attributes. With a reduction (add,
// mul, max, min) on float16 or bfloat16 data, onnxruntime's CPU provider has no kernel: the file
// is valid, but it cannot run it. Such a scatter runs in float, its data and updates cast and its
// result rounded once: the same values where no two updates meet an element, within a rounding
// of torch's (which rounds each update) where they do.
std::string emit_scatter(EmitContext& ctx, std::string_view op_type, const std::vector<std::string>& inputs, ir::DType type,
                         const std::vector<Attr>& attrs);

// Where(cond, x, y) with x and y of `type`. onnxruntime's CPU provider has no Where kernel for bool
// values (the file would be valid but could not run): those are (cond and x) or (not cond and y),
// which broadcast alike.
std::string emit_where(EmitContext& ctx, const std::string& cond, const std::string& x, const std::string& y, ir::DType type);

}  // namespace pt2onnx::translate
