// Every Argument union member (pt2-format.md 4.3) -> its ir::Argument alternative.
#include <doctest/doctest.h>

#include <cmath>

#include "import_test_util.h"

using namespace pt2onnx;
using namespace pt2onnx::test;

namespace {

// Every value name the arguments below refer to, declared as graph inputs so the node may read it.
const std::vector<std::string> kReadable = {"x", "a", "b", "sin", "y", "gt", "t", "sym_size", "s", "n", "flag",
                                            "obj0", "obj_x", "token", "c", "m", "g", "pm", "b_mask", "f", "eq"};

// Imports `arg_json` as the single input of a node whose target has no schema (so nothing is
// reordered or filled) and returns it.
ir::Argument import_argument(const std::string& arg_json) {
  ir::Program p = import_text(program_with_graph(graph_with_node(
      R"({"target": "my_ns.my_op.default", "inputs": [{"name": "a", "arg": )" + arg_json +
      R"(, "kind": 1}], "outputs": [], "metadata": {}})", kReadable)));
  REQUIRE(p.graph.nodes.size() == 1);
  REQUIRE(p.graph.nodes[0].inputs.size() == 1);
  return p.graph.nodes[0].inputs[0].arg;
}

template <typename T>
T as(const std::string& arg_json) {
  ir::Argument arg = import_argument(arg_json);
  REQUIRE(std::holds_alternative<T>(arg));
  return std::get<T>(arg);
}

}  // namespace

TEST_CASE("none, tensors and optional tensors") {
  CHECK(std::holds_alternative<ir::NoneArg>(import_argument(R"({"as_none": true})")));
  CHECK(std::holds_alternative<ir::NoneArg>(import_argument(R"({"as_none": []})")));
  CHECK(as<ir::TensorArg>(R"({"as_tensor": {"name": "x"}})").name == "x");
  CHECK(as<ir::TensorListArg>(R"({"as_tensors": [{"name": "a"}, {"name": "b"}]})").names ==
        std::vector<std::string>{"a", "b"});
  auto optional = as<ir::OptionalTensorListArg>(
      R"({"as_optional_tensors": [{"as_tensor": {"name": "a"}}, {"as_none": true}, {"as_tensor": "c"}]})");
  REQUIRE(optional.names.size() == 3);
  CHECK(optional.names[0] == "a");
  CHECK_FALSE(optional.names[1].has_value());
  CHECK(optional.names[2] == "c");  // the oldest form: a bare name
  CHECK(as<ir::TensorArg>(R"({"as_optional_tensor": {"as_tensor": {"name": "y"}}})").name == "y");
  CHECK(std::holds_alternative<ir::NoneArg>(import_argument(R"({"as_optional_tensor": {"as_none": true}})")));
  auto nested = as<ir::NestedTensorListArg>(R"({"as_nested_tensors": [[{"name": "a"}], [{"name": "b"}, {"name": "c"}]]})");
  REQUIRE(nested.names.size() == 2);
  CHECK(nested.names[1] == std::vector<std::string>{"b", "c"});
}

TEST_CASE("ints, floats, bools and their symbolic forms") {
  CHECK(std::get<int64_t>(as<ir::SymIntArg>(R"({"as_int": -7})").v) == -7);
  CHECK(std::get<int64_t>(as<ir::SymIntArg>(R"({"as_int": 9223372036854775807})").v) == INT64_MAX);
  CHECK(std::get<std::string>(as<ir::SymIntArg>(R"({"as_sym_int": {"as_name": "sym_size"}})").v) == "sym_size");
  CHECK(std::get<int64_t>(as<ir::SymIntArg>(R"({"as_sym_int": {"as_int": 3}})").v) == 3);
  auto ints = as<ir::SymIntListArg>(R"({"as_ints": [1, 2]})");
  REQUIRE(ints.items.size() == 2);
  CHECK(std::get<int64_t>(ints.items[1].v) == 2);
  auto sym_ints = as<ir::SymIntListArg>(R"({"as_sym_ints": [{"as_name": "s"}, {"as_int": -1}]})");
  CHECK(std::get<std::string>(sym_ints.items[0].v) == "s");
  CHECK(std::get<double>(as<ir::SymFloatArg>(R"({"as_float": 0.5})").v) == 0.5);
  CHECK(std::get<double>(as<ir::SymFloatArg>(R"({"as_float": 2})").v) == 2.0);
  CHECK(std::isinf(std::get<double>(as<ir::SymFloatArg>(R"({"as_float": "-Infinity"})").v)));
  CHECK(std::isnan(std::get<double>(as<ir::SymFloatArg>(R"({"as_float": NaN})").v)));
  CHECK(std::get<std::string>(as<ir::SymFloatArg>(R"({"as_sym_float": {"as_name": "f"}})").v) == "f");
  CHECK(as<ir::SymFloatListArg>(R"({"as_floats": [1.5, "Infinity"]})").items.size() == 2);
  CHECK(as<ir::SymFloatListArg>(R"({"as_sym_floats": [{"as_float": 1.0}, {"as_name": "g"}]})").items.size() == 2);
  CHECK(std::get<bool>(as<ir::SymBoolArg>(R"({"as_bool": true})").v));
  CHECK(std::get<std::string>(as<ir::SymBoolArg>(R"({"as_sym_bool": {"as_name": "eq"}})").v) == "eq");
  CHECK(as<ir::SymBoolListArg>(R"({"as_bools": [true, false]})").items.size() == 2);
  CHECK(as<ir::SymBoolListArg>(R"({"as_sym_bools": [{"as_bool": true}, {"as_name": "b"}]})").items.size() == 2);
  CHECK(as<ir::IntListListArg>(R"({"as_int_lists": [[1, 2], [3]]})").lists == std::vector<std::vector<int64_t>>{{1, 2}, {3}});
  CHECK(as<ir::FloatListListArg>(R"({"as_float_lists": [[0.5], []]})").lists.size() == 2);
  CHECK(as<ir::ComplexArg>(R"({"as_complex": {"real": 1.0, "imag": -2.0}})").imag == -2.0);
}

TEST_CASE("strings, enums, devices") {
  CHECK(as<std::string>(R"({"as_string": "tanh"})") == "tanh");
  CHECK(as<std::vector<std::string>>(R"({"as_strings": ["a", "b"]})").size() == 2);
  CHECK(as<ir::ScalarTypeArg>(R"({"as_scalar_type": 13})").dtype == ir::DType::kBFloat16);
  CHECK(as<ir::ScalarTypeArg>(R"({"as_scalar_type": 99})").dtype == ir::DType::kUnknown);
  CHECK(as<ir::MemoryFormatArg>(R"({"as_memory_format": 2})").format == ir::MemoryFormat::kChannelsLast);
  CHECK(as<ir::LayoutArg>(R"({"as_layout": 7})").layout == ir::Layout::kStrided);
  auto device = as<ir::DeviceArg>(R"({"as_device": {"type": "cuda", "index": 1}})");
  CHECK(device.type == "cuda");
  CHECK(device.index == 1);
  CHECK_FALSE(as<ir::DeviceArg>(R"({"as_device": {"type": "cpu", "index": null}})").index.has_value());
}

TEST_CASE("graphs, operators, custom objects, string maps") {
  auto graph = as<ir::GraphArg>(R"({"as_graph": {"name": "true_graph_0", "graph": {
      "inputs": [{"as_tensor": {"name": "x"}}], "outputs": [{"as_tensor": {"name": "sin"}}],
      "nodes": [{"target": "torch.ops.aten.sin.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}],
                 "outputs": [{"as_tensor": {"name": "sin"}}], "metadata": {}, "name": "sin"}],
      "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_int": 3}], "requires_grad": false,
                              "device": {"type": "cpu", "index": null}, "strides": [{"as_int": 1}],
                              "storage_offset": {"as_int": 0}, "layout": 7}},
      "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": false,
      "custom_obj_values": {}, "sym_float_values": {}}}})");
  CHECK(graph.name == "true_graph_0");
  REQUIRE(graph.graph != nullptr);
  REQUIRE(graph.graph->nodes.size() == 1);
  CHECK(graph.graph->nodes[0].target == "aten.sin.default");
  CHECK(graph.graph->tensor_values.at("x").sizes[0].as_int() == 3);
  CHECK(as<ir::OperatorArg>(R"({"as_operator": "torch.ops.aten.add_.Tensor"})").target == "aten.add_.Tensor");
  auto obj = as<ir::CustomObjArg>(R"({"as_custom_obj": {"name": "obj0", "class_fqn": "__torch__.torch.classes.my.Obj"}})");
  CHECK(obj.name == "obj0");
  CHECK(obj.class_fqn == "__torch__.torch.classes.my.Obj");
  CHECK(as<ir::CustomObjArg>(R"({"as_custom_obj": {"blob": "AAAA"}})").name.empty());  // 2.1 form
  auto map = as<ir::StringToArgumentArg>(R"({"as_string_to_argument": {"k": {"as_int": 4}, "t": {"as_tensor": {"name": "x"}}}})");
  REQUIRE(map.entries.size() == 2);
  CHECK(map.entries[0].name == "k");
  CHECK(int_of(map.entries[0].arg) == 4);
  CHECK(tensor_of(map.entries[1].arg) == "x");
}

TEST_CASE("HOP nodes keep their unnamed positionals and their outputs") {
  ir::Program p = import_text(program_with_graph(graph_with_node(
      R"({"target": "torch.ops.higher_order.cond",
          "inputs": [{"name": "", "arg": {"as_tensor": {"name": "gt"}}, "kind": 1},
                     {"name": "", "arg": {"as_graph": {"name": "t", "graph": {}}}, "kind": 1},
                     {"name": "", "arg": {"as_graph": {"name": "f", "graph": {}}}, "kind": 1},
                     {"name": "", "arg": {"as_tensors": [{"name": "x"}]}, "kind": 1}],
          "outputs": [{"as_tensor": {"name": "getitem"}}], "metadata": {},
          "is_hop_single_tensor_return": false, "name": "cond"})", {"gt", "x"})));
  const ir::Node& cond = p.graph.nodes[0];
  CHECK(cond.target == "higher_order.cond");
  CHECK(cond.name == "cond");
  REQUIRE(cond.inputs.size() == 4);
  for (const auto& in : cond.inputs) CHECK(in.name.empty());
  CHECK(std::get<ir::GraphArg>(cond.inputs[2].arg).name == "f");
}

TEST_CASE("a node with no name and no outputs gets a unique FX-style name") {
  ir::Program p = import_text(program_with_graph(R"({"nodes": [
      {"target": "torch.ops.aten._assert_scalar.default", "inputs": [], "outputs": [], "metadata": {}},
      {"target": "torch.ops.aten._assert_scalar.default", "inputs": [], "outputs": [], "metadata": {}},
      {"target": "torch.ops.aten.relu.default", "inputs": [], "outputs": [{"as_tensor": {"name": "_assert_scalar_default"}}], "metadata": {}}]})"));
  REQUIRE(p.graph.nodes.size() == 3);
  CHECK(p.graph.nodes[0].name == "_assert_scalar_default_1");
  CHECK(p.graph.nodes[1].name == "_assert_scalar_default_2");
  CHECK(p.graph.nodes[2].name == "_assert_scalar_default");
}

TEST_CASE("signature members: constants, tokens, custom objects, every output kind") {
  // The graph declares what the signature names (the import checks that they agree; by name only).
  const std::string outputs = R"([{"as_tensor": {"name": "token_out"}}, {"as_tensor": {"name": "loss"}},
      {"as_tensor": {"name": "g"}}, {"as_tensor": {"name": "gi"}}, {"as_tensor": {"name": "m"}}, {"as_tensor": {"name": "pm"}}])";
  std::string json = R"({"graph_module": {"graph": {
      "inputs": [{"as_tensor": {"name": "token"}}, {"as_tensor": {"name": "c_lifted_tensor_0"}}, {"as_tensor": {"name": "b_mask"}},
                 {"as_custom_obj": {"name": "obj_x", "class_fqn": "__torch__.Foo"}}, {"as_sym_int": {"as_name": "n"}}],
      "nodes": [{"target": "my_ns.make.default", "inputs": [], "outputs": )" + outputs + R"(, "metadata": {}}],
      "outputs": )" + outputs + R"(}, "signature": {
      "input_specs": [
        {"token": {"arg": {"name": "token"}}},
        {"tensor_constant": {"arg": {"name": "c_lifted_tensor_0"}, "tensor_constant_name": "lifted_tensor_0"}},
        {"buffer": {"arg": {"name": "b_mask"}, "buffer_name": "mask", "persistent": false}},
        {"custom_obj": {"arg": {"name": "obj_x", "class_fqn": "__torch__.Foo"}, "custom_obj_name": "x"}},
        {"constant_input": {"name": "flag", "value": {"as_bool": true}}},
        {"user_input": {"arg": {"as_sym_int": {"as_name": "n"}}}}],
      "output_specs": [
        {"token": {"arg": {"name": "token_out"}}},
        {"loss_output": {"arg": {"name": "loss"}}},
        {"gradient_to_parameter": {"arg": {"name": "g"}, "parameter_name": "fc.weight"}},
        {"gradient_to_user_input": {"arg": {"name": "gi"}, "user_input_name": "x"}},
        {"user_input_mutation": {"arg": {"name": "m"}, "user_input_name": "x"}},
        {"parameter_mutation": {"arg": {"name": "pm"}, "parameter_name": "fc.bias"}}]}}})";
  ir::Program p = import_text(json);
  const auto& in = p.signature.inputs;
  REQUIRE(in.size() == 6);
  CHECK(in[0].kind == ir::InputKind::kToken);
  CHECK(std::get<ir::TokenArg>(in[0].arg).name == "token");
  CHECK(in[1].kind == ir::InputKind::kTensorConstant);
  CHECK(in[1].target == "lifted_tensor_0");
  CHECK_FALSE(in[2].persistent);
  CHECK(in[3].kind == ir::InputKind::kCustomObj);
  CHECK(std::get<ir::CustomObjArg>(in[3].arg).class_fqn == "__torch__.Foo");
  CHECK(in[4].kind == ir::InputKind::kConstantInput);
  CHECK(in[4].target == "flag");
  CHECK(bool_of(in[4].arg));
  CHECK(std::get<std::string>(std::get<ir::SymIntArg>(in[5].arg).v) == "n");
  const auto& out = p.signature.outputs;
  REQUIRE(out.size() == 6);
  CHECK(out[0].kind == ir::OutputKind::kToken);
  CHECK(out[1].kind == ir::OutputKind::kLossOutput);
  CHECK(out[2].kind == ir::OutputKind::kGradientToParameter);
  CHECK(out[2].target == "fc.weight");
  CHECK(out[3].target == "x");
  CHECK(out[4].kind == ir::OutputKind::kUserInputMutation);
  CHECK(out[5].kind == ir::OutputKind::kParameterMutation);
  CHECK(tensor_of(out[5].arg) == "pm");
}
