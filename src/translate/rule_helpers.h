// Helpers shared by the rule families: dim normalisation, operand promotion, result binding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "translate/arg_reader.h"
#include "translate/emit_context.h"
#include "translate/rule_table.h"

namespace pt2onnx::translate {

// Binds `value` to output 0 and reports success: the last line of most rules.
inline RuleResult emitted(EmitContext& ctx, const std::string& value) {
  ctx.set_output(0, value);
  return RuleResult::kEmitted;
}

// A dim in [-rank, rank) made non-negative; throws Error(kUnsupported) when out of range.
int64_t normalize_dim(int64_t dim, int64_t rank);
std::vector<int64_t> normalize_dims(const std::vector<int64_t>& dims, int64_t rank);

// `x` cast to `to` unless it has that type already (`from` kUnknown: always cast).
std::string cast_if_needed(EmitContext& ctx, const std::string& x, ir::DType from, ir::DType to);

// The node's result dtype from its output meta, else `fallback`.
ir::DType result_dtype(const ArgReader& args, ir::DType fallback);

// dtype of a tensor or Scalar argument as torch sees it for promotion: a tensor's own dtype; a
// Python float reads kFloat64-category (promotes ints to the default float), an int kInt64, a bool kBool.
ir::DType operand_dtype(const ArgReader& args, const std::string& name);

// A tensor or Scalar argument as a value of `type`: tensors are cast when their dtype differs,
// static scalars become cached constants of `type`.
std::string operand_as(EmitContext& ctx, const ArgReader& args, const std::string& name, ir::DType type);

// Rank of a tensor or Scalar argument (a Scalar is 0-d).
inline int64_t operand_rank(const ArgReader& args, const std::string& name) { return args.is_tensor(name) ? args.rank_of(name) : 0; }

// torch.result_type of several tensor/Scalar arguments (absent or None ones skipped): dimensioned
// tensors outrank 0-dim tensors, which outrank Scalars, unless a lower group is of a higher
// category (a float Scalar with an int tensor gives float32, the default dtype).
ir::DType torch_result_type(const ArgReader& args, const std::vector<std::string>& names);

// 1-D int64 value of the sizes of `axes` of an FX tensor: constants where tensor_values has a
// static size, Shape gathers where it is symbolic.
std::string sizes_value(EmitContext& ctx, const std::string& fx_name, const std::vector<int64_t>& axes);

// C's atan2(y, x) of two values of floating `type`, through every quadrant, signed zeros,
// infinities and NaNs (ONNX has no Atan2). Defined with the elementwise rules.
std::string atan2_values(EmitContext& ctx, std::string y, std::string x, ir::DType type);

// The ord-norm of `x` (of floating `type`) over `axes` (nullopt: all): ord 0 counts nonzeros, +-inf
// is the max/min magnitude. Defined with the reduction rules.
std::string vector_norm(EmitContext& ctx, const std::string& x, double ord, const std::optional<std::vector<int64_t>>& axes,
                        bool keepdim, ir::DType type);
// C's trunc of floating `x` (toward zero; ONNX has no Trunc): sign(x) floor(|x|). Defined with the
// elementwise rules.
std::string trunc_values(EmitContext& ctx, const std::string& x);
// torch.linspace's `steps` values from `start` to `end` (0-D values of floating `compute`), step
// and both halves computed as torch's kernel does. Defined with the creation rules.
std::string linspace_between(EmitContext& ctx, const std::string& start, const std::string& end, int64_t steps, ir::DType compute);
// A loss's `reduction` (0 none, 1 mean, 2 sum) applied to its elementwise values.
std::string reduce_loss(EmitContext& ctx, const std::string& loss, int64_t reduction);
// Python floor division of two integer values, exact for either sign: (a - a mod b) / b.
std::string int_floor_div(EmitContext& ctx, const std::string& a, const std::string& b);

}  // namespace pt2onnx::translate
