// Renaming symbols (user dim names): in expressions, in every place a program keeps them.
#include <doctest/doctest.h>

#include "ir/program.h"
#include "ir/rename_symbols.h"

using namespace pt2onnx::ir;

namespace {

Dim sym(const std::string& text) { return Dim{parse_sym_expr(text)}; }
std::string text(const Dim& d) { return d.is_static() ? std::to_string(d.as_int()) : to_string(d.as_expr()); }

}  // namespace

TEST_CASE("rename_symbols replaces whole symbols in expressions and keeps the rest") {
  const std::map<std::string, std::string> names{{"s0", "batch"}, {"s1", "seq"}};
  CHECK(to_string(rename_symbols(parse_sym_expr("2*s0*s1 + 3"), names)) == "2*batch*seq + 3");
  CHECK(to_string(rename_symbols(parse_sym_expr("(s10//2)"), names)) == "(s10//2)");  // s10 is not s1
  CHECK(to_string(rename_symbols(parse_sym_expr("Max(1, s1)"), names)) == "Max(1, seq)");
  const SymExpr untouched = parse_sym_expr("s7 + 1");
  CHECK(rename_symbols(untouched, names) == untouched);  // shared, not copied
}

TEST_CASE("rename_symbols on a program: sizes, strides, SymInts, text values, ranges, nested graphs") {
  Program p;
  p.graph.tensor_values["x"] = TensorMeta{DType::kFloat32, {sym("s0"), Dim{int64_t{16}}}, {Dim{int64_t{16}}, Dim{int64_t{1}}}};
  p.graph.tensor_values["y"] = TensorMeta{DType::kFloat32, {sym("2*s0")}, {Dim{int64_t{1}}}};
  p.graph.sym_int_values["n"] = sym("s0 + s1");
  p.graph.sym_bool_values["b"] = "Eq(s0, s10)";
  p.range_constraints["s0"] = RangeConstraint{2, 64};
  p.range_constraints["s10"] = RangeConstraint{1, std::nullopt};
  auto inner = std::make_shared<Graph>();
  inner->tensor_values["z"] = TensorMeta{DType::kFloat32, {sym("s0")}, {Dim{int64_t{1}}}};
  Node cond;
  cond.target = "higher_order.cond";
  cond.inputs.push_back(NamedArgument{"", GraphArg{"true_graph_0", inner}, false});
  p.graph.nodes.push_back(cond);

  CHECK(program_symbols(p) == std::vector<std::string>{"s0", "s1", "s10"});
  rename_symbols(p, {{"s0", "batch"}});
  CHECK(text(p.graph.tensor_values["x"].sizes[0]) == "batch");
  CHECK(text(p.graph.tensor_values["y"].sizes[0]) == "2*batch");
  CHECK(text(p.graph.sym_int_values["n"]) == "batch + s1");
  CHECK(p.graph.sym_bool_values["b"] == "Eq(batch, s10)");
  CHECK(p.range_constraints.count("s0") == 0);
  CHECK(p.range_constraints["batch"].min == 2);
  CHECK(p.range_constraints["batch"].max == 64);
  CHECK(p.range_constraints.count("s10") == 1);
  const auto& renamed_inner = std::get<GraphArg>(p.graph.nodes[0].inputs[0].arg).graph;
  CHECK(text(renamed_inner->tensor_values.at("z").sizes[0]) == "batch");
  CHECK(text(inner->tensor_values.at("z").sizes[0]) == "s0");  // the shared original is left alone
  CHECK(program_symbols(p) == std::vector<std::string>{"batch", "s1", "s10"});
}
