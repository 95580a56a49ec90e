// Older schema generations, composed after pt2-format.md 4-5 and its "Confirmed on real archives"
// section: 2.1 (int version, TensorValue wrapper, signature dicts, call_spec, key:(path,type)
// module stacks), 2.2 (every union key present, all but one null; dialect), 2.3-2.4 (dropped None
// fields, bare Infinity, str() expressions).
#include <doctest/doctest.h>

#include "import_test_util.h"

using namespace pt2onnx;
using namespace pt2onnx::test;

namespace {

// An Argument as 2.2 wrote it: every member key present, all null but `member`.
std::string all_keys_argument(const std::string& member, const std::string& value) {
  static const char* kMembers[] = {"as_none",   "as_tensor",        "as_tensors",    "as_int",        "as_ints",
                                   "as_float",  "as_floats",        "as_string",     "as_sym_int",    "as_sym_ints",
                                   "as_scalar_type", "as_memory_format", "as_layout", "as_device",     "as_bool",
                                   "as_bools",  "as_sym_bool",      "as_sym_bools",  "as_graph",      "as_optional_tensors",
                                   "as_custom_obj", "as_operator"};
  std::string out = "{";
  for (const char* m : kMembers) {
    if (out.size() > 1) out += ", ";
    out += std::string("\"") + m + "\": " + (member == m ? value : "null");
  }
  return out + "}";
}

std::string all_keys_sym_int(int64_t v) { return R"({"as_expr": null, "as_int": )" + std::to_string(v) + "}"; }

std::string all_keys_tensor_meta(const std::string& dims) {
  return R"({"dtype": 7, "sizes": [)" + dims + R"(], "requires_grad": false, "device": {"type": "cpu", "index": null},
            "strides": [)" + all_keys_sym_int(1) + R"(], "storage_offset": )" + all_keys_sym_int(0) + R"(, "layout": 7})";
}

}  // namespace

TEST_CASE("2.2: all-keys unions, bare int schema_version, dialect") {
  std::string x = all_keys_argument("as_tensor", R"({"name": "x"})");
  std::string w = all_keys_argument("as_tensor", R"({"name": "arg0_1"})");
  std::string json = R"({
    "graph_module": {
      "graph": {
        "inputs": [)" + w + ", " + x + R"(],
        "outputs": [)" + all_keys_argument("as_tensor", R"({"name": "add"})") + ", " +
                     all_keys_argument("as_tensor", R"({"name": "mul"})") + R"(],
        "nodes": [
          {"target": "torch.ops.aten.add.Tensor",
           "inputs": [{"name": "self", "arg": )" + x + R"(},
                      {"name": "other", "arg": )" + w + R"(},
                      {"name": "alpha", "arg": )" + all_keys_argument("as_int", "1") + R"(}],
           "outputs": [)" + all_keys_argument("as_tensor", R"({"name": "add"})") + R"(],
           "metadata": {"nn_module_stack": "L__self__,,__main__.M", "stack_trace": "File m.py"}},
          {"target": "torch.ops.aten.mul.Tensor",
           "inputs": [{"name": "self", "arg": )" + x + R"(},
                      {"name": "other", "arg": )" + all_keys_argument("as_tensor", R"({"name": "add"})") + R"(}],
           "outputs": [)" + all_keys_argument("as_tensor", R"({"name": "mul"})") + R"(],
           "metadata": {}},
          {"target": "torch.ops.aten.clamp.default",
           "inputs": [{"name": "self", "arg": )" + x + R"(},
                      {"name": "min", "arg": )" + all_keys_argument("as_none", "[]") + R"(},
                      {"name": "max", "arg": )" + all_keys_argument("as_bool", "false") + R"(}],
           "outputs": [)" + all_keys_argument("as_tensor", R"({"name": "clamp"})") + R"(],
           "metadata": {}}],
        "tensor_values": {"x": )" + all_keys_tensor_meta(all_keys_sym_int(3)) + R"(},
        "sym_int_values": {},
        "sym_bool_values": {}},
      "signature": {
        "input_specs": [
          {"user_input": null, "parameter": null, "buffer": {"arg": {"name": "arg0_1"}, "target": null,
           "buffer_name": "running_mean", "persistent": null}, "tensor_constant": null, "custom_obj": null},
          {"user_input": {"arg": )" + x + R"(}, "parameter": null, "buffer": null, "tensor_constant": null, "custom_obj": null}],
        "output_specs": [
          {"user_output": null, "loss_output": null, "buffer_mutation": {"arg": {"name": "add"}, "buffer_name": "running_mean"},
           "gradient_to_parameter": null, "gradient_to_user_input": null, "user_input_mutation": null},
          {"user_output": {"arg": )" + all_keys_argument("as_tensor", R"({"name": "mul"})") + R"(}, "loss_output": null,
           "buffer_mutation": null, "gradient_to_parameter": null, "gradient_to_user_input": null, "user_input_mutation": null}]},
      "module_call_graph": [{"fqn": "", "signature": {"inputs": [)" + x + R"(], "outputs": [],
                             "in_spec": "[1, {}]", "out_spec": "[1, {}]"}}]},
    "opset_version": {"aten": 10},
    "range_constraints": {},
    "equality_constraints": [],
    "schema_version": 2,
    "dialect": "ATEN"})";

  ir::Program p = import_text(json);
  CHECK(p.schema_version.major == 2);
  CHECK(p.schema_version.minor == 0);
  CHECK(p.torch_version == "");
  CHECK(p.verifiers == std::vector<std::string>{"ATEN"});
  REQUIRE(p.graph.nodes.size() == 3);
  const ir::Node& add = p.graph.nodes[0];
  CHECK(add.target == "aten.add.Tensor");
  CHECK(add.name == "add");
  CHECK(tensor_of(*add.input("other")) == "arg0_1");
  CHECK(int_of(*add.input("alpha")) == 1);
  CHECK(add.inputs[2].keyword);  // from the schema: alpha is keyword-only
  CHECK(*add.metadata.at("stack_trace") == "File m.py");
  REQUIRE(add.module_stack.size() == 1);
  const ir::Node& clamp = p.graph.nodes[2];
  CHECK(std::holds_alternative<ir::NoneArg>(*clamp.input("min")));  // as_none: []
  CHECK(bool_of(*clamp.input("max")) == false);                      // a false member is still the one set
  CHECK(p.graph.tensor_values.at("x").sizes[0].as_int() == 3);
  REQUIRE(p.signature.inputs.size() == 2);
  CHECK(p.signature.inputs[0].kind == ir::InputKind::kBuffer);
  CHECK(p.signature.inputs[0].target == "running_mean");
  CHECK(p.signature.inputs[0].persistent);  // null: the default
  CHECK(p.signature.inputs[1].kind == ir::InputKind::kUserInput);
  REQUIRE(p.signature.outputs.size() == 2);
  CHECK(p.signature.outputs[0].kind == ir::OutputKind::kBufferMutation);
  CHECK(p.signature.outputs[0].target == "running_mean");
  CHECK(tensor_of(p.signature.outputs[1].arg) == "mul");
  REQUIRE(p.module_call_graph.size() == 1);
  CHECK(p.module_call_graph[0].signature->forward_arg_names.empty());
}

TEST_CASE("2.3-2.4: {major, minor}, dialect, dropped None fields, bare Infinity, str() expressions") {
  std::string json = R"json({
    "graph_module": {
      "graph": {
        "inputs": [{"as_tensor": {"name": "x"}}],
        "outputs": [{"as_tensor": {"name": "view"}}],
        "nodes": [
          {"target": "torch.ops.aten.sym_size.int",
           "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}, {"name": "dim", "arg": {"as_int": 0}}],
           "outputs": [{"as_sym_int": {"as_name": "sym_size_int"}}], "metadata": {}},
          {"target": "_operator.floordiv",
           "inputs": [{"name": "a", "arg": {"as_sym_int": {"as_name": "sym_size_int"}}}, {"name": "b", "arg": {"as_int": 2}}],
           "outputs": [{"as_sym_int": {"as_name": "floordiv"}}], "metadata": {}},
          {"target": "torch.ops.aten.view.default",
           "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}},
                      {"name": "size", "arg": {"as_sym_ints": [{"as_name": "floordiv"}, {"as_int": 2}]}}],
           "outputs": [{"as_tensor": {"name": "view"}}],
           "metadata": {"nn_module_stack": "L__self__,,__main__.M"}}],
        "tensor_values": {
          "x": {"dtype": 6, "sizes": [{"as_expr": {"expr_str": "s0"}}, {"as_int": 4}], "requires_grad": false,
                "device": {"type": "cuda", "index": 0}, "strides": [{"as_int": 4}, {"as_int": 1}],
                "storage_offset": {"as_int": 0}, "layout": 7},
          "view": {"dtype": 6, "sizes": [{"as_expr": {"expr_str": "(s0//2)", "hint": {"as_int": 3}}}, {"as_int": 2}],
                   "requires_grad": false, "device": {"type": "cuda", "index": 0},
                   "strides": [{"as_int": 2}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7}},
        "sym_int_values": {"sym_size_int": {"as_expr": {"expr_str": "s0"}},
                           "floordiv": {"as_expr": {"expr_str": "(s0//2)"}}},
        "sym_bool_values": {"eq": {"as_expr": {"expr_str": "Eq(Mod(s0, 2), 0)"}}},
        "is_single_tensor_return": true},
      "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
                    "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "view"}}}}]},
      "module_call_graph": [{"fqn": "", "signature": {"inputs": [{"as_tensor": {"name": "x"}}],
                             "outputs": [{"as_tensor": {"name": "view"}}], "in_spec": "[1, {}]", "out_spec": "[1, {}]"}},
                            {"fqn": "sub"}]},
    "opset_version": {"aten": 10},
    "range_constraints": {"s0": {"min_val": 2, "max_val": Infinity}, "s1": {"min_val": -Infinity, "max_val": 9223372036854775806}},
    "schema_version": {"major": 5, "minor": 1},
    "dialect": "ATEN"})json";

  ir::Program p = import_text(json);
  CHECK(p.schema_version.major == 5);
  CHECK(p.schema_version.minor == 1);
  CHECK(p.verifiers == std::vector<std::string>{"ATEN"});
  CHECK(p.range_constraints.at("s0").min == 2);
  CHECK_FALSE(p.range_constraints.at("s0").max.has_value());
  CHECK_FALSE(p.range_constraints.at("s1").min.has_value());
  CHECK(p.range_constraints.at("s1").max == INT64_C(9223372036854775806));
  const auto& view = p.graph.tensor_values.at("view");
  CHECK(view.dtype == ir::DType::kFloat16);
  CHECK(view.device == "cuda");
  CHECK(ir::to_string(view.sizes[0].as_expr()) == "(s0//2)");
  CHECK(ir::to_string(p.graph.sym_int_values.at("floordiv").as_expr()) == "(s0//2)");
  CHECK(p.graph.sym_bool_values.at("eq") == "Eq(Mod(s0, 2), 0)");
  CHECK(p.graph.is_single_tensor_return);
  REQUIRE(p.graph.nodes.size() == 3);
  CHECK(p.graph.nodes[1].target == "_operator.floordiv");
  CHECK(p.graph.nodes[1].name == "floordiv");
  CHECK(p.graph.nodes[1].inputs[0].name == "a");  // not in the schema table: left as is
  CHECK(p.graph.nodes[0].inputs.size() == 2);
  REQUIRE(p.module_call_graph.size() == 2);
  CHECK(p.module_call_graph[1].fqn == "sub");
  CHECK_FALSE(p.module_call_graph[1].signature.has_value());
}

TEST_CASE("2.1: int version, TensorValue wrapper, signature dicts, call_spec, key:(path,type)") {
  auto tensor = [](const char* name) { return all_keys_argument("as_tensor", std::string(R"({"name": ")") + name + "\"}"); };
  std::string json = R"({
    "graph_module": {
      "graph": {
        "inputs": [)" + tensor("arg0_1") + ", " + tensor("arg1_1") + ", " + tensor("arg2_1") + ", " + tensor("arg3_1") + R"(],
        "outputs": [)" + tensor("add") + ", " + tensor("addmm") + R"(],
        "nodes": [
          {"target": "torch.ops.aten.addmm.default",
           "inputs": [{"name": "", "arg": )" + tensor("arg1_1") + R"(},
                      {"name": "", "arg": )" + tensor("arg3_1") + R"(},
                      {"name": "", "arg": )" + tensor("arg0_1") + R"(}],
           "outputs": [)" + tensor("addmm") + R"j(],
           "metadata": {"nn_module_stack": "L__self__:(,__main__.M);L__self___fc:(L['self'].fc,torch.nn.modules.linear.Linear)",
                        "source_fn": "fc,torch.nn.modules.linear.Linear"}},
          {"target": "torch.ops.aten.add.Tensor",
           "inputs": [{"name": "self", "arg": )j" + tensor("arg2_1") + R"(},
                      {"name": "other", "arg": )" + all_keys_argument("as_int", "1") + R"(}],
           "outputs": [)" + tensor("add") + R"j(],
           "metadata": {}}],
        "tensor_values": {"arg3_1": {"meta": {"dtype": 7, "sizes": [{"as_expr": null, "as_int": 2}, {"as_expr": null, "as_int": 4}],
                                              "requires_grad": false, "device": {"type": "cpu", "index": null},
                                              "strides": [{"as_expr": null, "as_int": 4}, {"as_expr": null, "as_int": 1}],
                                              "storage_offset": 0, "layout": 7}}},
        "sym_int_values": {},
        "sym_bool_values": {"b": {"as_expr": "Eq(s0, 4)", "as_bool": null}}},
      "signature": {
        "inputs_to_parameters": {"arg0_1": "fc.weight", "arg1_1": "fc.bias"},
        "inputs_to_buffers": {"arg2_1": "steps"},
        "user_inputs": ["arg3_1"],
        "user_outputs": ["addmm"],
        "buffers_to_mutate": {"add": "steps"},
        "backward_signature": null},
      "call_spec": {"in_spec": "in", "out_spec": "out"}},
    "opset_version": {"aten": 10},
    "range_constraints": {},
    "equality_constraints": [],
    "schema_version": 1})j";

  ir::Program p = import_text(json);
  CHECK(p.schema_version.major == 1);
  const auto& meta = p.graph.tensor_values.at("arg3_1");  // {"meta": ...} unwrapped
  CHECK(meta.dtype == ir::DType::kFloat32);
  REQUIRE(meta.sizes.size() == 2);
  CHECK(meta.sizes[1].as_int() == 4);
  CHECK(p.graph.sym_bool_values.at("b") == "Eq(s0, 4)");

  const ir::Node& addmm = p.graph.nodes[0];
  std::vector<std::string> names;
  for (const auto& in : addmm.inputs) names.push_back(in.name);
  // Unnamed positionals take the schema's names; omitted beta/alpha get their defaults.
  CHECK(names == std::vector<std::string>{"self", "mat1", "mat2", "beta", "alpha"});
  CHECK(tensor_of(*addmm.input("mat1")) == "arg3_1");
  REQUIRE(addmm.module_stack.size() == 2);
  CHECK(addmm.module_stack[1].path == "L['self'].fc");
  CHECK(addmm.module_stack[1].type == "torch.nn.modules.linear.Linear");
  CHECK(*addmm.metadata.at("source_fn") == "fc,torch.nn.modules.linear.Linear");

  REQUIRE(p.signature.inputs.size() == 4);
  CHECK(p.signature.inputs[0].kind == ir::InputKind::kParameter);
  CHECK(p.signature.inputs[0].target == "fc.weight");
  CHECK(p.signature.inputs[2].kind == ir::InputKind::kBuffer);
  CHECK(p.signature.inputs[2].target == "steps");
  CHECK(p.signature.inputs[3].kind == ir::InputKind::kUserInput);
  REQUIRE(p.signature.outputs.size() == 2);
  CHECK(p.signature.outputs[0].kind == ir::OutputKind::kBufferMutation);
  CHECK(p.signature.outputs[0].target == "steps");
  CHECK(p.signature.outputs[1].kind == ir::OutputKind::kUserOutput);

  // The root module call entry is made from call_spec and the user inputs/outputs.
  REQUIRE(p.module_call_graph.size() == 1);
  const auto& root = *p.module_call_graph[0].signature;
  CHECK(root.in_spec == "in");
  CHECK(root.out_spec == "out");
  REQUIRE(root.inputs.size() == 1);
  CHECK(tensor_of(root.inputs[0]) == "arg3_1");
  REQUIRE(root.outputs.size() == 1);
  CHECK(tensor_of(root.outputs[0]) == "addmm");
}

TEST_CASE("an early-2025 Sigmoid package wraps the program") {
  std::string inner = program_with_graph(graph_with_node(
      R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],
          "outputs": [{"as_tensor": {"name": "relu"}}], "metadata": {}})", {"x"}));
  ir::Program p = import_text(R"({"name": "model", "tensorPaths": {}, "program": {"methods": {"forward": )" + inner + "}}}");
  REQUIRE(p.graph.nodes.size() == 1);
  CHECK(p.graph.nodes[0].name == "relu");
}

TEST_CASE("missing optional fields get defaults") {
  ir::Program p = import_text(R"({"graph_module": {"graph": {}}})");
  CHECK(p.graph.nodes.empty());
  CHECK(p.signature.inputs.empty());
  CHECK(p.module_call_graph.empty());
  CHECK(p.schema_version.major == 0);
  CHECK(p.torch_version == "");
  CHECK(p.verifiers.empty());
}
