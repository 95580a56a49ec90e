// EmitContext's symbolic ints: SymInt arguments, SymInt lists and sympy expressions over input
// dimensions become int64 arithmetic on Shape values. Nothing symbolic is ever folded to a constant.
#include <optional>
#include <utility>

#include "common/error.h"
#include "translate/emit_context.h"

namespace pt2onnx::translate {

namespace {

bool is_symbol(const ir::SymExpr& e, const std::string& symbol) {
  return e && e->op == ir::SymOp::kSymbol && e->name == symbol;
}

bool is_symbol(const ir::Dim& d, const std::string& symbol) { return !d.is_static() && is_symbol(d.as_expr(), symbol); }

// How to get `symbol` back from a dimension whose size is `k*symbol` or `symbol + c`.
struct Inverse {
  int64_t factor = 1;  // size = factor * symbol + offset
  int64_t offset = 0;
};

std::optional<Inverse> invert(const ir::Dim& d, const std::string& symbol) {
  if (d.is_static() || !d.as_expr()) return std::nullopt;
  const ir::SymExpr& e = d.as_expr();
  if (e->args.size() != 2) return std::nullopt;
  const ir::SymExpr& a = e->args[0];
  const ir::SymExpr& b = e->args[1];
  const ir::SymExpr& constant = a->op == ir::SymOp::kInt ? a : b;
  const ir::SymExpr& other = a->op == ir::SymOp::kInt ? b : a;
  if (constant->op != ir::SymOp::kInt || !is_symbol(other, symbol)) return std::nullopt;
  if (e->op == ir::SymOp::kMul && constant->value > 0) return Inverse{constant->value, 0};
  if (e->op == ir::SymOp::kAdd) return Inverse{1, constant->value};
  return std::nullopt;
}

}  // namespace

std::string EmitContext::dim_param(const ir::SymExpr& expr) const { return ir::to_string(expr); }

std::string EmitContext::symbol_value(const std::string& symbol) {
  auto it = symbols_.find(symbol);
  if (it != symbols_.end() && visible_here(it->second)) return it->second;
  // A subgraph reads the value its parent computes (before the node that holds the subgraph);
  // a function body finds it in the shapes of its own inputs.
  std::string value = parent_ && !isolated_ ? parent_->symbol_value(symbol) : symbol_from_inputs(symbol);
  symbols_[symbol] = value;
  pin(value);  // cached: must keep its name
  return value;
}

std::string EmitContext::symbol_from_inputs(const std::string& symbol) {
  // The program's user inputs, or every input of a function body.
  std::vector<const ir::Argument*> inputs;
  if (parent_) {
    for (const ir::Argument& arg : fx_graph_->inputs) inputs.push_back(&arg);
  } else {
    for (const ir::InputSpec& spec : program_.signature.inputs)
      if (spec.kind == ir::InputKind::kUserInput) inputs.push_back(&spec.arg);
  }
  std::string value;
  std::optional<std::pair<std::string, Inverse>> derived;  // a dim that is k*symbol or symbol + c
  for (const ir::Argument* arg : inputs) {
    if (const auto* t = std::get_if<ir::TensorArg>(arg)) {
      const ir::TensorMeta* m = meta(t->name);
      if (!m) continue;
      for (size_t axis = 0; axis < m->sizes.size() && value.empty(); ++axis) {
        if (is_symbol(m->sizes[axis], symbol)) value = dim_of(value_of(t->name), static_cast<int64_t>(axis));
        else if (auto inverse = invert(m->sizes[axis], symbol); inverse && !derived)
          derived.emplace(dim_of(value_of(t->name), static_cast<int64_t>(axis)), *inverse);
      }
    } else if (const auto* s = std::get_if<ir::SymIntArg>(arg)) {
      const auto* name = std::get_if<std::string>(&s->v);
      if (!name) continue;
      auto sym = fx_graph_->sym_int_values.find(*name);
      if (sym != fx_graph_->sym_int_values.end() && is_symbol(sym->second, symbol)) value = value_of(*name);
    }
    if (!value.empty()) break;
  }
  if (value.empty() && derived) {
    // symbol = (size - offset) / factor, exact by construction.
    const auto& [size, inverse] = *derived;
    value = inverse.offset == 0 ? size : emit("Sub", {size, const_i64(inverse.offset)});
    if (inverse.factor != 1) value = emit("Div", {value, const_i64(inverse.factor)});
  }
  PT2ONNX_CHECK(!value.empty(), ErrorCode::kUnsupported,
                "symbol " + symbol + " is not a dimension of any " + (parent_ ? "input of the subgraph" : "user input") +
                    ", so its value cannot be computed");
  return value;
}

std::string EmitContext::sym_expr(const ir::SymExpr& expr) {
  PT2ONNX_CHECK(expr != nullptr, ErrorCode::kInternal, "empty symbolic expression");
  if (expr->op == ir::SymOp::kInt) return const_i64(expr->value);
  if (expr->op == ir::SymOp::kSymbol) return symbol_value(expr->name);
  const std::string key = ir::to_string(expr);
  auto cached = sym_exprs_.find(key);
  if (cached != sym_exprs_.end() && visible_here(cached->second)) return cached->second;

  std::vector<std::string> args;
  for (const auto& a : expr->args) args.push_back(sym_expr(a));
  auto fold = [&](std::string_view op) {
    PT2ONNX_CHECK(!args.empty(), ErrorCode::kInternal, "n-ary symbolic op without operands in " + key);
    std::string acc = args.front();
    for (size_t i = 1; i < args.size(); ++i) acc = emit(op, {acc, args[i]});
    return acc;
  };
  auto binary_args = [&] {
    PT2ONNX_CHECK(args.size() == 2, ErrorCode::kInternal, "binary symbolic op needs two operands in " + key);
  };
  // Python floor division on ints, exact for either sign: (a - a mod b) / b.
  auto floor_div = [&](const std::string& a, const std::string& b) {
    const std::string rem = emit("Mod", {a, b}, {Attr("fmod", 0)});
    return emit("Div", {emit("Sub", {a, rem}), b});
  };

  std::string value;
  switch (expr->op) {
    case ir::SymOp::kAdd: value = fold("Add"); break;
    case ir::SymOp::kMul: value = fold("Mul"); break;
    case ir::SymOp::kMax: value = args.size() == 1 ? args.front() : emit("Max", args); break;
    case ir::SymOp::kMin: value = args.size() == 1 ? args.front() : emit("Min", args); break;
    case ir::SymOp::kNeg: value = emit("Neg", {args.at(0)}); break;
    case ir::SymOp::kMod:
      binary_args();
      value = emit("Mod", {args[0], args[1]}, {Attr("fmod", 0)});
      break;
    case ir::SymOp::kFloorDiv:
      binary_args();
      value = floor_div(args[0], args[1]);
      break;
    case ir::SymOp::kCeilDiv:  // ceil(a / b) = -((-a) // b)
      binary_args();
      value = emit("Neg", {floor_div(emit("Neg", {args[0]}), args[1])});
      break;
    case ir::SymOp::kPow: {
      binary_args();
      const ir::SymExpr& exponent = expr->args[1];
      PT2ONNX_CHECK(exponent->op == ir::SymOp::kInt && exponent->value >= 0, ErrorCode::kUnsupported,
                    "symbolic power with a non-constant or negative exponent: " + key);
      value = const_i64(1);
      for (int64_t i = 0; i < exponent->value; ++i) value = i == 0 ? args[0] : emit("Mul", {value, args[0]});
      break;
    }
    default: fail(ErrorCode::kInternal, "unexpected symbolic op in " + key);
  }
  sym_exprs_[key] = value;
  pin(value);  // cached: must keep its name
  return value;
}

std::string EmitContext::sym_int(const ir::SymIntArg& arg) {
  if (const auto* v = std::get_if<int64_t>(&arg.v)) return const_i64(*v);
  const std::string& name = std::get<std::string>(arg.v);
  if (is_bound(name)) return value_of(name);
  auto it = fx_graph_->sym_int_values.find(name);
  PT2ONNX_CHECK(it != fx_graph_->sym_int_values.end(), ErrorCode::kInternal,
                "symbolic int '" + name + "' is neither produced by a node nor described in sym_int_values");
  if (it->second.is_static()) return const_i64(it->second.as_int());
  return sym_expr(it->second.as_expr());
}

std::string EmitContext::sym_ints(const std::vector<ir::SymIntArg>& items) {
  std::vector<std::string> pieces;
  std::vector<int64_t> run;  // consecutive static items, emitted as one constant
  for (const auto& item : items) {
    if (const auto* v = std::get_if<int64_t>(&item.v)) {
      run.push_back(*v);
      continue;
    }
    if (!run.empty()) pieces.push_back(const_i64s(run));
    run.clear();
    pieces.push_back(unsqueeze(sym_int(item), {0}));
  }
  if (!run.empty() || pieces.empty()) pieces.push_back(const_i64s(run));
  return concat(pieces, 0);
}

std::string EmitContext::sym_float(const ir::SymFloatArg& arg) {
  if (const auto* v = std::get_if<double>(&arg.v)) return const_scalar(*v, ir::DType::kFloat64);
  const std::string& name = std::get<std::string>(arg.v);
  PT2ONNX_CHECK(is_bound(name), ErrorCode::kUnsupported,
                "symbolic float '" + name + "' is not produced by a node of the graph (a float expression over "
                "input sizes is not supported)");
  return value_of(name);
}

std::string EmitContext::sym_bool(const ir::SymBoolArg& arg) {
  if (const auto* v = std::get_if<bool>(&arg.v)) return const_bool(*v);
  const std::string& name = std::get<std::string>(arg.v);
  PT2ONNX_CHECK(is_bound(name), ErrorCode::kUnsupported,
                "symbolic bool '" + name + "' is not produced by a node of the graph");
  return value_of(name);
}

}  // namespace pt2onnx::translate
