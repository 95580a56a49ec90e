// Helpers shared by the rule families.
#include "translate/rule_helpers.h"

#include "common/error.h"
#include "translate/onnx_types.h"

namespace pt2onnx::translate {

int64_t normalize_dim(int64_t dim, int64_t rank) {
  const int64_t bound = rank == 0 ? 1 : rank;  // torch lets a 0-d tensor use dim 0 / -1
  PT2ONNX_CHECK(dim >= -bound && dim < bound, ErrorCode::kUnsupported,
                "dim " + std::to_string(dim) + " is out of range for a tensor of rank " + std::to_string(rank));
  return dim < 0 ? dim + bound : dim;
}

std::vector<int64_t> normalize_dims(const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(dims.size());
  for (int64_t d : dims) out.push_back(normalize_dim(d, rank));
  return out;
}

std::string cast_if_needed(EmitContext& ctx, const std::string& x, ir::DType from, ir::DType to) {
  if (from == to || to == ir::DType::kUnknown) return x;
  return ctx.cast(x, to);
}

ir::DType result_dtype(const ArgReader& args, ir::DType fallback) {
  const ir::DType out = args.out_dtype(0);
  return out == ir::DType::kUnknown ? fallback : out;
}

ir::DType operand_dtype(const ArgReader& args, const std::string& name) {
  const ir::Argument& a = args.arg(name);
  if (std::holds_alternative<ir::TensorArg>(a)) return args.dtype_of(name);
  if (std::holds_alternative<ir::SymFloatArg>(a)) return ir::DType::kFloat64;
  if (std::holds_alternative<ir::SymBoolArg>(a)) return ir::DType::kBool;
  return ir::DType::kInt64;
}

std::string operand_as(EmitContext& ctx, const ArgReader& args, const std::string& name, ir::DType type) {
  if (args.is_tensor(name)) return cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), type);
  return args.scalar(name, type);
}

namespace {
// torch's combine_categories: the higher-priority group's type wins unless the lower group is of a
// higher category (a float lower group lifts an int or bool higher group; an int lifts a bool).
ir::DType combine_categories(ir::DType higher, ir::DType lower) {
  if (is_floating(higher) || is_complex(higher)) return higher;
  if (higher == ir::DType::kBool || is_floating(lower) || is_complex(lower)) return promote_types(higher, lower);
  return higher != ir::DType::kUnknown ? higher : lower;
}
}  // namespace

ir::DType torch_result_type(const ArgReader& args, const std::vector<std::string>& names) {
  ir::DType dimensioned = ir::DType::kUnknown, zero_dim = ir::DType::kUnknown, wrapped = ir::DType::kUnknown;
  for (const auto& name : names) {
    if (!args.has(name)) continue;
    if (args.is_tensor(name)) {
      ir::DType& group = args.rank_of(name) == 0 ? zero_dim : dimensioned;
      group = promote_types(group, args.dtype_of(name));
    } else {
      const ir::DType t = operand_dtype(args, name);
      // A Python float takes the default dtype.
      wrapped = promote_types(wrapped, is_floating(t) ? ir::DType::kFloat32 : t);
    }
  }
  return combine_categories(dimensioned, combine_categories(zero_dim, wrapped));
}

std::string sizes_value(EmitContext& ctx, const std::string& fx_name, const std::vector<int64_t>& axes) {
  const ir::TensorMeta* m = ctx.meta(fx_name);
  std::vector<std::string> pieces;
  std::vector<int64_t> run;
  for (int64_t axis : axes) {
    if (m && axis < static_cast<int64_t>(m->sizes.size()) && m->sizes[axis].is_static()) {
      run.push_back(m->sizes[axis].as_int());
      continue;
    }
    if (!run.empty()) pieces.push_back(ctx.const_i64s(run));
    run.clear();
    pieces.push_back(ctx.unsqueeze(ctx.dim_of(ctx.value_of(fx_name), axis), {0}));
  }
  if (!run.empty() || pieces.empty()) pieces.push_back(ctx.const_i64s(run));
  return ctx.concat(pieces, 0);
}

std::string int_floor_div(EmitContext& ctx, const std::string& a, const std::string& b) {
  const std::string rem = ctx.emit("Mod", {a, b}, {Attr("fmod", 0)});
  return ctx.emit("Div", {ctx.emit("Sub", {a, rem}), b});
}

}  // namespace pt2onnx::translate
