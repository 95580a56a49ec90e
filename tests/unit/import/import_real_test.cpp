// The importer over trimmed real exporter output (torch 2.15 / schema 8.20, torch 2.7 / 8.7).
#include <doctest/doctest.h>

#include "import/import_program.h"
#include "import_test_util.h"
#include "real_excerpts.h"

using namespace pt2onnx;
using namespace pt2onnx::test;

namespace {

const ir::Node& node_named(const ir::Program& p, const std::string& name) {
  for (const auto& n : p.graph.nodes)
    if (n.name == name) return n;
  FAIL("no node " << name);
  static ir::Node none;
  return none;
}

std::vector<std::string> input_names(const ir::Node& n) {
  std::vector<std::string> names;
  for (const auto& in : n.inputs) names.push_back(in.name);
  return names;
}

}  // namespace

TEST_CASE("torch 2.15 (schema 8.20): top level") {
  ir::Program p = import_text(kTorch215ConvDynamic);
  CHECK(p.schema_version.major == 8);
  CHECK(p.schema_version.minor == 20);
  CHECK(p.torch_version == "2.15.0+cu132");
  CHECK(p.verifiers == std::vector<std::string>{"TRAINING"});
  CHECK(p.opset_version.at("aten") == 10);
  REQUIRE(p.range_constraints.count("s77"));
  CHECK(p.range_constraints.at("s77").min == 0);
  CHECK_FALSE(p.range_constraints.at("s77").max.has_value());  // null: unbounded
  REQUIRE(p.module_call_graph.size() == 2);
  CHECK(p.module_call_graph[0].fqn == "");
  REQUIRE(p.module_call_graph[0].signature.has_value());
  CHECK(p.module_call_graph[0].signature->forward_arg_names == std::vector<std::string>{"x"});
  CHECK(p.module_call_graph[0].signature->in_spec.starts_with("[1, {"));
  CHECK(p.module_call_graph[1].fqn == "conv");
  CHECK_FALSE(p.module_call_graph[1].signature.has_value());
}

TEST_CASE("torch 2.15 (schema 8.20): signature") {
  ir::Program p = import_text(kTorch215ConvDynamic);
  REQUIRE(p.signature.inputs.size() == 5);
  CHECK(p.signature.inputs[0].kind == ir::InputKind::kParameter);
  CHECK(tensor_of(p.signature.inputs[0].arg) == "p_conv_weight");
  CHECK(p.signature.inputs[0].target == "conv.weight");
  CHECK(p.signature.inputs[4].kind == ir::InputKind::kUserInput);
  CHECK(tensor_of(p.signature.inputs[4].arg) == "x");
  REQUIRE(p.signature.outputs.size() == 1);
  CHECK(p.signature.outputs[0].kind == ir::OutputKind::kUserOutput);
  REQUIRE(p.graph.inputs.size() == 5);
  CHECK(tensor_of(p.graph.inputs[4]) == "x");
}

TEST_CASE("torch 2.15 (schema 8.20): nodes, names, targets, symbolic sizes") {
  ir::Program p = import_text(kTorch215ConvDynamic);
  REQUIRE(p.graph.nodes.size() == 6);
  CHECK(p.graph.nodes[0].target == "aten.sym_size.int");
  CHECK(p.graph.nodes[0].name == "sym_size_int_1");
  CHECK(std::get<std::string>(std::get<ir::SymIntArg>(p.graph.nodes[0].outputs[0]).v) == "sym_size_int_1");
  CHECK(p.graph.nodes[0].module_stack.empty());  // torch's empty-stack placeholder

  const auto& x = p.graph.tensor_values.at("x");
  CHECK(x.dtype == ir::DType::kFloat32);
  REQUIRE(x.sizes.size() == 4);
  REQUIRE_FALSE(x.sizes[0].is_static());
  CHECK(ir::to_string(x.sizes[0].as_expr()) == "s77");
  CHECK(x.sizes[1].as_int() == 3);
  CHECK(x.strides[0].as_int() == 192);
  CHECK(x.device == "cpu");
  CHECK(ir::to_string(p.graph.sym_int_values.at("sym_size_int_1").as_expr()) == "s77");

  const ir::Node& view = node_named(p, "view");
  const auto& size = std::get<ir::SymIntListArg>(*view.input("size"));
  REQUIRE(size.items.size() == 2);
  CHECK(std::get<std::string>(size.items[0].v) == "sym_size_int_1");
  CHECK(std::get<int64_t>(size.items[1].v) == -1);
}

TEST_CASE("torch 2.15 (schema 8.20): omitted defaults are filled in schema order") {
  ir::Program p = import_text(kTorch215ConvDynamic);
  const ir::Node& conv = node_named(p, "conv2d");
  CHECK(input_names(conv) == std::vector<std::string>{"input", "weight", "bias", "stride", "padding", "dilation", "groups"});
  CHECK(int_of(conv.inputs[6].arg) == 1);
  CHECK(std::get<ir::SymIntListArg>(conv.inputs[5].arg).items.size() == 2);
  for (const auto& in : conv.inputs) CHECK_FALSE(in.keyword);

  const ir::Node& slice = node_named(p, "slice_1");
  CHECK(input_names(slice) == std::vector<std::string>{"self", "dim", "start", "end", "step"});
  CHECK(int_of(*slice.input("end")) == INT64_MAX);
  CHECK(int_of(*slice.input("step")) == 1);

  const ir::Node& upsample = node_named(p, "upsample_nearest2d");
  CHECK(std::holds_alternative<ir::NoneArg>(*upsample.input("output_size")));
  CHECK(std::get<ir::SymFloatListArg>(*upsample.input("scale_factors")).items.size() == 2);
}

TEST_CASE("torch 2.15 (schema 8.20): module stacks and metadata") {
  ir::Program p = import_text(kTorch215ConvDynamic);
  const ir::Node& ln = node_named(p, "layer_norm");
  REQUIRE(ln.module_stack.size() == 2);
  CHECK(ln.module_stack[0].path == "");
  CHECK(ln.module_stack[0].type == "__main__.Conv");
  CHECK(ln.module_stack[1].path == "ln");
  CHECK(ln.module_stack[1].type == "torch.nn.modules.normalization.LayerNorm");
  CHECK(*ln.metadata.at("torch_fn") == "layer_norm_1;function.layer_norm");
  CHECK(ln.metadata.count("nn_module_stack") == 0);
}

TEST_CASE("torch 2.7 (schema 8.7): node names come from the outputs") {
  ir::Program p = import_text(kTorch27ConvDynamic);
  CHECK(p.schema_version.major == 8);
  CHECK(p.schema_version.minor == 7);
  CHECK(p.torch_version == "2.7.1+cu126");
  std::vector<std::string> names;
  for (const auto& n : p.graph.nodes) names.push_back(n.name);
  CHECK(names == std::vector<std::string>{"sym_size_int_1", "conv2d", "layer_norm", "upsample_nearest2d", "view", "slice_1"});
  CHECK(ir::to_string(p.graph.tensor_values.at("conv2d").sizes[0].as_expr()) == "s0");
  CHECK(p.range_constraints.at("s0").min == 2);
  const ir::Node& ln = node_named(p, "layer_norm");
  CHECK(*ln.metadata.at("source_fn_stack") == "l__self___ln,torch.nn.modules.normalization.LayerNorm");
  CHECK(input_names(ln) == std::vector<std::string>{"input", "normalized_shape", "weight", "bias", "eps", "cudnn_enable"});
  CHECK(float_of(*ln.input("eps")) == doctest::Approx(1e-5));
  CHECK(bool_of(*ln.input("cudnn_enable")) == true);
}
