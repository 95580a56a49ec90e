// Codegen rules for pointwise ops. Most are one row of kPointwise: a C expression template over
// the operands ($0, $1, ... in the compute type) and attribute holes ($alpha, $beta, filled with
// the attribute or its ONNX default as a float literal), the result dtype, and whether a GEMM
// may compute the op as its epilogue. Ops whose expression depends on more than their operand
// dtype (Gelu's form, Pow's exponent, variadic Max/Sum, optional Clip bounds, Cast) have rules
// of their own below the table, with the same epilogue flag.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

namespace {

using onnx::TensorProto;
using Args = std::vector<std::string>;

enum class Result { kLikeFirst, kBool };  // the first operand's dtype, or bool

struct AttrDefault {
  const char* name = nullptr;
  float value = 0;
};

struct PointwiseRow {
  const char* op;
  const char* expr;      // for float operands (and for all operands when int_expr is null)
  const char* int_expr;  // for integer/bool operands when it differs; "" = float operands only
  Result result;
  bool epilogue;
  std::array<AttrDefault, 2> attrs{};
};

constexpr const char* kFloatOnly = "";

// clang-format off
const PointwiseRow kPointwise[] = {
  // op             expression                                          integer form           result             epilogue
  {"Exp",           "expf($0)",                                          kFloatOnly,            Result::kLikeFirst, true},
  {"Log",           "logf($0)",                                          kFloatOnly,            Result::kLikeFirst, false},
  {"Sqrt",          "sqrtf($0)",                                         kFloatOnly,            Result::kLikeFirst, true},
  {"Sigmoid",       "p2_sigmoid($0)",                                    kFloatOnly,            Result::kLikeFirst, true},
  {"Tanh",          "tanhf($0)",                                         kFloatOnly,            Result::kLikeFirst, true},
  {"Erf",           "erff($0)",                                          kFloatOnly,            Result::kLikeFirst, true},
  {"Sin",           "sinf($0)",                                          kFloatOnly,            Result::kLikeFirst, false},
  {"Cos",           "cosf($0)",                                          kFloatOnly,            Result::kLikeFirst, false},
  {"Tan",           "tanf($0)",                                          kFloatOnly,            Result::kLikeFirst, false},
  {"Asin",          "asinf($0)",                                         kFloatOnly,            Result::kLikeFirst, false},
  {"Acos",          "acosf($0)",                                         kFloatOnly,            Result::kLikeFirst, false},
  {"Atan",          "atanf($0)",                                         kFloatOnly,            Result::kLikeFirst, false},
  {"Sinh",          "sinhf($0)",                                         kFloatOnly,            Result::kLikeFirst, false},
  {"Cosh",          "coshf($0)",                                         kFloatOnly,            Result::kLikeFirst, false},
  {"Floor",         "floorf($0)",                                        kFloatOnly,            Result::kLikeFirst, false},
  {"Ceil",          "ceilf($0)",                                         kFloatOnly,            Result::kLikeFirst, false},
  {"Round",         "rintf($0)",                                         kFloatOnly,            Result::kLikeFirst, false},
  {"Reciprocal",    "1.0f / ($0)",                                       kFloatOnly,            Result::kLikeFirst, true},
  {"Neg",           "(-$0)",                                             nullptr,               Result::kLikeFirst, true},
  {"Abs",           "fabsf($0)",                                         "($0 < 0 ? -$0 : $0)", Result::kLikeFirst, true},
  {"Relu",          "fmaxf($0, 0.0f)",                                   "p2_max($0, 0LL)",     Result::kLikeFirst, true},
  {"LeakyRelu",     "($0 >= 0.0f ? $0 : $alpha * $0)",                   nullptr,               Result::kLikeFirst, true, {{{"alpha", 0.01f}}}},
  {"Elu",           "($0 >= 0.0f ? $0 : $alpha * expm1f($0))",           nullptr,               Result::kLikeFirst, true, {{{"alpha", 1.0f}}}},
  {"Softplus",      "($0 > 20.0f ? $0 : log1pf(expf($0)))",              nullptr,               Result::kLikeFirst, true},
  {"HardSigmoid",   "fmaxf(0.0f, fminf(1.0f, $alpha * $0 + $beta))",     nullptr,               Result::kLikeFirst, true, {{{"alpha", 0.2f}, {"beta", 0.5f}}}},
  // HardSwish has no attributes: x * HardSigmoid(x) with alpha 1/6, beta 1/2.
  {"HardSwish",     "$0 * fmaxf(0.0f, fminf(1.0f, $alpha * $0 + $beta))", nullptr,              Result::kLikeFirst, true, {{{"", 1.0f / 6}, {"", 0.5f}}}},
  {"Sign",          "($0 > 0.0f ? 1 : ($0 < 0.0f ? -1 : 0))",            "($0 > 0LL ? 1 : ($0 < 0LL ? -1 : 0))", Result::kLikeFirst, false},
  {"Not",           "(!$0)",                                             nullptr,               Result::kBool,      false},
  {"IsNaN",         "isnan($0)",                                         nullptr,               Result::kBool,      false},
  {"Add",           "($0 + $1)",                                         nullptr,               Result::kLikeFirst, true},
  {"Sub",           "($0 - $1)",                                         nullptr,               Result::kLikeFirst, true},
  {"Mul",           "($0 * $1)",                                         nullptr,               Result::kLikeFirst, true},
  {"Div",           "($0 / $1)",                                         nullptr,               Result::kLikeFirst, true},
  {"PRelu",         "($0 < 0.0f ? $0 * $1 : $0)",                        nullptr,               Result::kLikeFirst, false},
  {"Equal",         "($0 == $1)",                                        nullptr,               Result::kBool,      false},
  {"Less",          "($0 < $1)",                                         nullptr,               Result::kBool,      false},
  {"LessOrEqual",   "($0 <= $1)",                                        nullptr,               Result::kBool,      false},
  {"Greater",       "($0 > $1)",                                         nullptr,               Result::kBool,      false},
  {"GreaterOrEqual", "($0 >= $1)",                                       nullptr,               Result::kBool,      false},
  {"And",           "($0 && $1)",                                        nullptr,               Result::kBool,      false},
  {"Or",            "($0 || $1)",                                        nullptr,               Result::kBool,      false},
  {"Xor",           "($0 != $1)",                                        nullptr,               Result::kBool,      false},
};
// clang-format on

const PointwiseRow& row_of(const std::string& op) {
  static const std::map<std::string, const PointwiseRow*> index = [] {
    std::map<std::string, const PointwiseRow*> m;
    for (const auto& r : kPointwise) m[r.op] = &r;
    return m;
  }();
  return *index.at(op);
}

// Number of operand holes of a template: one past the highest $N.
size_t arity(const std::string& t) {
  size_t n = 0;
  for (size_t i = 0; i + 1 < t.size(); ++i)
    if (t[i] == '$' && t[i + 1] >= '0' && t[i + 1] <= '9') n = std::max<size_t>(n, static_cast<size_t>(t[i + 1] - '0') + 1);
  return n;
}

// The template with operand and attribute holes filled.
std::string fill(const std::string& t, const Args& a, const std::map<std::string, std::string>& attrs) {
  std::string r;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '$') {
      r += t[i];
      continue;
    }
    if (i + 1 < t.size() && t[i + 1] >= '0' && t[i + 1] <= '9') {
      r += a[static_cast<size_t>(t[++i] - '0')];
      continue;
    }
    size_t j = i + 1;
    while (j < t.size() && std::isalpha(static_cast<unsigned char>(t[j]))) ++j;
    r += attrs.at(t.substr(i + 1, j - i - 1));
    i = j - 1;
  }
  return r;
}

// Add/Sub/Mul/Div of known integer tensors (shape arithmetic) stay known.
void fold_known_ints(OpContext& ctx) {
  const std::string op = ctx.op();
  const Value& x = ctx.value(ctx.input(0));
  const Value& y = ctx.value(ctx.input(1));
  if (!(x.ints && y.ints && !x.ints->empty() && !y.ints->empty())) return;
  const size_t n = std::max(x.ints->size(), y.ints->size());
  if (!((x.ints->size() == 1 || x.ints->size() == n) && (y.ints->size() == 1 || y.ints->size() == n))) return;
  std::vector<SymExpr> r;
  for (size_t i = 0; i < n; ++i) {
    const SymExpr a = (*x.ints)[x.ints->size() == 1 ? 0 : i], b = (*y.ints)[y.ints->size() == 1 ? 0 : i];
    using ir::SymOp;
    if (op == "Add") r.push_back(ir::sym_apply(SymOp::kAdd, {a, b}));
    else if (op == "Sub") r.push_back(ir::sym_apply(SymOp::kAdd, {a, ir::sym_apply(SymOp::kNeg, {b})}));
    else if (op == "Mul") r.push_back(ir::sym_apply(SymOp::kMul, {a, b}));
    else r.push_back(divide_exact(a, b));  // shape values are non-negative
  }
  Value& v = ctx.value(ctx.out);
  v.ints = r;
  v.load = known_ints_loader(r, v.shape);
}

void table_rule(OpContext& ctx) {
  const PointwiseRow& row = row_of(ctx.op());
  const Args ins = ctx.inputs();
  const int d0 = ins.empty() || ins[0].empty() ? 0 : ctx.value(ins[0]).dtype;
  const bool f = is_float_dtype(d0);
  std::string t = row.expr;
  if (!f && row.int_expr != nullptr) {
    if (*row.int_expr == '\0') ctx.unsupported("non-float input");
    t = row.int_expr;
  }
  std::map<std::string, std::string> attrs;
  const char* hole[] = {"alpha", "beta"};
  for (size_t k = 0; k < row.attrs.size(); ++k)
    if (row.attrs[k].name != nullptr)
      attrs[hole[k]] = float_literal(*row.attrs[k].name ? ctx.attr_float(row.attrs[k].name, row.attrs[k].value) : row.attrs[k].value);
  const Args operands(ins.begin(), ins.begin() + static_cast<std::ptrdiff_t>(arity(t)));
  ctx.pointwise(operands, row.result == Result::kBool ? TensorProto::BOOL : d0,
                [t, attrs](const Args& a) { return fill(t, a, attrs); });
  const std::string& op = ctx.op();
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") fold_known_ints(ctx);
}

int first_dtype(OpContext& ctx) { return ctx.input(0).empty() ? 0 : ctx.value(ctx.input(0)).dtype; }

void gelu(OpContext& ctx) {
  if (!is_float_dtype(first_dtype(ctx))) ctx.unsupported("non-float input");
  const std::string fn = ctx.attr_string("approximate", "none") == "tanh" ? "p2_gelu_tanh" : "p2_gelu";
  ctx.pointwise({ctx.input(0)}, first_dtype(ctx), [fn](const Args& a) { return fn + "(" + a[0] + ")"; });
}

void power(OpContext& ctx) {
  const int d0 = first_dtype(ctx);
  const auto e = ctx.known_float(ctx.input(1));
  if (e && *e == 2.0) ctx.pointwise({ctx.input(0)}, d0, [](const Args& a) { return a[0] + " * " + a[0]; });
  else if (e && *e == 1.0) ctx.pointwise({ctx.input(0)}, d0, [](const Args& a) { return a[0]; });
  else if (e && *e == 0.5) ctx.pointwise({ctx.input(0)}, d0, [](const Args& a) { return "sqrtf(" + a[0] + ")"; });
  else {
    if (!is_float_dtype(d0)) ctx.unsupported("integer power");
    const int d1 = ctx.value(ctx.input(1)).dtype;
    ctx.pointwise({ctx.input(0), ctx.input(1)}, d0,
                  [d1](const Args& a) { return "powf(" + a[0] + ", " + convert(a[1], d1, TensorProto::FLOAT) + ")"; });
  }
}

// Max, Min, Sum, Mean over any number of operands.
void variadic(OpContext& ctx) {
  const std::string op = ctx.op();
  const bool f = is_float_dtype(first_dtype(ctx));
  const std::string fn = op == "Max" ? (f ? "fmaxf" : "p2_max") : (f ? "fminf" : "p2_min");
  const Args ins = ctx.inputs();
  const size_t n = ins.size();
  ctx.pointwise(ins, first_dtype(ctx), [op, fn, n](const Args& a) {
    std::string r = a[0];
    for (size_t i = 1; i < a.size(); ++i) r = (op == "Max" || op == "Min") ? fn + "(" + r + ", " + a[i] + ")" : "(" + r + " + " + a[i] + ")";
    if (op == "Mean") r = r + " / " + std::to_string(n) + ".0f";
    return r;
  });
}

void mod(OpContext& ctx) {
  const bool f = is_float_dtype(first_dtype(ctx));
  if (f && ctx.attr_int("fmod", 0) == 0) ctx.unsupported("float Mod needs fmod=1");
  ctx.pointwise({ctx.input(0), ctx.input(1)}, first_dtype(ctx),
                [f](const Args& a) { return f ? "fmodf(" + a[0] + ", " + a[1] + ")" : "p2_pmod(" + a[0] + ", " + a[1] + ")"; });
}

void where(OpContext& ctx) {
  const int dx = ctx.value(ctx.input(1)).dtype, dy = ctx.value(ctx.input(2)).dtype;
  ctx.pointwise({ctx.input(0), ctx.input(1), ctx.input(2)}, dx,
                [dx, dy](const Args& a) { return "(" + a[0] + " ? " + a[1] + " : " + convert(a[2], dy, dx) + ")"; });
}

void clip(OpContext& ctx) {
  const Args ins = ctx.inputs();
  const bool f = is_float_dtype(first_dtype(ctx));
  Args xs{ins[0]};
  const bool lo = ins.size() > 1 && !ins[1].empty(), hi = ins.size() > 2 && !ins[2].empty();
  if (lo) xs.push_back(ins[1]);
  if (hi) xs.push_back(ins[2]);
  ctx.pointwise(xs, first_dtype(ctx), [lo, hi, f](const Args& a) {
    std::string r = a[0];
    size_t k = 1;
    if (lo) r = std::string(f ? "fmaxf(" : "p2_max(") + r + ", " + a[k++] + ")";
    if (hi) r = std::string(f ? "fminf(" : "p2_min(") + r + ", " + a[k++] + ")";
    return r;
  });
}

// Cast and CastLike round like the stored type, so a cast to fp16 inside a fused chain gives the
// value a stored fp16 would.
void cast(OpContext& ctx) {
  const int d0 = first_dtype(ctx);
  const int to = ctx.op() == "Cast" ? static_cast<int>(ctx.attr_int("to", 0)) : ctx.value(ctx.input(1)).dtype;
  compute_type(to);  // rejects dtypes we do not compute
  if (to == TensorProto::DOUBLE) ctx.unsupported("cast to float64");
  ctx.pointwise({ctx.input(0)}, to, [d0, to](const Args& a) {
    const std::string c = convert(a[0], d0, to);
    if (to == TensorProto::FLOAT16) return "p2_h2f(p2_f2h(" + c + "))";
    if (to == TensorProto::BFLOAT16) return "p2_b2f(p2_f2b(" + c + "))";
    return c;
  });
  if (ctx.value(ctx.input(0)).ints && is_int_dtype(to)) {
    Value& v = ctx.value(ctx.out);
    v.ints = ctx.value(ctx.input(0)).ints;
    v.load = known_ints_loader(*v.ints, v.shape);
  }
}

}  // namespace

void register_pointwise_op_rules(OpRuleTable& t) {
  for (const auto& row : kPointwise) t.add(row.op, table_rule, row.epilogue);
  t.add("Gelu", gelu, true);
  t.add("Pow", power, true);
  t.add("Max", variadic, true);
  t.add("Min", variadic, true);
  t.add("Sum", variadic);
  t.add("Mean", variadic);
  t.add("Mod", mod);
  t.add("Where", where, true);
  t.add("Clip", clip, true);
  t.add("Cast", cast, true);
  t.add("CastLike", cast);
}

}  // namespace pt2onnx::kernels::detail
