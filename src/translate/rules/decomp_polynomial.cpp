// The orthogonal polynomials of torch.special at a tensor degree n (truncated to an integer, 0 for
// n < 0): Chebyshev T/U/V/W and their shifted forms, Hermite H/He, Laguerre L, Legendre P. As
// torch computes them: the three-term recurrence in the input's dtype, run by an ONNX Loop up to
// the largest n, each element keeping the term of its own degree; the closed trigonometric forms
// torch switches to for Chebyshev at large n inside (-1, 1); torch's values at the ends +-1.
#include <cmath>
#include <string>
#include <utility>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/subgraph_body.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

enum class Family { kChebyshevT, kChebyshevU, kChebyshevV, kChebyshevW, kHermiteH, kHermiteHe, kLaguerre, kLegendre };

// A body value of `type`; `scalar` declares it 0-d (onnxruntime wants the Loop's iteration
// number and condition shaped).
onnx::ValueInfoProto typed(const std::string& name, DType type, bool scalar = false) {
  onnx::ValueInfoProto info;
  info.set_name(name);
  info.mutable_type()->mutable_tensor_type()->set_elem_type(onnx_dtype(type));
  if (scalar) info.mutable_type()->mutable_tensor_type()->mutable_shape();
  return info;
}

// The polynomial of degree n at y (both broadcast to one shape, y of floating `type`, n int64).
std::string polynomial(EmitContext& ctx, Family family, const std::string& y, const std::string& n, DType type) {
  auto c = [&](double v) { return ctx.const_scalar(v, type); };
  const std::string shape = ctx.shape_of(ctx.emit("Add", {y, ctx.cast(n, type)}));
  const std::string ones = ctx.emit("Expand", {c(1), shape});
  const std::string two_y = ctx.emit("Add", {y, y});
  std::string first;  // degree 1
  switch (family) {
    case Family::kChebyshevT: case Family::kHermiteHe: case Family::kLegendre: first = y; break;
    case Family::kChebyshevU: case Family::kHermiteH: first = two_y; break;
    case Family::kChebyshevV: first = ctx.emit("Sub", {two_y, c(1)}); break;
    case Family::kChebyshevW: first = ctx.emit("Add", {two_y, c(1)}); break;
    case Family::kLaguerre: first = ctx.emit("Sub", {c(1), y}); break;
  }
  first = ctx.emit("Expand", {first, shape});

  // Loop body: (iteration i, cond, p = P_{i}, q = P_{i+1}, result) -> (cond, q, P_{i+2}, result).
  onnx::GraphProto body;
  body.set_name(ctx.fresh_name("polynomial_step"));
  const std::string iter = ctx.fresh_name("i"), cond = ctx.fresh_name("cond"), p = ctx.fresh_name("p"), q = ctx.fresh_name("q"),
                    acc = ctx.fresh_name("result");
  *body.add_input() = typed(iter, DType::kInt64, true);
  *body.add_input() = typed(cond, DType::kBool, true);
  for (const std::string& v : {p, q, acc}) *body.add_input() = typed(v, type);
  auto step = [&](const std::string& op, const std::vector<std::string>& in) { return append_body_node(ctx, body, op, in); };
  const std::string k = append_body_node(ctx, body, "Cast", {step("Add", {iter, ctx.const_i64(1)})},
                                         {Attr("to", static_cast<int64_t>(onnx_dtype(type)))});  // the degree of q
  std::string next;
  switch (family) {
    case Family::kChebyshevT: case Family::kChebyshevU: case Family::kChebyshevV: case Family::kChebyshevW:
      next = step("Sub", {step("Mul", {two_y, q}), p});
      break;
    case Family::kHermiteH:  // k runs 2, 4, ...: H_{m+1} = 2y H_m - 2m H_{m-1}
      next = step("Sub", {step("Mul", {two_y, q}), step("Mul", {step("Add", {k, k}), p})});
      break;
    case Family::kHermiteHe:
      next = step("Sub", {step("Mul", {y, q}), step("Mul", {k, p})});
      break;
    case Family::kLaguerre:  // (((k + (k + 1)) - y) q - k p) / (k + 1)
      next = step("Div", {step("Sub", {step("Mul", {step("Sub", {step("Add", {k, step("Add", {k, c(1)})}), y}), q}), step("Mul", {k, p})}),
                          step("Add", {k, c(1)})});
      break;
    case Family::kLegendre:  // ((k + k + 1) y q - k p) / (k + 1)
      next = step("Div", {step("Sub", {step("Mul", {step("Mul", {step("Add", {step("Add", {k, k}), c(1)}), y}), q}), step("Mul", {k, p})}),
                          step("Add", {k, c(1)})});
      break;
  }
  const std::string degree = step("Add", {iter, ctx.const_i64(2)});
  const std::string kept = step("Where", {step("Equal", {n, degree}), next, acc});
  const std::string cond_out = step("Identity", {cond});
  const std::string q_out = step("Identity", {q});
  *body.add_output() = typed(cond_out, DType::kBool, true);
  *body.add_output() = typed(q_out, type);
  *body.add_output() = typed(next, type);
  *body.add_output() = typed(kept, type);

  const std::string flat_n = ctx.concat({ctx.reshape(n, ctx.const_i64s({-1})), ctx.const_i64s({0})}, 0);  // never empty
  const std::string trips = ctx.emit("Max", {ctx.emit("Sub", {ctx.reduce("ReduceMax", flat_n, std::nullopt, false), ctx.const_i64(1)}),
                                             ctx.const_i64(0)});
  const std::string zeros = ctx.emit("Expand", {c(0), shape});
  const std::vector<std::string> loop = ctx.emit("Loop", {trips, "", ones, first, zeros}, {Attr("body", std::move(body))}, 3);
  std::string value = loop[2];
  auto n_is = [&](int64_t v) { return ctx.emit("Equal", {n, ctx.const_i64(v)}); };
  value = ctx.emit("Where", {n_is(1), first, value});
  value = ctx.emit("Where", {n_is(0), ones, value});
  return value;
}

// torch's overrides for the Chebyshev kinds: the values at y = +-1 and, for n above `closed_from`
// inside (-1, 1), the trigonometric forms.
std::string chebyshev_overrides(EmitContext& ctx, Family family, const std::string& y, const std::string& n, DType type,
                                std::string value) {
  auto c = [&](double v) { return ctx.const_scalar(v, type); };
  const std::string nf = ctx.cast(n, type);
  const std::string even = ctx.emit("Equal", {ctx.emit("Mod", {n, ctx.const_i64(2)}), ctx.const_i64(0)});
  const std::string positive = ctx.emit("Greater", {y, c(0)});
  const std::string two_n_1 = ctx.emit("Add", {ctx.emit("Add", {nf, nf}), c(1)});
  const std::string theta = ctx.emit("Acos", {y});
  const std::string half = ctx.emit("Mul", {theta, c(0.5)});
  auto sign_by_parity = [&](const std::string& v) { return ctx.emit("Where", {even, v, ctx.emit("Neg", {v})}); };
  std::string ends, closed;
  int64_t closed_from = 8;
  switch (family) {
    case Family::kChebyshevT:
      closed_from = 6;
      ends = ctx.emit("Where", {ctx.emit("Or", {positive, even}), c(1), c(-1)});
      closed = ctx.emit("Cos", {ctx.emit("Mul", {nf, theta})});
      break;
    case Family::kChebyshevU: {
      const std::string n1 = ctx.emit("Add", {nf, c(1)});
      ends = ctx.emit("Where", {ctx.emit("Or", {positive, even}), n1, ctx.emit("Neg", {n1})});
      const std::string s = ctx.emit("Sin", {theta});
      const std::string a = ctx.emit("Mul", {n1, theta});
      closed = ctx.emit("Where", {ctx.emit("Not", {ctx.emit("Equal", {s, c(0)})}), ctx.emit("Div", {ctx.emit("Sin", {a}), s}),
                                  ctx.emit("Div", {ctx.emit("Mul", {n1, ctx.emit("Cos", {a})}), y})});
      break;
    }
    case Family::kChebyshevV: {
      ends = ctx.emit("Where", {positive, c(1), sign_by_parity(two_n_1)});
      const std::string a = ctx.emit("Mul", {ctx.emit("Add", {nf, c(0.5)}), theta});
      closed = ctx.emit("Where", {ctx.emit("Not", {ctx.emit("Equal", {ctx.emit("Sin", {half}), c(1)})}),
                                  ctx.emit("Div", {ctx.emit("Cos", {a}), ctx.emit("Cos", {half})}), sign_by_parity(two_n_1)});
      break;
    }
    case Family::kChebyshevW: {
      const std::string at_ends = ctx.emit("Where", {positive, two_n_1, sign_by_parity(c(1))});
      ends = at_ends;
      const std::string a = ctx.emit("Mul", {ctx.emit("Add", {nf, c(0.5)}), theta});
      closed = ctx.emit("Where", {ctx.emit("Not", {ctx.emit("Equal", {ctx.emit("Cos", {half}), c(1)})}),
                                  ctx.emit("Div", {ctx.emit("Sin", {a}), ctx.emit("Sin", {half})}), at_ends});
      break;
    }
    default: return value;
  }
  const std::string magnitude = ctx.emit("Abs", {y});
  const std::string inside = ctx.emit("And", {ctx.emit("Greater", {n, ctx.const_i64(closed_from)}), ctx.emit("Less", {magnitude, c(1)})});
  value = ctx.emit("Where", {inside, closed, value});
  return ctx.emit("Where", {ctx.emit("Equal", {magnitude, c(1)}), ends, value});
}

// special_<family>_polynomial_<kind>(Tensor x, Tensor n) -> Tensor, and the .x_scalar (Scalar x)
// and .n_scalar (Scalar n) forms; `shifted`: at 2x - 1.
RuleResult polynomial_rule(EmitContext& ctx, const ir::Node& node, Family family, bool shifted) {
  ArgReader args(ctx, node);
  const DType type = result_dtype(args, DType::kFloat32);
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "a special polynomial of a non-floating result");
  std::string y = operand_as(ctx, args, "x", type);
  if (shifted) y = ctx.emit("Sub", {ctx.emit("Add", {y, y}), ctx.const_scalar(1, type)});
  // n truncated to an integer, as torch's cast of a float degree.
  const std::string n = args.is_tensor("n") ? cast_if_needed(ctx, args.tensor("n"), args.dtype_of("n"), DType::kInt64)
                                            : ctx.cast(args.scalar("n", DType::kFloat64), DType::kInt64);
  std::string value = polynomial(ctx, family, y, n, type);
  value = chebyshev_overrides(ctx, family, y, n, type, value);
  if (family == Family::kLaguerre) value = ctx.emit("Where", {ctx.emit("Equal", {y, ctx.const_scalar(0, type)}), ctx.const_scalar(1, type), value});
  if (family == Family::kLegendre) {
    const std::string even = ctx.emit("Equal", {ctx.emit("Mod", {n, ctx.const_i64(2)}), ctx.const_i64(0)});
    const std::string ends = ctx.emit("Where", {ctx.emit("Or", {ctx.emit("Greater", {y, ctx.const_scalar(0, type)}), even}),
                                                ctx.const_scalar(1, type), ctx.const_scalar(-1, type)});
    value = ctx.emit("Where", {ctx.emit("Equal", {ctx.emit("Abs", {y}), ctx.const_scalar(1, type)}), ends, value});
  }
  value = ctx.emit("Where", {ctx.emit("Less", {n, ctx.const_i64(0)}), ctx.const_scalar(0, type), value});
  return emitted(ctx, value);
}

template <Family F, bool Shifted>
RuleResult rule(EmitContext& ctx, const ir::Node& node) {
  return polynomial_rule(ctx, node, F, Shifted);
}

}  // namespace

void register_decomp_polynomial_rules(RuleTable& t) {
  // Loop is opset 1, but its body's outer-scope reads and Mod on int64 need 10; 13 keeps it simple.
  const std::pair<const char*, RuleFn> families[] = {
      {"aten.special_chebyshev_polynomial_t", rule<Family::kChebyshevT, false>},
      {"aten.special_chebyshev_polynomial_u", rule<Family::kChebyshevU, false>},
      {"aten.special_chebyshev_polynomial_v", rule<Family::kChebyshevV, false>},
      {"aten.special_chebyshev_polynomial_w", rule<Family::kChebyshevW, false>},
      {"aten.special_shifted_chebyshev_polynomial_t", rule<Family::kChebyshevT, true>},
      {"aten.special_shifted_chebyshev_polynomial_u", rule<Family::kChebyshevU, true>},
      {"aten.special_shifted_chebyshev_polynomial_v", rule<Family::kChebyshevV, true>},
      {"aten.special_shifted_chebyshev_polynomial_w", rule<Family::kChebyshevW, true>},
      {"aten.special_hermite_polynomial_h", rule<Family::kHermiteH, false>},
      {"aten.special_hermite_polynomial_he", rule<Family::kHermiteHe, false>},
      {"aten.special_laguerre_polynomial_l", rule<Family::kLaguerre, false>},
      {"aten.special_legendre_polynomial_p", rule<Family::kLegendre, false>},
  };
  for (const auto& [name, fn] : families)
    for (const char* overload : {".default", ".x_scalar", ".n_scalar"}) t.add(std::string(name) + overload, fn);
}

}  // namespace pt2onnx::translate
