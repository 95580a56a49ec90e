// Code generation on hand-built functions: launch plans (kernels, grids, argument bindings,
// workspace layout), fusion of pointwise chains into their consumer, symbols, refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/error.h"
#include "function_builder.h"
#include "kernels/codegen.h"
#include "kernels/expr.h"

namespace pt2onnx::kernels {
namespace {

using onnx::TensorProto;
using testing::FunctionBuilder;
using testing::set_int;
using testing::set_ints;
using testing::tensor;

int64_t grid_x(const KernelPlan& p, size_t launch, std::map<std::string, int64_t> syms) {
  return eval_expr(p.launches.at(launch).grid.at(0), syms);
}

TEST_CASE("a pointwise chain becomes one kernel that writes the output") {
  FunctionBuilder f("Chain");
  f.input("x").input("y").output("z");
  f.node("Add", {"x", "y"}, {"a"});
  f.node("Relu", {"a"}, {"r"});
  f.node("Sigmoid", {"r"}, {"z"});
  const KernelPlan p = generate_kernels(f.get(), {tensor(TensorProto::FLOAT, {"s0", "4"}), tensor(TensorProto::FLOAT, {"4"})});
  REQUIRE(p.kernels.size() == 1);
  REQUIRE(p.launches.size() == 1);
  CHECK(p.buffers.empty());
  CHECK(p.kernels[0].computes == "write output z");
  CHECK(grid_x(p, 0, {{"s0", 64}}) == 1);
  CHECK(grid_x(p, 0, {{"s0", 65}}) == 2);
  // Output pointer first, then the inputs it reads, then every symbol.
  const auto& args = p.launches[0].args;
  REQUIRE(args.size() == 4);
  CHECK(args[0].kind == BindingKind::kOutput);
  CHECK(args[0].value == "z");
  CHECK(args[1].kind == BindingKind::kInput);
  CHECK(args[1].value == "x");
  CHECK(args[2].value == "y");
  CHECK(args[3].kind == BindingKind::kInt64);
  CHECK(args[3].value == "s0");
  REQUIRE(p.symbols.size() == 1);
  CHECK(p.symbols[0].input == "x");
  CHECK(p.symbols[0].axis == 0);
  CHECK(p.outputs[0].shape.size() == 2);
  // y is broadcast along the rows: it is read at the column index only.
  CHECK(p.source.find("in1[(p2_t1)]") != std::string::npos);
}

TEST_CASE("MatMul, softmax and a reduction: workspace buffers, aligned offsets, order") {
  FunctionBuilder f("Attn");
  f.input("q").input("k").output("o").output("m");
  auto& t = f.node("Transpose", {"k"}, {"kt"});
  testing::set_ints(t, "perm", {0, 2, 1});
  f.node("MatMul", {"q", "kt"}, {"s"});
  f.node("Softmax", {"s"}, {"p"});
  f.node("MatMul", {"p", "k"}, {"o"});
  f.ints("ax", {-1});
  f.node("ReduceMean", {"o", "ax"}, {"m"});
  // A symbolic head size D: the attention chain is not fused (see the attention tests).
  const KernelPlan p = generate_kernels(f.get(), {tensor(TensorProto::FLOAT, {"B", "S", "D"}),
                                                  tensor(TensorProto::FLOAT, {"B", "S", "D"})});
  REQUIRE(p.kernels.size() == 4);
  CHECK(p.kernels[0].computes == "MatMul -> s");
  CHECK(p.kernels[1].computes == "Softmax -> p");
  CHECK(p.kernels[2].computes == "MatMul -> o");
  CHECK(p.kernels[3].computes == "ReduceMean -> m");
  REQUIRE(p.buffers.size() == 2);  // s and p; o and m are outputs
  const std::map<std::string, int64_t> syms{{"B", 3}, {"S", 5}, {"D", 8}};
  CHECK(eval_expr(to_manifest(p.buffers[0].offset), syms) == 0);
  CHECK(eval_expr(to_manifest(p.buffers[0].bytes), syms) == 3 * 5 * 5 * 4);
  CHECK(eval_expr(to_manifest(p.buffers[1].offset), syms) == 512);
  CHECK(eval_expr(to_manifest(p.workspace_bytes), syms) == 1024);
  // The GEMM grid: N tiles, M tiles, batch.
  CHECK(eval_expr(p.launches[0].grid[0], syms) == 1);
  CHECK(eval_expr(p.launches[0].grid[2], syms) == 3);
  // Softmax: one block per row.
  CHECK(eval_expr(p.launches[1].grid[0], syms) == 15);
  CHECK(p.launches[1].args[0].kind == BindingKind::kBuffer);
  CHECK(p.launches[1].args[0].value == "ws1");
  CHECK(p.launches[2].args[0].kind == BindingKind::kOutput);
  // A symbolic batch adds a grid-limit precondition.
  REQUIRE(!p.preconditions.empty());
  CHECK(p.preconditions[0] == "B <= 65535");
}

TEST_CASE("views are index arithmetic and fuse into the consumer") {
  FunctionBuilder f("Views");
  f.input("x").output("y");
  auto& t = f.node("Transpose", {"x"}, {"xt"});
  testing::set_ints(t, "perm", {1, 0});
  f.ints("shape", {-1});
  f.node("Reshape", {"xt", "shape"}, {"flat"});
  f.ints("ax", {0});
  f.node("Unsqueeze", {"flat", "ax"}, {"u"});
  f.node("Neg", {"u"}, {"y"});
  const KernelPlan p = generate_kernels(f.get(), {tensor(TensorProto::FLOAT16, {"3", "5"})});
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.outputs[0].dtype == TensorProto::FLOAT16);
  REQUIRE(p.outputs[0].shape.size() == 2);
  CHECK(ir::to_string(p.outputs[0].shape[1]) == "15");
  CHECK(p.source.find("p2_h2f(") != std::string::npos);  // fp16 load as float
  CHECK(p.source.find("p2_f2h(") != std::string::npos);  // and stored back rounded
}

TEST_CASE("a known integer constant with no elements is reduced without reading it") {
  // The op samples' edge shapes: ReduceSum over an empty int64 constant, added to the input.
  FunctionBuilder f("Empty");
  f.input("x").output("y");
  f.ints("none", {});
  f.ints("ax", {0});
  set_int(f.node("ReduceSum", {"none", "ax"}, {"total"}), "keepdims", 0);
  set_int(f.node("Cast", {"total"}, {"totalf"}), "to", TensorProto::FLOAT);
  f.node("Add", {"x", "totalf"}, {"y"});
  const KernelPlan p = generate_kernels(f.get(), {tensor(TensorProto::FLOAT, {"4"})});
  CHECK(!p.kernels.empty());
  CHECK(p.outputs.at(0).shape.size() == 1);
}

TEST_CASE("generation is deterministic") {
  const auto f = testing::every_template(TensorProto::BFLOAT16);
  const auto in = testing::every_template_inputs(TensorProto::BFLOAT16);
  const KernelPlan a = generate_kernels(f, in), b = generate_kernels(f, in);
  CHECK(a.source == b.source);
  CHECK(a.kernels.size() == b.kernels.size());
  CHECK(a.kernels.size() >= 12);
}

TEST_CASE("refusals name the op") {
  FunctionBuilder f("ConvT");
  f.input("x").input("w").output("y");
  f.node("ConvTranspose", {"x", "w"}, {"y"});
  try {
    generate_kernels(f.get(), {tensor(TensorProto::FLOAT, {"1", "3", "8", "8"}), tensor(TensorProto::FLOAT, {"3", "4", "3", "3"})});
    FAIL("ConvTranspose was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(std::string(e.what()).find("op ConvTranspose") != std::string::npos);
  }
  // Conv forms without a template are refused by name and reason.
  FunctionBuilder same("Same");
  same.input("x").input("w").output("y");
  onnx::NodeProto& sn = same.node("Conv", {"x", "w"}, {"y"});
  auto* ap = sn.add_attribute();
  ap->set_name("auto_pad");
  ap->set_type(onnx::AttributeProto::STRING);
  ap->set_s("SAME_UPPER");
  try {
    generate_kernels(same.get(), {tensor(TensorProto::FLOAT, {"1", "3", "8", "8"}), tensor(TensorProto::FLOAT, {"4", "3", "3", "3"})});
    FAIL("auto_pad SAME_UPPER was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("op Conv") != std::string::npos);
    CHECK(std::string(e.what()).find("auto_pad SAME_UPPER") != std::string::npos);
  }
  FunctionBuilder ceil("Ceil");
  ceil.input("x").output("y");
  onnx::NodeProto& cn = ceil.node("MaxPool", {"x"}, {"y"});
  set_ints(cn, "kernel_shape", {2, 2});
  set_ints(cn, "strides", {2, 2});
  set_int(cn, "ceil_mode", 1);
  CHECK_THROWS_WITH_AS(generate_kernels(ceil.get(), {tensor(TensorProto::FLOAT, {"1", "3", "h", "8"})}),
                       doctest::Contains("ceil_mode with a symbolic spatial size"), Error);
  FunctionBuilder g("Dbl");
  g.input("x").output("y");
  g.node("Relu", {"x"}, {"y"});
  CHECK_THROWS_AS(generate_kernels(g.get(), {tensor(TensorProto::DOUBLE, {"4"})}), Error);
  // A symbol that is no input's whole dimension cannot be read by a runtime.
  CHECK_THROWS_AS(generate_kernels(g.get(), {tensor(TensorProto::FLOAT, {"2*s0"})}), Error);
  // Shapes that do not provably broadcast.
  FunctionBuilder h("Bc");
  h.input("a").input("b").output("c");
  h.node("Add", {"a", "b"}, {"c"});
  CHECK_THROWS_AS(generate_kernels(h.get(), {tensor(TensorProto::FLOAT, {"s0"}), tensor(TensorProto::FLOAT, {"s1"})}), Error);
}

TEST_CASE("Conv is one GEMM over a patch view; its output a reshape of the product") {
  // [N, 4, h, w] -> [N, 6, ...], 2 groups, stride 2, padding 1, dilation 2, bias.
  FunctionBuilder f("Conv2");
  f.input("x").input("w").input("b").output("y");
  onnx::NodeProto& n = f.node("Conv", {"x", "w", "b"}, {"c"});
  set_int(n, "group", 2);
  set_ints(n, "strides", {2, 2});
  set_ints(n, "pads", {1, 1, 1, 1});
  set_ints(n, "dilations", {2, 2});
  f.node("Relu", {"c"}, {"y"});
  const KernelPlan p = generate_kernels(f.get(), {tensor(TensorProto::FLOAT, {"2", "4", "h", "w"}),
                                                  tensor(TensorProto::FLOAT, {"6", "2", "3", "3"}),
                                                  tensor(TensorProto::FLOAT, {"6"})});
  REQUIRE(p.kernels.size() == 2);  // the GEMM, then the copy that adds bias and ReLU
  CHECK(p.kernels[0].computes.rfind("Conv -> ", 0) == 0);
  REQUIRE(p.outputs.size() == 1);
  const std::map<std::string, int64_t> syms{{"h", 9}, {"w", 20}};
  // (9 + 2 - 5) // 2 + 1 = 4, (20 + 2 - 5) // 2 + 1 = 9
  CHECK(eval_expr(to_manifest(p.outputs[0].shape[2]), syms) == 4);
  CHECK(eval_expr(to_manifest(p.outputs[0].shape[3]), syms) == 9);
  // Batched over (N, groups): grid.z = 2 * 2; the workspace holds the [2, 2, 3, 36] product.
  CHECK(eval_expr(p.launches[0].grid[2], syms) == 4);
  REQUIRE(p.buffers.size() == 1);
  CHECK(eval_expr(to_manifest(p.buffers[0].bytes), syms) == 2 * 2 * 3 * 36 * 4);
}

TEST_CASE("pooling: one kernel per pooled value; Split outputs are views") {
  FunctionBuilder f("Pool");
  f.input("x").output("m").output("i").output("a").output("s0");
  onnx::NodeProto& mp = f.node("MaxPool", {"x"}, {"m", "i"});
  set_ints(mp, "kernel_shape", {3, 3});
  set_ints(mp, "strides", {2, 2});
  set_ints(mp, "pads", {1, 1, 1, 1});
  onnx::NodeProto& ap = f.node("AveragePool", {"m"}, {"a"});
  set_ints(ap, "kernel_shape", {2, 2});
  set_ints(ap, "strides", {2, 2});
  set_int(ap, "ceil_mode", 1);
  f.ints("sizes", {1, 3});
  onnx::NodeProto& sp = f.node("Split", {"a", "sizes"}, {"s0", "s1"});
  set_int(sp, "axis", 1);
  const KernelPlan p = generate_kernels(f.get(), {tensor(TensorProto::FLOAT, {"1", "4", "9", "9"})});
  REQUIRE(p.outputs.size() == 4);
  CHECK(p.outputs[1].dtype == TensorProto::INT64);
  // 9 -> (9 + 2 - 3) // 2 + 1 = 5 -> ceil((5 - 2) / 2) + 1 = 3; the split takes channel 0.
  CHECK(ir::to_string(p.outputs[0].shape[2]) == "5");
  CHECK(ir::to_string(p.outputs[2].shape[3]) == "3");
  CHECK(ir::to_string(p.outputs[3].shape[1]) == "1");
  // MaxPool's two outputs and AveragePool write the outputs; the split output is a copy.
  CHECK(p.kernels.size() == 4);
  CHECK(p.buffers.empty());
}

}  // namespace
}  // namespace pt2onnx::kernels

namespace pt2onnx::kernels {
namespace {

TEST_CASE("a pointwise chain after a MatMul becomes its epilogue") {
  FunctionBuilder f("Epi");
  f.input("x").input("w").input("b").output("y");
  f.node("MatMul", {"x", "w"}, {"mm"});
  f.node("Add", {"mm", "b"}, {"biased"});
  f.node("Relu", {"biased"}, {"y"});
  const KernelPlan p = generate_kernels(f.get(), {tensor(TensorProto::FLOAT, {"s0", "16"}), tensor(TensorProto::FLOAT, {"16", "8"}),
                                                  tensor(TensorProto::FLOAT, {"8"})});
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.kernels[0].computes == "MatMul -> mm, Add -> biased, Relu -> y");
  CHECK(p.launches[0].args[0].kind == BindingKind::kOutput);
  CHECK(p.buffers.empty());
  // A second reader of the MatMul result keeps it stored: no fusion then.
  FunctionBuilder g("NoEpi");
  g.input("x").input("w").output("y").output("z");
  g.node("MatMul", {"x", "w"}, {"mm"});
  g.node("Relu", {"mm"}, {"y"});
  g.node("Neg", {"mm"}, {"z"});
  const KernelPlan q = generate_kernels(g.get(), {tensor(TensorProto::FLOAT, {"4", "16"}), tensor(TensorProto::FLOAT, {"16", "8"})});
  REQUIRE(q.kernels.size() == 3);
  CHECK(q.kernels[0].computes == "MatMul -> mm");
}

TEST_CASE("calls of other functions of the library are inlined") {
  FunctionBuilder inner("Inner");
  inner.input("a").output("b");
  inner.node("Sigmoid", {"a"}, {"s"});
  inner.node("Mul", {"a", "s"}, {"b"});
  FunctionBuilder outer("Outer");
  outer.input("x").output("y");
  onnx::NodeProto& call = outer.node("Inner", {"x"}, {"t"});
  call.set_domain("pt2onnx.hiera");
  outer.node("Softmax", {"t"}, {"y"});
  const onnx::FunctionProto inner_fn = inner.get();
  const KernelPlan p = generate_kernels(outer.get(), {tensor(TensorProto::FLOAT, {"3", "5"})}, {&inner_fn});
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.kernels[0].computes == "Softmax -> y");
  CHECK(p.source.find("p2_sigmoid") != std::string::npos);  // the callee's body, fused into the softmax loads
  CHECK(p.op_types == std::vector<std::string>{"Mul", "Sigmoid", "Softmax"});
  // Without the library the call is refused, naming the domain.
  CHECK_THROWS_WITH_AS(generate_kernels(outer.get(), {tensor(TensorProto::FLOAT, {"3", "5"})}),
                       doctest::Contains("domain pt2onnx.hiera"), Error);
}

}  // namespace
}  // namespace pt2onnx::kernels

namespace pt2onnx::kernels {
namespace {

// q [B, L, 8], k [B, S, 8], v [B, S, 8]: MatMul(q, k^T) -> [mask] -> Softmax -> [guard] -> MatMul(., v).
FunctionBuilder attention(const std::string& mask, bool guard, int64_t softmax_axis = -1) {
  FunctionBuilder f("Attn");
  f.input("q").input("k").input("v");
  if (mask == "bool" || mask == "float") f.input("mask");
  f.output("o");
  auto& t = f.node("Transpose", {"k"}, {"kt"});
  testing::set_ints(t, "perm", {0, 2, 1});
  f.node("MatMul", {"q", "kt"}, {"s"});
  f.scalar("ninf", -INFINITY);
  f.scalar("zero", 0.0f);
  std::string scores = "s";
  if (mask == "bool") {
    f.node("Where", {"mask", "s", "ninf"}, {"sm"});
    scores = "sm";
  } else if (mask == "float") {
    f.node("Add", {"s", "mask"}, {"sm"});
    scores = "sm";
  } else if (mask == "causal") {
    f.ints("c0", {0}, true);
    f.ints("c1", {1}, true);
    f.ints("ax1", {1});
    f.node("Shape", {"q"}, {"qs"});
    f.node("Shape", {"k"}, {"ks"});
    f.ints("i1", {1});
    f.ints("i2", {2});
    f.ints("a0", {0});
    f.node("Slice", {"qs", "i1", "i2", "a0"}, {"len"});
    f.node("Slice", {"ks", "i1", "i2", "a0"}, {"src"});
    f.node("Range", {"c0", "len", "c1"}, {"r"});
    f.node("Unsqueeze", {"r", "ax1"}, {"rows"});
    f.node("Range", {"c0", "src", "c1"}, {"cols"});
    f.node("LessOrEqual", {"cols", "rows"}, {"ok"});
    f.node("Where", {"ok", "zero", "ninf"}, {"bias"});
    f.node("Add", {"s", "bias"}, {"sm"});
    scores = "sm";
  }
  auto& sm = f.node("Softmax", {scores}, {"w"});
  testing::set_int(sm, "axis", softmax_axis);
  std::string weights = "w";
  if (guard) {
    f.node("Equal", {scores, "ninf"}, {"e"});
    auto& c = f.node("Cast", {"e"}, {"ei"});
    testing::set_int(c, "to", TensorProto::INT32);
    f.ints("ax", {-1});
    f.node("ReduceMin", {"ei", "ax"}, {"mi"});
    auto& c2 = f.node("Cast", {"mi"}, {"all"});
    testing::set_int(c2, "to", TensorProto::BOOL);
    f.node("Where", {"all", "zero", "w"}, {"w0"});
    weights = "w0";
  }
  f.node("MatMul", {weights, "v"}, {"o"});
  return f;
}

std::vector<TensorType> attention_inputs(const std::string& mask, int dtype = TensorProto::FLOAT) {
  std::vector<TensorType> in{tensor(dtype, {"B", "L", "8"}), tensor(dtype, {"B", "S", "8"}), tensor(dtype, {"B", "S", "8"})};
  if (mask == "bool") in.push_back(tensor(TensorProto::BOOL, {"B", "L", "S"}));
  if (mask == "float") in.push_back(tensor(dtype, {"L", "S"}));
  return in;
}

TEST_CASE("attention chains become one kernel without a scores buffer") {
  for (const auto& form : std::vector<std::pair<std::string, bool>>{
           {"none", false}, {"causal", false}, {"bool", true}, {"float", true}}) {
    const std::string mask = form.first;
    const bool guard = form.second;
    CAPTURE(mask);
    const KernelPlan p = generate_kernels(attention(mask, guard).get(), attention_inputs(mask));
    REQUIRE(p.kernels.size() == 1);
    CHECK(p.kernels[0].computes.rfind("attention (MatMul", 0) == 0);
    CHECK(p.buffers.empty());
    CHECK(eval_expr(to_manifest(p.workspace_bytes), {{"B", 2}, {"L", 70}, {"S", 9}}) == 0);
    // One block per (batch entry, 32 query rows).
    CHECK(eval_expr(p.launches[0].grid[0], {{"B", 2}, {"L", 70}, {"S", 9}}) == 2);
    CHECK(eval_expr(p.launches[0].grid[1], {{"B", 2}, {"L", 70}, {"S", 9}}) == 3);
    CHECK(p.launches[0].args[0].kind == BindingKind::kOutput);
    // Fully masked rows: the guard's 0, else the NaN of an unguarded softmax.
    CHECK(p.source.find(guard ? "(p2_empty ? 0.0f" : "(p2_empty ? P2_NAN") != std::string::npos);
    CHECK(std::find(p.op_types.begin(), p.op_types.end(), "Softmax") != p.op_types.end());
    // Only the proven causal bias bounds the key loop at the tile's last row.
    CHECK((p.source.find("p2_jend = p2_min(p2_S, p2_i0 + 32)") != std::string::npos) == (mask == "causal"));
  }
  // A bias that only looks causal (j < i) is fused but every key block runs.
  onnx::FunctionProto strict = attention("causal", false).get();
  for (auto& n : *strict.mutable_node())
    if (n.op_type() == "LessOrEqual") n.set_op_type("Less");
  const KernelPlan c = generate_kernels(strict, attention_inputs("causal"));
  REQUIRE(c.kernels.size() == 1);
  CHECK(c.source.find("p2_jend = p2_S;") != std::string::npos);
  // fp16 storage: loads converted, the output stored rounded.
  const KernelPlan h = generate_kernels(attention("causal", false).get(), attention_inputs("causal", TensorProto::FLOAT16));
  REQUIRE(h.kernels.size() == 1);
  CHECK(h.source.find("p2_f2h(") != std::string::npos);
}

TEST_CASE("attention-like chains that are not provably attention keep the separate kernels") {
  // Softmax over another axis.
  const KernelPlan a = generate_kernels(attention("none", false, 1).get(), attention_inputs("none"));
  CHECK(a.kernels.size() == 3);
  CHECK(a.buffers.size() == 2);
  // A head size past what one block stages.
  FunctionBuilder f = attention("none", false);
  const KernelPlan b = generate_kernels(
      f.get(), {tensor(TensorProto::FLOAT, {"B", "L", "200"}), tensor(TensorProto::FLOAT, {"B", "S", "200"}),
                tensor(TensorProto::FLOAT, {"B", "S", "200"})});
  CHECK(b.kernels.size() == 3);
  // The scores read by something else too.
  FunctionBuilder g = attention("none", false);
  g.output("s");
  CHECK(generate_kernels(g.get(), attention_inputs("none")).kernels.size() >= 3);
  // A Where mask whose other branch is not -inf.
  FunctionBuilder h("W");
  h.input("q").input("k").input("v").input("mask").output("o");
  auto& t = h.node("Transpose", {"k"}, {"kt"});
  testing::set_ints(t, "perm", {0, 2, 1});
  h.node("MatMul", {"q", "kt"}, {"s"});
  h.scalar("big", -1e4f);
  h.node("Where", {"mask", "s", "big"}, {"sm"});
  h.node("Softmax", {"sm"}, {"w"});
  h.node("MatMul", {"w", "v"}, {"o"});
  CHECK(generate_kernels(h.get(), attention_inputs("bool")).kernels.size() == 3);
}

}  // namespace
}  // namespace pt2onnx::kernels
