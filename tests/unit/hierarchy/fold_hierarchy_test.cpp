// fold_hierarchy on hand-built graphs: sharing, distinct bodies, nesting, repeated calls,
// refusals, weights left top-level, names clear of standard ops.
#include <doctest/doctest.h>

#include "common/error.h"
#include "graph_builder.h"
#include "hierarchy/function_naming.h"
#include "hierarchy/hierarchy.h"

namespace pt2onnx::hierarchy {
namespace {

using testing::frame;
using testing::GraphBuilder;
using testing::Stack;

const ir::ModuleFrame kRoot = frame("L__self__", "", "__main__.Net");

Stack block_stack(int i, const std::string& type = "__main__.Block") {
  return {kRoot, frame("L__self__blocks." + std::to_string(i), "blocks." + std::to_string(i), type)};
}

// x -> blocks.0 (Mul by w0, Add c) -> blocks.1 (Mul by w1, Add c or c1) -> Relu -> y. The constant
// c is emitted once inside blocks.0 and, when `shared_constant`, read by blocks.1 too (as the
// translator's constant cache does).
GraphBuilder two_blocks(bool shared_constant, float second_value = 1.0f) {
  GraphBuilder b;
  b.input("x");
  b.output("y");
  b.weight("blocks.0.w", 2.0f);
  b.weight("blocks.1.w", 3.0f);
  b.constant("c", 1.0f, block_stack(0));
  b.node("Mul", {"x", "blocks.0.w"}, "m0", block_stack(0));
  b.node("Add", {"m0", "c"}, "a0", block_stack(0));
  std::string c1 = "c";
  if (!shared_constant) {
    c1 = "c1";
    b.constant(c1, second_value, block_stack(1));
  }
  b.node("Mul", {"a0", "blocks.1.w"}, "m1", block_stack(1));
  b.node("Add", {"m1", c1}, "a1", block_stack(1));
  b.node("Relu", {"a1"}, "y", {kRoot});
  return b;
}

HierarchyOptions hiera(std::vector<std::string> types) {
  HierarchyOptions options;
  options.types = std::move(types);
  return options;
}

void check(const onnx::ModelProto& model) { CHECK_NOTHROW(onnx::checker::check_model(model)); }

TEST_CASE("identical instances share one function; weights stay top-level initializers") {
  GraphBuilder b = two_blocks(/*shared_constant=*/true);
  const HierarchyReport report = fold_hierarchy(b.model, b.stacks, hiera({"Block"}));
  REQUIRE(b.model.functions_size() == 1);
  const onnx::FunctionProto& f = b.model.functions(0);
  CHECK(f.name() == "Block");
  CHECK(f.domain() == kDefaultDomain);
  CHECK(f.input_size() == 2);   // the block's input and its weight
  CHECK(f.output_size() == 1);
  CHECK(testing::count_op(b.model.graph(), "Block") == 2);
  CHECK(b.model.graph().node_size() == 3);  // two calls and the Relu
  CHECK(b.model.graph().initializer_size() == 2);
  CHECK(b.model.graph().node(0).input(1) == "blocks.0.w");
  CHECK(b.model.graph().node(1).input(1) == "blocks.1.w");
  CHECK(b.stacks.size() == 3);
  CHECK(b.stacks[0].size() == 1);  // the call sits in the root module
  REQUIRE(report.types.size() == 1);
  CHECK(report.types[0].instances == 2);
  check(b.model);
}

TEST_CASE("instances with different constants get separate, suffixed functions") {
  GraphBuilder b = two_blocks(/*shared_constant=*/false, 5.0f);
  fold_hierarchy(b.model, b.stacks, hiera({"__main__.Block"}));
  REQUIRE(b.model.functions_size() == 2);
  CHECK(b.model.functions(0).name() == "Block");
  CHECK(b.model.functions(1).name() == "Block_1");
  CHECK(b.model.graph().node(0).op_type() == "Block");
  CHECK(b.model.graph().node(1).op_type() == "Block_1");
  check(b.model);
}

TEST_CASE("equal constants made separately still give one function") {
  GraphBuilder b = two_blocks(/*shared_constant=*/false, 1.0f);
  fold_hierarchy(b.model, b.stacks, hiera({"Block"}));
  CHECK(b.model.functions_size() == 1);
}

TEST_CASE("nested types: the outer function calls the inner one") {
  GraphBuilder b;
  b.input("x");
  b.output("y");
  std::string prev = "x";
  for (int i = 0; i < 2; ++i) {
    const std::string p = "layers." + std::to_string(i);
    const ir::ModuleFrame layer = frame("L__self__" + p, p, "__main__.Layer");
    const Stack attn = {kRoot, layer, frame("L__self__" + p + ".attn", p + ".attn", "__main__.Attention")};
    b.weight(p + ".attn.w", 1.0f);
    b.node("Mul", {prev, p + ".attn.w"}, "q" + std::to_string(i), attn);
    b.node("Softmax", {"q" + std::to_string(i)}, "s" + std::to_string(i), attn);
    b.node("Add", {prev, "s" + std::to_string(i)}, "r" + std::to_string(i), {kRoot, layer});
    prev = "r" + std::to_string(i);
  }
  b.node("Identity", {prev}, "y", {kRoot});
  // Given outermost first: still folded innermost first.
  const HierarchyReport report = fold_hierarchy(b.model, b.stacks, hiera({"Layer", "Attention"}));
  REQUIRE(b.model.functions_size() == 2);
  const onnx::FunctionProto& inner = b.model.functions(0);
  const onnx::FunctionProto& outer = b.model.functions(1);
  CHECK(inner.name() == "AttentionModule");  // Attention is a standard op (opset 23)
  CHECK(outer.name() == "Layer");
  CHECK(testing::count_op(b.model.graph(), "Layer") == 2);
  CHECK(b.model.graph().node_size() == 3);
  bool calls_inner = false;
  for (const auto& node : outer.node()) calls_inner |= node.op_type() == "AttentionModule" && node.domain() == kDefaultDomain;
  CHECK(calls_inner);
  bool imports_domain = false;
  for (const auto& opset : outer.opset_import()) imports_domain |= opset.domain() == kDefaultDomain;
  CHECK(imports_domain);
  CHECK(report.types[0].functions == std::vector<std::string>{"Layer"});
  CHECK(report.types[1].instances == 2);
  check(b.model);
}

TEST_CASE("a module called twice gives two instances (keys with @1)") {
  GraphBuilder b;
  b.input("x");
  b.output("y");
  b.weight("blk.w", 2.0f);
  const Stack first = {kRoot, frame("L__self__blk", "blk", "__main__.Block")};
  const Stack second = {kRoot, frame("L__self__blk@1", "blk", "__main__.Block")};
  b.node("Mul", {"x", "blk.w"}, "m0", first);
  b.node("Mul", {"m0", "blk.w"}, "y", second);
  fold_hierarchy(b.model, b.stacks, hiera({"Block"}));
  CHECK(b.model.functions_size() == 1);
  REQUIRE(b.model.graph().node_size() == 2);
  CHECK(b.model.graph().node(0).name() != b.model.graph().node(1).name());
  CHECK(b.model.graph().initializer_size() == 1);
  check(b.model);
}

TEST_CASE("a call is named after its instance's path, clear of the names of nodes kept outside") {
  GraphBuilder b = two_blocks(/*shared_constant=*/true);
  // Nodes outside every instance named like the first instance's path and its first suffix.
  b.node("Relu", {"y"}, "z", {kRoot});
  b.node("Relu", {"z"}, "z2", {kRoot});
  b.model.mutable_graph()->mutable_node(b.model.graph().node_size() - 2)->set_name("blocks.0");
  b.model.mutable_graph()->mutable_node(b.model.graph().node_size() - 1)->set_name("blocks.0_1");
  b.model.mutable_graph()->mutable_output(0)->set_name("z2");
  fold_hierarchy(b.model, b.stacks, hiera({"Block"}));
  REQUIRE(b.model.graph().node_size() == 5);
  CHECK(b.model.graph().node(0).name() == "blocks.0_2");
  CHECK(b.model.graph().node(1).name() == "blocks.1");
  check(b.model);
}

TEST_CASE("an interleaving that would make the call depend on itself is refused") {
  GraphBuilder b;
  b.input("x");
  b.output("y");
  const Stack blk = block_stack(0);
  b.node("Relu", {"x"}, "a", blk);
  b.node("Neg", {"a"}, "outside", {kRoot});  // reads the instance and feeds it back
  b.node("Add", {"a", "outside"}, "y", blk);
  try {
    fold_hierarchy(b.model, b.stacks, hiera({"Block"}));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(std::string(e.what()).find("Block") != std::string::npos);
    CHECK(std::string(e.what()).find("blocks.0") != std::string::npos);
  }
}

// As in a pt2e-quantized program (torch exports it again after convert_pt2e): the nodes torch
// inserted have its export Wrapper as their root frame, the model's nodes the model's class under
// another key. Both are the root module, so naming either type folds all four nodes into one call
// (before, the Wrapper's two nodes alone were refused as a cycle through the model's).
GraphBuilder mixed_roots() {
  GraphBuilder b;
  b.input("x");
  b.output("y");
  const Stack wrapper = {frame("L__self__", "", "torch.export._trace.Wrapper")};
  const ir::ModuleFrame model = frame("L__self__L__self__", "", "__main__.CNN");
  b.node("Relu", {"x"}, "q0", wrapper);
  b.node("Neg", {"q0"}, "m0", {model, frame("L__self__L__self__conv", "conv", "torch.nn.Conv2d")});
  b.node("Relu", {"m0"}, "q1", wrapper);
  b.node("Neg", {"q1"}, "y", {model});
  return b;
}

TEST_CASE("root frames of different keys and types are one module: either type folds every node") {
  for (const char* type : {"Wrapper", "CNN"}) {
    CAPTURE(type);
    GraphBuilder b = mixed_roots();
    fold_hierarchy(b.model, b.stacks, hiera({type}));
    REQUIRE(b.model.functions_size() == 1);
    CHECK(b.model.functions(0).name() == type);
    CHECK(b.model.functions(0).node_size() == 4);
    REQUIRE(b.model.graph().node_size() == 1);
    CHECK(b.model.graph().node(0).op_type() == type);
    CHECK(b.stacks[0].empty());  // the root's call sits outside every module
    check(b.model);
  }
  GraphBuilder b = mixed_roots();  // a type below the root folds as before
  fold_hierarchy(b.model, b.stacks, hiera({"Conv2d"}));
  CHECK(b.model.graph().node_size() == 4);
  CHECK(testing::count_op(b.model.graph(), "Conv2d") == 1);
}

TEST_CASE("interleaved but acyclic instances are folded and the graph stays sorted") {
  GraphBuilder b;
  b.input("x");
  b.output("y");
  b.output("z");
  b.node("Relu", {"x"}, "a", block_stack(0));
  b.node("Neg", {"x"}, "z", {kRoot});        // independent of the block, between its nodes
  b.node("Relu", {"a"}, "y", block_stack(0));
  fold_hierarchy(b.model, b.stacks, hiera({"Block"}));
  CHECK(b.model.graph().node_size() == 2);
  check(b.model);
}

TEST_CASE("a type that matches nothing is a usage error naming the types present") {
  GraphBuilder b = two_blocks(true);
  try {
    fold_hierarchy(b.model, b.stacks, hiera({"Nope"}));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
    CHECK(std::string(e.what()).find("__main__.Block") != std::string::npos);
  }
  CHECK(b.model.functions_size() == 0);  // nothing changed
  CHECK(b.model.graph().node_size() == 6);
  // Only whole dotted components match.
  CHECK_THROWS_AS(fold_hierarchy(b.model, b.stacks, hiera({"lock"})), Error);
}

TEST_CASE("function names never equal a standard ONNX op") {
  CHECK(is_standard_op_name("Relu"));
  CHECK(is_standard_op_name("Attention"));
  CHECK(is_standard_op_name("RMSNormalization"));
  CHECK_FALSE(is_standard_op_name("DecoderLayer"));
  CHECK(function_base_name("torch.nn.modules.activation.ReLU") == "ReLU");  // op is Relu
  CHECK(function_base_name("a.Relu") == "ReluModule");
  CHECK(function_base_name("x.Attention") == "AttentionModule");
  CHECK(function_base_name("x.Gelu") == "GeluModule");
  CHECK(function_base_name("my.Block<2>") == "Block_2_");
  std::set<std::string> taken;
  CHECK(claim_function_name("Block", taken) == "Block");
  CHECK(claim_function_name("Block", taken) == "Block_1");
}

TEST_CASE("name patterns: {class}, {qualified}, fixed text; a custom domain") {
  CHECK(function_base_name("__main__.Block", "{class}Fn") == "BlockFn");
  CHECK(function_base_name("__main__.Block", "{qualified}") == "__main___Block");
  CHECK(function_base_name("x.Relu", "{class}") == "ReluModule");
  GraphBuilder b = two_blocks(/*shared_constant=*/true);
  HierarchyOptions options = hiera({"Block"});
  options.function_name = "My{class}";
  options.domain = "com.example.fn";
  fold_hierarchy(b.model, b.stacks, options);
  REQUIRE(b.model.functions_size() == 1);
  CHECK(b.model.functions(0).name() == "MyBlock");
  CHECK(b.model.functions(0).domain() == "com.example.fn");
  CHECK(b.model.graph().node(0).domain() == "com.example.fn");
  check(b.model);
}

TEST_CASE("an opaque type becomes custom nodes with the call's boundary and no function") {
  GraphBuilder flat = two_blocks(/*shared_constant=*/true);
  fold_hierarchy(flat.model, flat.stacks, hiera({"Block"}));
  GraphBuilder b = two_blocks(/*shared_constant=*/true);
  HierarchyOptions options = hiera({"Block"});
  OpaqueModule plugin;
  plugin.domain = "com.plugins";
  plugin.op_type = "BlockPlugin";
  onnx::AttributeProto heads;
  heads.set_name("heads");
  heads.set_type(onnx::AttributeProto::INT);
  heads.set_i(4);
  plugin.attributes.push_back(heads);
  options.opaque.emplace("Block", plugin);
  const HierarchyReport report = fold_hierarchy(b.model, b.stacks, options);
  CHECK(b.model.functions_size() == 0);
  CHECK(report.types.at(0).opaque);
  CHECK(report.types.at(0).bodies == 1);
  CHECK(report.warnings.empty());
  REQUIRE(b.model.graph().node_size() == 3);
  for (int i = 0; i < 2; ++i) {
    const onnx::NodeProto& n = b.model.graph().node(i);
    CHECK(n.op_type() == "BlockPlugin");
    CHECK(n.domain() == "com.plugins");
    CHECK(n.attribute_size() == 1);
    const onnx::NodeProto& call = flat.model.graph().node(i);
    CHECK(std::vector<std::string>(n.input().begin(), n.input().end()) ==
          std::vector<std::string>(call.input().begin(), call.input().end()));
    CHECK(std::vector<std::string>(n.output().begin(), n.output().end()) ==
          std::vector<std::string>(call.output().begin(), call.output().end()));
  }
  bool declared = false;
  for (const auto& o : b.model.opset_import()) declared = declared || o.domain() == "com.plugins";
  CHECK(declared);
  check(b.model);
}

TEST_CASE("opaque instances whose bodies differ are reported") {
  GraphBuilder b = two_blocks(/*shared_constant=*/false, 5.0f);
  HierarchyOptions options = hiera({"Block"});
  options.opaque.emplace("Block", OpaqueModule{"com.plugins", "BlockPlugin", 1, {}});
  const HierarchyReport report = fold_hierarchy(b.model, b.stacks, options);
  CHECK(report.types.at(0).bodies == 2);
  REQUIRE(report.warnings.size() == 1);
  CHECK(report.warnings[0].find("2 different bodies") != std::string::npos);
}

// Both blocks read a size computed from the graph input's shape; the first block computes it
// (as core ATen IR does: one FX SymInt value, made where first needed) and the second reads it.
TEST_CASE("shape arithmetic on graph inputs is recomputed in each instance, so bodies stay equal") {
  GraphBuilder b;
  b.input("x");
  b.output("y");
  b.weight("blocks.0.w", 2.0f);
  b.weight("blocks.1.w", 3.0f);
  b.node("Relu", {"x"}, "h", {kRoot});
  b.node("Shape", {"x"}, "x_shape", {kRoot});
  b.constant("zero", 0.0f, {kRoot});
  b.node("Gather", {"x_shape", "zero"}, "batch", {kRoot});
  b.constant("four", 4.0f, block_stack(0));
  b.node("Mul", {"batch", "four"}, "rows", block_stack(0));
  b.node("Reshape", {"h", "rows"}, "r0", block_stack(0));
  b.node("Mul", {"r0", "blocks.0.w"}, "a0", block_stack(0));
  b.node("Reshape", {"a0", "rows"}, "r1", block_stack(1));
  b.node("Mul", {"r1", "blocks.1.w"}, "a1", block_stack(1));
  b.node("Relu", {"a1"}, "y", {kRoot});
  const HierarchyReport report = fold_hierarchy(b.model, b.stacks, hiera({"Block"}));
  CHECK(report.types.at(0).bodies == 1);
  REQUIRE(b.model.functions_size() == 1);
  // Each call reads the graph input (for its shape), the activation and its weight; the size
  // computation lives inside the function, not in the main graph.
  CHECK(testing::count_op(b.model.graph(), "Gather") == 0);
  CHECK(testing::count_op(b.model.graph(), "Block") == 2);
  REQUIRE(b.model.graph().node_size() == 4);  // Relu, two calls, Relu
  CHECK(b.model.graph().node(1).input_size() == 3);
  CHECK(b.model.graph().node(2).input_size() == 3);
  check(b.model);
}


// The constant c made in blocks.0 is read by blocks.1 (which takes a copy into its body) and by a
// node outside every block, which gets a copy of its own in the main graph: the original goes
// with blocks.0's call, and no call exports or imports c.
TEST_CASE("a constant read across instances and from outside: one body, a copy for the outside reader") {
  GraphBuilder b = two_blocks(/*shared_constant=*/true);
  b.node("Add", {"y", "c"}, "z", {kRoot});
  b.model.mutable_graph()->clear_output();
  b.output("z");
  const HierarchyReport report = fold_hierarchy(b.model, b.stacks, hiera({"Block"}));
  CHECK(report.types.at(0).bodies == 1);
  REQUIRE(b.model.functions_size() == 1);
  CHECK(b.model.functions(0).input_size() == 2);  // activation and weight: c is made inside
  CHECK(b.model.functions(0).output_size() == 1);
  // Two calls, Relu, the outside reader and its copy of c, right before it.
  REQUIRE(b.model.graph().node_size() == 5);
  CHECK(testing::count_op(b.model.graph(), "Block") == 2);
  const onnx::NodeProto& copy = b.model.graph().node(3);
  CHECK(copy.op_type() == "Constant");
  CHECK(copy.output(0) == "c_copy");
  CHECK(b.model.graph().node(4).input(1) == "c_copy");
  CHECK(b.stacks.size() == 5);
  check(b.model);
}

}  // namespace
}  // namespace pt2onnx::hierarchy
