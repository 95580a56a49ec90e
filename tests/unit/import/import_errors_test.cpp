// Every importer error: one Error(kArchive) naming the source and the JSON path at fault.
#include <doctest/doctest.h>

#include "import_test_util.h"

using namespace pt2onnx;
using namespace pt2onnx::test;

namespace {

std::string two_node_program(const std::string& second_input_arg) {
  return program_with_graph(R"({"nodes": [
      {"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],
       "outputs": [{"as_tensor": {"name": "relu"}}], "metadata": {}},
      {"target": "torch.ops.aten.add.Tensor",
       "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "relu"}}}, {"name": "other", "arg": )" +
                            second_input_arg + R"(}],
       "outputs": [{"as_tensor": {"name": "add"}}], "metadata": {}}]})");
}

std::string with_version(const std::string& version_json) {
  return R"({"graph_module": {"graph": {}}, "schema_version": )" + version_json + "}";
}

}  // namespace

TEST_CASE("an unknown argument kind names the argument's path") {
  CHECK(import_error(two_node_program(R"({"as_foo": 1})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg: unknown argument kind 'as_foo'");
}

TEST_CASE("an unsupported schema major version is refused before anything else") {
  CHECK(import_error(with_version(R"({"major": 9, "minor": 1})")) ==
        "models/model.json: schema version 9.1 is not supported (supported major versions: 1 to 8)");
  CHECK(import_error(with_version("0")) ==
        "models/model.json: schema version 0.0 is not supported (supported major versions: 1 to 8)");
  // Checked first: the broken graph below is never read.
  CHECK(import_error(R"({"graph_module": {"graph": {"nodes": 5}}, "schema_version": {"major": 12, "minor": 0}})")
            .find("schema version 12.0 is not supported") != std::string::npos);
  CHECK_NOTHROW(import_text(with_version(R"({"major": 1, "minor": 0})")));
  CHECK_NOTHROW(import_text(with_version(R"({"major": 8, "minor": 99})")));
}

TEST_CASE("malformed JSON names the source") {
  std::string message = import_error(R"({"graph_module": {"graph": {}})");
  CHECK(message.starts_with("models/model.json: malformed JSON: "));
}

TEST_CASE("a union with several members set, or none") {
  CHECK(import_error(two_node_program(R"({"as_int": 1, "as_float": 2.0})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg: union has several members set "
        "('as_float' and 'as_int')");
  CHECK(import_error(two_node_program(R"({"as_int": null, "as_float": null})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg: union has no member set");
}

TEST_CASE("wrong JSON types name the field") {
  CHECK(import_error(two_node_program(R"({"as_int": "3"})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg.as_int: expected an integer, found string");
  CHECK(import_error(two_node_program(R"({"as_int": 1.5})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg.as_int: expected an integer, found a float");
  CHECK(import_error(two_node_program(R"({"as_float": "fast"})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg.as_float: expected a number, found 'fast'");
  CHECK(import_error(two_node_program(R"({"as_int": 18446744073709551615})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg.as_int: integer 18446744073709551615 does "
        "not fit in 64 bits");
  CHECK(import_error(program_with_graph(R"({"nodes": {}})")) ==
        "models/model.json: graph_module.graph.nodes: expected an array, found object");
}

TEST_CASE("missing required fields") {
  CHECK(import_error(R"({"schema_version": {"major": 8, "minor": 20}})") ==
        "models/model.json: missing field 'graph_module'");
  CHECK(import_error(program_with_graph(R"({"nodes": [{"inputs": []}]})")) ==
        "models/model.json: graph_module.graph.nodes[0]: missing field 'target'");
  CHECK(import_error(two_node_program(R"({"as_tensor": {}})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg.as_tensor: missing field 'name'");
  CHECK(import_error("[]") == "models/model.json: expected an ExportedProgram object");
}

TEST_CASE("unknown members of the helper unions") {
  CHECK(import_error(two_node_program(R"({"as_sym_int": {"as_expr": "s0"}})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg.as_sym_int: unknown SymIntArgument kind 'as_expr'");
  CHECK(import_error(R"({"graph_module": {"graph": {}, "signature": {"input_specs": [{"lifted_thing": {}}]}}})") ==
        "models/model.json: graph_module.signature.input_specs[0]: unknown input spec kind 'lifted_thing'");
  CHECK(import_error(R"({"graph_module": {"graph": {}, "signature": {"output_specs": [{"mystery": {}}]}}})") ==
        "models/model.json: graph_module.signature.output_specs[0]: unknown output spec kind 'mystery'");
  CHECK(import_error(program_with_graph(R"({"tensor_values": {"x": {"sizes": [{"as_symbol": "s0"}]}}})")) ==
        "models/model.json: graph_module.graph.tensor_values.x.sizes[0]: unknown SymInt kind 'as_symbol'");
  CHECK(import_error(two_node_program(R"({"as_layout": 42})")) ==
        "models/model.json: graph_module.graph.nodes[1].inputs[1].arg.as_layout: unknown layout 42");
}

TEST_CASE("a malformed nn_module_stack names the metadata field") {
  std::string message = import_error(program_with_graph(graph_with_node(
      R"({"target": "torch.ops.aten.relu.default", "inputs": [], "outputs": [], "metadata": {"nn_module_stack": "oops"}})")));
  CHECK(message ==
        "models/model.json: graph_module.graph.nodes[0].metadata.nn_module_stack: malformed nn_module_stack entry 'oops': "
        "expected key,path,type");
}

TEST_CASE("errors inside subgraphs carry the whole path") {
  std::string message = import_error(program_with_graph(graph_with_node(
      R"({"target": "torch.ops.higher_order.cond", "inputs": [{"name": "", "arg": {"as_graph": {"name": "t", "graph":
          {"nodes": [{"target": "torch.ops.aten.sin.default", "inputs": [{"name": "self", "arg": {"as_bad": 0}}]}]}}}}],
          "outputs": [], "metadata": {}})")));
  CHECK(message ==
        "models/model.json: graph_module.graph.nodes[0].inputs[0].arg.as_graph.graph.nodes[0].inputs[0].arg: unknown "
        "argument kind 'as_bad'");
}

TEST_CASE("an expression outside the integer grammar does not stop the import") {
  ir::Program p = import_text(program_with_graph(R"j({"tensor_values": {"y": {"dtype": 7, "sizes": [
      {"as_expr": {"expr_str": "FloorToInt(Mul(Float('2.5', precision=53), Symbol('s0', integer=True, positive=True)))"}}]}}})j"));
  const auto& size = p.graph.tensor_values.at("y").sizes[0];
  REQUIRE_FALSE(size.is_static());
  CHECK(ir::to_string(size.as_expr()) == "FloorToInt(Mul(Float('2.5', precision=53), s0))");
}

TEST_CASE("a read of a value that nothing defines names the node and the value") {
  // relu reads x, which no graph input defines (a corrupted or hand-edited file).
  CHECK(import_error(two_node_program(R"({"as_tensor": {"name": "relu"}})")) ==
        "models/model.json: node relu reads 'x', which no graph input or earlier node produces");
  // Defined later is not defined: add reads its own output.
  const std::string later = program_with_graph(R"({"inputs": [{"as_tensor": {"name": "x"}}], "nodes": [
      {"target": "torch.ops.aten.add.Tensor",
       "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}, {"name": "other", "arg": {"as_tensor": {"name": "add"}}}],
       "outputs": [{"as_tensor": {"name": "add"}}], "metadata": {}, "name": "add"}]})");
  CHECK(import_error(later) == "models/model.json: node add reads 'add', which no graph input or earlier node produces");
  // A graph output nothing produces.
  const std::string output = program_with_graph(R"({"inputs": [], "outputs": [{"as_tensor": {"name": "y"}}], "nodes": []})");
  CHECK(import_error(output) == "models/model.json: the graph's output list reads 'y', which no graph input or earlier node produces");
}

TEST_CASE("the signature and the graph must agree on inputs and outputs") {
  auto program = [](const std::string& input_specs, const std::string& output_specs) {
    return R"({"graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}, {"as_tensor": {"name": "b_buf"}}],
        "nodes": [], "outputs": [{"as_tensor": {"name": "x"}}]},
        "signature": {"input_specs": [)" + input_specs + R"(], "output_specs": [)" + output_specs + "]}}}";
  };
  const std::string x_in = R"({"user_input": {"arg": {"as_tensor": {"name": "x"}}}})";
  const std::string buf = R"({"buffer": {"arg": {"name": "b_buf"}, "buffer_name": "buf", "persistent": true}})";
  const std::string x_out = R"({"user_output": {"arg": {"as_tensor": {"name": "x"}}}})";
  CHECK_NOTHROW(import_text(program(x_in + ", " + buf, x_out)));
  CHECK(import_error(program(x_in, x_out)) ==
        "models/model.json: graph input 'b_buf' has no input spec in the signature");
  CHECK(import_error(program(x_in + ", " + buf + ", " + x_in, x_out)) ==
        "models/model.json: graph input 'x' has two input specs in the signature");
  CHECK(import_error(program(x_in + ", " + buf + R"(, {"user_input": {"arg": {"as_tensor": {"name": "y"}}}})", x_out)) ==
        "models/model.json: the signature's input spec names 'y', which is not a graph input");
  CHECK(import_error(program(x_in + ", " + buf, "")) == "models/model.json: graph output 'x' has no output spec in the signature");
}
