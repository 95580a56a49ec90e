// Random draws that need a loop: _standard_gamma (Marsaglia and Tsang's rejection method, with
// the u^(1/alpha) boost below alpha = 1) and _sample_dirichlet (normalized gamma draws), binomial
// (counting successes over the largest count), and poisson (for rates below 10, counting exponential
// inter-arrival times up to the rate; from 10 on, Hoermann's transformed rejection with squeeze,
// PTRS, the method torch uses there). Each is an ONNX Loop that draws a fresh candidate for every
// element per round and keeps the first one accepted, until every element has one, so the result
// has the exact distribution (no round limit that would truncate it). Computed in float64, cast to
// the input's type. As with the other random rules, the runtime's generator is not torch's: the
// converted model matches torch in distribution, never value for value.
#include "translate/rules/register_all.h"

#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "translate/arg_reader.h"
#include "translate/onnx_types.h"
#include "translate/rule_helpers.h"
#include "translate/subgraph_body.h"

namespace pt2onnx::translate {
namespace {

using ir::DType;

// The nodes of a Loop body built by hand; constants come from the outer graph (a subgraph reads
// outer values by name).
struct Body {
  // A Loop body named after `base` with its iteration number and condition declared.
  Body(EmitContext& c, const std::string& base) : ctx(c) {
    graph.set_name(ctx.fresh_name(base));
    iteration = add_scalar_input(ctx, graph, "i", DType::kInt64);
    condition = add_scalar_input(ctx, graph, "cond", DType::kBool);
  }
  EmitContext& ctx;
  onnx::GraphProto graph;
  std::string iteration, condition;
  std::string op(const std::string& op_type, const std::vector<std::string>& inputs, const std::vector<Attr>& attrs = {}) {
    return append_body_node(ctx, graph, op_type, inputs, attrs);
  }
  std::string c(double v) { return ctx.const_scalar(v, DType::kFloat64); }
  std::string draw(const char* kind, const std::string& like) {
    return op(std::string("Random") + kind + "Like", {like}, {Attr("dtype", int64_t{onnx_dtype(DType::kFloat64)})});
  }
  // Whether some element of bool `done` is still false: the loop's condition, a 0-D bool (an
  // empty tensor reduces to the lowest int32, so it ends at once).
  std::string any_left(const std::string& done) {
    const std::string left = op("Cast", {op("Not", {done})}, {Attr("to", int64_t{onnx_dtype(DType::kInt32)})});
    return op("Greater", {op("ReduceMax", {op("Reshape", {left, ctx.const_i64s({-1})})}, {Attr("keepdims", int64_t{0})}),
                          ctx.const_scalar(0, DType::kInt32)});
  }
};

// The same condition outside the loop: some element of `done` is false.
std::string any_left(EmitContext& ctx, const std::string& done) {
  return ctx.emit("Greater", {ctx.reduce("ReduceMax", ctx.cast(ctx.emit("Not", {done}), DType::kInt32), std::nullopt, false),
                              ctx.const_scalar(0, DType::kInt32)});
}

// A candidate for every element and whether it is accepted, drawn in body `b` for elements shaped
// like `like`.
using Round = std::function<std::pair<std::string, std::string>(Body& b)>;

// Rejection sampling: rounds of `round` until every element not already `done` (a bool of the
// element shape) has an accepted candidate; elements done from the start keep 0.
std::string rejection_loop(EmitContext& ctx, const std::string& like, const std::string& done, const Round& round) {
  Body b(ctx, "rejection_round");
  const std::string value_in = add_typed_input(ctx, b.graph, "value", DType::kFloat64);
  const std::string done_in = add_typed_input(ctx, b.graph, "done", DType::kBool);
  const auto [candidate, accepted] = round(b);
  const std::string take = b.op("And", {b.op("Not", {done_in}), accepted});
  const std::string value = b.op("Where", {take, candidate, value_in});
  const std::string now_done = b.op("Or", {done_in, accepted});
  add_typed_output(b.graph, b.any_left(now_done), DType::kBool, true);
  add_typed_output(b.graph, value, DType::kFloat64);
  add_typed_output(b.graph, now_done, DType::kBool);
  const std::string zeros = ctx.emit("Mul", {like, ctx.const_scalar(0, DType::kFloat64)});
  return ctx.emit("Loop", {"", any_left(ctx, done), zeros, done}, {Attr("body", std::move(b.graph))}, 2)[0];
}

// Marsaglia and Tsang: with d = alpha - 1/3 and c = 1 / sqrt(9 d), v = (1 + c x)^3 for a normal x
// is accepted when v > 0 and log u < x^2 / 2 + d - d v + d log v; the draw is d v. Below alpha = 1
// the draw for alpha + 1 is scaled by u^(1/alpha).
// Gamma(alpha, 1) draws of float64 `alpha`, at least `least`.
std::string gamma_draws(EmitContext& ctx, const std::string& alpha, double least) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string boost = ctx.emit("Less", {alpha, c(1)});
  const std::string shape = ctx.emit("Where", {boost, ctx.emit("Add", {alpha, c(1)}), alpha});
  const std::string d = ctx.emit("Sub", {shape, c(1.0 / 3.0)});
  const std::string cc = ctx.emit("Reciprocal", {ctx.emit("Sqrt", {ctx.emit("Mul", {d, c(9)})})});
  // No round could accept a negative, infinite or NaN shape: those are done from the start (an
  // infinite shape gives inf, the others torch's floor below, as its kernel does).
  const std::string infinite = ctx.emit("IsInf", {alpha});
  const std::string none = ctx.emit("Or", {ctx.emit("Not", {ctx.emit("GreaterOrEqual", {alpha, c(0)})}), infinite});
  std::string value = rejection_loop(ctx, alpha, none, [&](Body& b) {
    const std::string x = b.draw("Normal", alpha), u = b.draw("Uniform", alpha);
    const std::string base = b.op("Add", {b.c(1), b.op("Mul", {cc, x})});
    const std::string v = b.op("Mul", {b.op("Mul", {base, base}), base});
    const std::string bound = b.op("Add", {b.op("Add", {b.op("Mul", {b.c(0.5), b.op("Mul", {x, x})}), d}),
                                           b.op("Mul", {d, b.op("Sub", {b.op("Log", {v}), v})})});
    const std::string ok = b.op("And", {b.op("Greater", {v, b.c(0)}), b.op("Less", {b.op("Log", {u}), bound})});
    return std::pair{b.op("Mul", {d, v}), ok};
  });
  const std::string u = ctx.emit("RandomUniformLike", {alpha}, {Attr("dtype", int64_t{onnx_dtype(DType::kFloat64)})});
  value = ctx.emit("Mul", {value, ctx.emit("Where", {boost, ctx.emit("Pow", {u, ctx.emit("Reciprocal", {alpha})}), c(1)})});
  value = ctx.emit("Where", {infinite, alpha, ctx.emit("Where", {none, c(0), value})});
  return ctx.emit("Max", {value, c(least)});
}

// torch keeps a gamma draw at least the least normal value of the result type.
double least_normal(DType type) {
  return type == DType::kFloat64 ? 2.2250738585072014e-308 : type == DType::kFloat16 ? 6.103515625e-05 : 1.1754943508222875e-38;
}

RuleResult aten_standard_gamma(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "_standard_gamma of a " + std::string(ir::dtype_name(type)) + " tensor");
  const std::string alpha = cast_if_needed(ctx, args.tensor("self"), type, DType::kFloat64);
  return emitted(ctx, cast_if_needed(ctx, gamma_draws(ctx, alpha, least_normal(type)), DType::kFloat64, type));
}

// _sample_dirichlet(Tensor self, Generator? generator=None) -> Tensor: gamma draws of the
// concentrations normalized over the last dim.
RuleResult aten_sample_dirichlet(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "_sample_dirichlet of a " + std::string(ir::dtype_name(type)) + " tensor");
  const std::string g = gamma_draws(ctx, cast_if_needed(ctx, args.tensor("self"), type, DType::kFloat64), least_normal(type));
  const std::string total = ctx.reduce("ReduceSum", g, std::vector<int64_t>{-1}, true);
  return emitted(ctx, cast_if_needed(ctx, ctx.emit("Div", {g, total}), DType::kFloat64, type));
}

// binomial(Tensor count, Tensor prob, Generator? generator=None) -> Tensor: the successes among
// count Bernoulli(prob) trials, by a Loop over the largest count (exact; its time grows with it).
RuleResult aten_binomial(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("count");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "binomial of a " + std::string(ir::dtype_name(type)) + " count");
  const std::string count = cast_if_needed(ctx, args.tensor("count"), type, DType::kFloat64);
  const std::string prob = cast_if_needed(ctx, args.tensor("prob"), args.dtype_of("prob"), DType::kFloat64);
  const std::string shaped = ctx.emit("Add", {ctx.emit("Mul", {count, ctx.const_scalar(0, DType::kFloat64)}),
                                              ctx.emit("Mul", {prob, ctx.const_scalar(0, DType::kFloat64)})});
  Body b(ctx, "binomial_trial");
  const std::string k_in = add_typed_input(ctx, b.graph, "successes", DType::kFloat64);
  const std::string trial = b.op("Cast", {b.iteration}, {Attr("to", int64_t{onnx_dtype(DType::kFloat64)})});
  const std::string success = b.op("And", {b.op("Less", {trial, count}), b.op("Less", {b.draw("Uniform", shaped), prob})});
  const std::string k = b.op("Add", {k_in, b.op("Cast", {success}, {Attr("to", int64_t{onnx_dtype(DType::kFloat64)})})});
  add_typed_output(b.graph, b.op("Identity", {b.condition}), DType::kBool, true);
  add_typed_output(b.graph, k, DType::kFloat64);
  // The trip count: the largest count (0 for no elements; the concat keeps ReduceMax off an empty set).
  const std::string flat = ctx.reshape(ctx.emit("Max", {count, ctx.const_scalar(0, DType::kFloat64)}), ctx.const_i64s({-1}));
  const std::string most = ctx.reduce("ReduceMax", ctx.concat({flat, ctx.unsqueeze(ctx.const_scalar(0, DType::kFloat64), {0})}, 0),
                                      std::nullopt, false);
  const std::string trips = ctx.cast(ctx.emit("Ceil", {most}), DType::kInt64);
  const std::string drawn = ctx.emit("Loop", {trips, "", shaped}, {Attr("body", std::move(b.graph))}, 1)[0];
  return emitted(ctx, cast_if_needed(ctx, drawn, DType::kFloat64, type));
}

// log Gamma(x) for x >= 1 in float64: Stirling's series at x + 6 (error below 1e-10), shifted back.
std::string log_gamma_from_one(Body& b, const std::string& x) {
  const std::string z = b.op("Add", {x, b.c(6)});
  const std::string inv = b.op("Reciprocal", {z}), inv2 = b.op("Mul", {inv, inv});
  std::string series = b.c(-1.0 / 1680.0);
  for (double coefficient : {1.0 / 1260.0, -1.0 / 360.0, 1.0 / 12.0}) series = b.op("Add", {b.op("Mul", {series, inv2}), b.c(coefficient)});
  const std::string stirling = b.op("Add", {b.op("Sub", {b.op("Mul", {b.op("Sub", {z, b.c(0.5)}), b.op("Log", {z})}), z}),
                                            b.op("Add", {b.c(0.5 * std::log(2 * std::numbers::pi)), b.op("Mul", {series, inv})})});
  std::string product = x;
  for (int k = 1; k < 6; ++k) product = b.op("Mul", {product, b.op("Add", {x, b.c(k)})});
  return b.op("Sub", {stirling, b.op("Log", {product})});
}

// Poisson draws for rates below 10: the number of unit-rate exponential inter-arrival times whose
// sum stays within the rate. Elements with other rates are done from the start (count 0).
std::string poisson_by_counting(EmitContext& ctx, const std::string& rate, const std::string& done) {
  Body b(ctx, "poisson_arrival");
  const std::string count_in = add_typed_input(ctx, b.graph, "count", DType::kFloat64);
  const std::string time_in = add_typed_input(ctx, b.graph, "time", DType::kFloat64);
  const std::string done_in = add_typed_input(ctx, b.graph, "done", DType::kBool);
  const std::string wait = b.op("Neg", {b.op("Log", {b.op("Sub", {b.c(1), b.draw("Uniform", rate)})})});
  const std::string time = b.op("Add", {time_in, wait});
  const std::string arrived = b.op("And", {b.op("Not", {done_in}), b.op("LessOrEqual", {time, rate})});
  const std::string count = b.op("Add", {count_in, b.op("Cast", {arrived}, {Attr("to", int64_t{onnx_dtype(DType::kFloat64)})})});
  const std::string now_done = b.op("Not", {arrived});
  add_typed_output(b.graph, b.any_left(now_done), DType::kBool, true);
  add_typed_output(b.graph, count, DType::kFloat64);
  add_typed_output(b.graph, time, DType::kFloat64);
  add_typed_output(b.graph, now_done, DType::kBool);
  const std::string zeros = ctx.emit("Mul", {rate, ctx.const_scalar(0, DType::kFloat64)});
  return ctx.emit("Loop", {"", any_left(ctx, done), zeros, zeros, done}, {Attr("body", std::move(b.graph))}, 3)[0];
}

// Poisson draws for rates from 10 on by PTRS (Hoermann 1993): with b = 0.931 + 2.53 sqrt(rate),
// a = -0.059 + 0.02483 b, u uniform in (-1/2, 1/2), v uniform, us = 1/2 - |u|, the candidate
// k = floor((2a / us + b) u + rate + 0.43) is accepted at once when us >= 0.07 and v <= v_r, else
// when k >= 0, not (us < 0.013 and v > us), and log(v inv_alpha / (a / us^2 + b)) <= -rate +
// k log(rate) - log Gamma(k + 1). Elements with smaller rates are done from the start.
std::string poisson_by_ptrs(EmitContext& ctx, const std::string& rate, const std::string& done) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string bb = ctx.emit("Add", {c(0.931), ctx.emit("Mul", {c(2.53), ctx.emit("Sqrt", {rate})})});
  const std::string aa = ctx.emit("Add", {c(-0.059), ctx.emit("Mul", {c(0.02483), bb})});
  const std::string inv_alpha = ctx.emit("Add", {c(1.1239), ctx.emit("Div", {c(1.1328), ctx.emit("Sub", {bb, c(3.4)})})});
  const std::string v_r = ctx.emit("Sub", {c(0.9277), ctx.emit("Div", {c(3.6224), ctx.emit("Sub", {bb, c(2)})})});
  const std::string log_rate = ctx.emit("Log", {rate});
  return rejection_loop(ctx, rate, done, [&](Body& b) {
    const std::string u = b.op("Sub", {b.draw("Uniform", rate), b.c(0.5)}), v = b.draw("Uniform", rate);
    const std::string us = b.op("Sub", {b.c(0.5), b.op("Abs", {u})});
    const std::string k = b.op("Floor", {b.op("Add", {b.op("Mul", {b.op("Add", {b.op("Div", {b.op("Mul", {b.c(2), aa}), us}), bb}), u}),
                                                      b.op("Add", {rate, b.c(0.43)})})});
    const std::string natural = b.op("GreaterOrEqual", {k, b.c(0)});
    const std::string quick = b.op("And", {natural, b.op("And", {b.op("GreaterOrEqual", {us, b.c(0.07)}), b.op("LessOrEqual", {v, v_r})})});
    const std::string squeezed_out = b.op("And", {b.op("Less", {us, b.c(0.013)}), b.op("Greater", {v, us})});
    const std::string lhs = b.op("Log", {b.op("Div", {b.op("Mul", {v, inv_alpha}), b.op("Add", {b.op("Div", {aa, b.op("Mul", {us, us})}), bb})})});
    const std::string k_safe = b.op("Max", {k, b.c(0)});
    const std::string rhs = b.op("Sub", {b.op("Sub", {b.op("Mul", {k_safe, log_rate}), rate}), log_gamma_from_one(b, b.op("Add", {k_safe, b.c(1)}))});
    const std::string full = b.op("And", {b.op("And", {natural, b.op("Not", {squeezed_out})}), b.op("LessOrEqual", {lhs, rhs})});
    return std::pair{k, b.op("Or", {quick, full})};
  });
}

// poisson(Tensor self, Generator? generator=None) -> Tensor: a draw for each rate, in self's type;
// rate 0 gives 0 (torch refuses negative and NaN rates; here they give 0 and NaN, inf gives inf).
RuleResult aten_poisson(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "poisson of a " + std::string(ir::dtype_name(type)) + " tensor");
  const std::string rate = cast_if_needed(ctx, args.tensor("self"), type, DType::kFloat64);
  // An infinite rate would never be accepted: it is left out of both loops and gives inf.
  const std::string finite = ctx.emit("Not", {ctx.emit("IsInf", {rate})});
  const std::string large = ctx.emit("And", {finite, ctx.emit("GreaterOrEqual", {rate, ctx.const_scalar(10, DType::kFloat64)})});
  const std::string small = ctx.emit("Less", {rate, ctx.const_scalar(10, DType::kFloat64)});
  const std::string counted = poisson_by_counting(ctx, rate, ctx.emit("Not", {small}));
  const std::string rejected = poisson_by_ptrs(ctx, rate, ctx.emit("Not", {large}));
  std::string value = ctx.emit("Where", {large, rejected, counted});
  value = ctx.emit("Where", {ctx.emit("And", {finite, ctx.emit("Equal", {rate, rate})}), value, rate});  // inf and NaN stay
  return emitted(ctx, cast_if_needed(ctx, value, DType::kFloat64, type));
}

}  // namespace

void register_random_loop_rules(RuleTable& t) {
  t.add("aten._standard_gamma.default", aten_standard_gamma);
  t.add("aten.poisson.default", aten_poisson);
  t.add("aten._sample_dirichlet.default", aten_sample_dirichlet);
  t.add("aten.binomial.default", aten_binomial);
}

}  // namespace pt2onnx::translate
