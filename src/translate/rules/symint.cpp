// Symbolic number rules: sizes read from tensors (sym_size, sym_numel), item(), and Python
// arithmetic on SymInts/SymFloats/SymBools (_operator.*, torch.sym_*), as 0-D int64/float64/bool
// ONNX values; _operator.getitem.
#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

// A SymInt operand of a Python operator node (positional: a, b).
std::string sym_operand(EmitContext& ctx, const ArgReader& args, size_t i) {
  const auto* s = std::get_if<ir::SymIntArg>(&args.positional(i));
  PT2ONNX_CHECK(s != nullptr, ErrorCode::kUnsupported,
                "operand " + std::to_string(i) + " is not an int (this operator is translated for ints only)");
  return ctx.sym_int(*s);
}

// A Python number operand: a SymInt (0-D int64), SymFloat (0-D float64) or SymBool (0-D bool).
struct Number {
  std::string value;
  ir::DType type;
};

Number number_operand(EmitContext& ctx, const ArgReader& args, size_t i) {
  const ir::Argument& a = args.positional(i);
  if (const auto* s = std::get_if<ir::SymIntArg>(&a)) return {ctx.sym_int(*s), ir::DType::kInt64};
  if (const auto* f = std::get_if<ir::SymFloatArg>(&a)) return {ctx.sym_float(*f), ir::DType::kFloat64};
  if (const auto* b = std::get_if<ir::SymBoolArg>(&a)) return {ctx.sym_bool(*b), ir::DType::kBool};
  fail(ErrorCode::kUnsupported, "operand " + std::to_string(i) + " is not a number");
}

// Python's promotion of two numbers: float if either is, else int (bools count as ints).
ir::DType python_type(const Number& a, const Number& b) {
  return a.type == ir::DType::kFloat64 || b.type == ir::DType::kFloat64 ? ir::DType::kFloat64 : ir::DType::kInt64;
}

std::string as_type(EmitContext& ctx, const Number& n, ir::DType type) {
  return cast_if_needed(ctx, n.value, n.type, type);
}

// sym_size.int(Tensor self, int dim) -> SymInt
RuleResult aten_sym_size_int(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  return emitted(ctx, ctx.size_of(args.tensor_fx("self"), dim));
}

// sym_numel(Tensor self) -> SymInt
RuleResult aten_sym_numel(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Size", {args.tensor("self")}));
}

// a (op) b on Python numbers, in Python's promoted type (int stays int, float is double).
RuleResult python_binary(EmitContext& ctx, const ir::Node& node, std::string_view op) {
  ArgReader args(ctx, node);
  const Number a = number_operand(ctx, args, 0);
  const Number b = number_operand(ctx, args, 1);
  const ir::DType type = python_type(a, b);
  return emitted(ctx, ctx.emit(op, {as_type(ctx, a, type), as_type(ctx, b, type)}));
}

// _operator.add(a, b) / sub / mul on ints and floats
RuleResult operator_add(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "Add"); }
RuleResult operator_sub(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "Sub"); }
RuleResult operator_mul(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "Mul"); }
// torch.sym_max(a, b) / torch.sym_min(a, b)
RuleResult sym_max(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "Max"); }
RuleResult sym_min(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "Min"); }

// _operator.floordiv(a, b): Python floor division
RuleResult operator_floordiv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, int_floor_div(ctx, sym_operand(ctx, args, 0), sym_operand(ctx, args, 1)));
}

// _operator.mod(a, b): Python modulo (sign of the divisor)
RuleResult operator_mod(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Mod", {sym_operand(ctx, args, 0), sym_operand(ctx, args, 1)}, {Attr("fmod", 0)}));
}

// _operator.truediv(a, b): Python true division, always a float
RuleResult operator_truediv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string a = as_type(ctx, number_operand(ctx, args, 0), ir::DType::kFloat64);
  const std::string b = as_type(ctx, number_operand(ctx, args, 1), ir::DType::kFloat64);
  return emitted(ctx, ctx.emit("Div", {a, b}));
}

// _operator.neg(a)
RuleResult operator_neg(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Number a = number_operand(ctx, args, 0);
  return emitted(ctx, ctx.emit("Neg", {as_type(ctx, a, python_type(a, a))}));
}

// _operator.pos(a)
RuleResult operator_pos(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, number_operand(ctx, args, 0).value);
}

// torch.sym_float(a): a number as a float
RuleResult torch_sym_float(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, as_type(ctx, number_operand(ctx, args, 0), ir::DType::kFloat64));
}

// torch.sym_ite(b, t, f): t if b else f
RuleResult torch_sym_ite(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Number b = number_operand(ctx, args, 0);
  const Number t = number_operand(ctx, args, 1);
  const Number f = number_operand(ctx, args, 2);
  const ir::DType type = t.type == f.type ? t.type : python_type(t, f);
  return emitted(ctx, ctx.emit("Where", {as_type(ctx, b, ir::DType::kBool), as_type(ctx, t, type), as_type(ctx, f, type)}));
}

// torch.sym_sum(args: SymInt[]) -> SymInt
RuleResult sym_sum(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto* list = std::get_if<ir::SymIntListArg>(&args.positional(0));
  PT2ONNX_CHECK(list != nullptr, ErrorCode::kUnsupported, "sym_sum of something other than an int list");
  std::string total = ctx.const_i64(0);
  for (size_t i = 0; i < list->items.size(); ++i) {
    const std::string item = ctx.sym_int(list->items[i]);
    total = i == 0 ? item : ctx.emit("Add", {total, item});
  }
  return emitted(ctx, total);
}

// _operator.gt(a, b) / ge / lt / le / eq / ne on numbers: a SymBool, as a 0-D bool value (the
// predicate of a cond that compares symbolic sizes).
RuleResult operator_gt(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "Greater"); }
RuleResult operator_ge(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "GreaterOrEqual"); }
RuleResult operator_lt(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "Less"); }
RuleResult operator_le(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "LessOrEqual"); }
RuleResult operator_eq(EmitContext& ctx, const ir::Node& node) { return python_binary(ctx, node, "Equal"); }
RuleResult operator_ne(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Number a = number_operand(ctx, args, 0);
  const Number b = number_operand(ctx, args, 1);
  const ir::DType type = python_type(a, b);
  return emitted(ctx, ctx.emit("Not", {ctx.emit("Equal", {as_type(ctx, a, type), as_type(ctx, b, type)})}));
}

// _operator.getitem(a, b): an element of a tensor list
RuleResult operator_getitem(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto* list = std::get_if<ir::TensorListArg>(&args.positional(0));
  const auto* index = std::get_if<ir::SymIntArg>(&args.positional(1));
  PT2ONNX_CHECK(list != nullptr && index != nullptr && std::holds_alternative<int64_t>(index->v), ErrorCode::kUnsupported,
                "getitem of something other than a tensor list with a constant index");
  const auto n = static_cast<int64_t>(list->names.size());
  int64_t i = std::get<int64_t>(index->v);
  if (i < 0) i += n;
  PT2ONNX_CHECK(i >= 0 && i < n, ErrorCode::kUnsupported, "getitem index out of range");
  return emitted(ctx, ctx.value_of(list->names[static_cast<size_t>(i)]));
}

// _local_scalar_dense(Tensor self) -> Scalar (item()): the element as a 0-D value of the Python
// number the output is: a SymInt as int64, a SymFloat as float64 (exact for every float dtype),
// a SymBool as bool.
RuleResult aten_local_scalar_dense(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const ir::Argument& out = node.outputs.at(0);
  const ir::DType to = std::holds_alternative<ir::SymFloatArg>(out)  ? ir::DType::kFloat64
                       : std::holds_alternative<ir::SymBoolArg>(out) ? ir::DType::kBool
                                                                      : ir::DType::kInt64;
  PT2ONNX_CHECK(std::holds_alternative<ir::SymIntArg>(out) || to != ir::DType::kInt64, ErrorCode::kUnsupported,
                "item() whose result is not an int, float or bool");
  const std::string scalar = ctx.reshape(args.tensor("self"), ctx.const_i64s({}));
  return emitted(ctx, cast_if_needed(ctx, scalar, args.dtype_of("self"), to));
}

}  // namespace

void register_symint_rules(RuleTable& t) {
  t.add("aten.sym_size.int", aten_sym_size_int);
  t.add("aten.sym_numel.default", aten_sym_numel);
  t.add("_operator.add", operator_add);
  t.add("_operator.sub", operator_sub);
  t.add("_operator.mul", operator_mul);
  t.add("_operator.floordiv", operator_floordiv);
  t.add("_operator.mod", operator_mod);
  t.add("_operator.truediv", operator_truediv);
  t.add("_operator.neg", operator_neg);
  t.add("_operator.pos", operator_pos);
  t.add("torch.sym_max", sym_max);
  t.add("torch.sym_min", sym_min);
  t.add("torch.sym_sum", sym_sum);
  t.add("torch.sym_float", torch_sym_float);
  t.add("torch.sym_ite", torch_sym_ite);
  t.add("_operator.gt", operator_gt);
  t.add("_operator.ge", operator_ge);
  t.add("_operator.lt", operator_lt);
  t.add("_operator.le", operator_le);
  t.add("_operator.eq", operator_eq);
  t.add("_operator.ne", operator_ne);
  t.add("_operator.getitem", operator_getitem);
  t.add("aten._local_scalar_dense.default", aten_local_scalar_dense);
  t.add("aten.item.default", aten_local_scalar_dense);
}

}  // namespace pt2onnx::translate
