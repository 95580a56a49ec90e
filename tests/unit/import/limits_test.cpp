// Import limits: JSON nesting, numbers no double holds, nn_module_stack depth, and static dims
// that ONNX cannot describe.
#include <doctest/doctest.h>

#include <string>

#include "common/limits.h"
#include "import_test_util.h"

using namespace pt2onnx;
using namespace pt2onnx::test;

namespace {

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A program whose graph input x has the given tensor_values entry.
std::string program_with_meta(const std::string& meta_json) {
  return program_with_graph(R"({"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [], "nodes": [],
                                "tensor_values": {"x": )" + meta_json + "}}");
}

std::string float_meta(const std::string& sizes) {
  return R"({"dtype": 7, "sizes": [)" + sizes + R"(], "strides": [], "device": {"type": "cpu"}})";
}

}  // namespace

TEST_CASE("a tensor_meta wrapped 22,000 levels deep is refused by the JSON nesting limit") {
  const std::string meta = repeat(R"({"meta": )", 22000) + float_meta("") + repeat("}", 22000);
  const std::string message = import_error(program_with_meta(meta));
  CHECK(message ==
        "models/model.json: JSON nesting exceeds the nesting limit (512 levels); raise it with --limit nesting=N if the "
        "input is trusted");
}

TEST_CASE("meta wrapping within the limit is unwrapped without recursion") {
  const std::string meta = repeat(R"({"meta": )", 400) + float_meta(R"({"as_int": 2})") + repeat("}", 400);
  const ir::Program program = import_text(program_with_meta(meta));
  REQUIRE(program.graph.tensor_values.count("x"));
  CHECK(program.graph.tensor_values.at("x").sizes.size() == 1);
}

TEST_CASE("brackets inside strings do not count as nesting") {
  CHECK(max_bracket_nesting(R"({"a": "[[[[\"{{{{", "b": [1]})", "[]{}") == 2);
}

TEST_CASE("a number no double holds is a malformed-JSON error, not an internal one") {
  const std::string message = import_error(R"({"graph_module": {"graph": {}}, "x": 1e999})");
  CHECK(has(message, "models/model.json: malformed JSON: number overflow parsing '1e999'"));
}

TEST_CASE("negative and overflowing static dims are refused, naming the tensor and the dim") {
  CHECK(import_error(program_with_meta(float_meta(R"({"as_int": 2}, {"as_int": -3})"))) ==
        "models/model.json: graph_module.graph.tensor_values.x.sizes[1]: dim -3 is negative");
  CHECK(import_error(program_with_meta(float_meta(R"({"as_int": 4611686018427387904})"))) ==
        "models/model.json: graph_module.graph.tensor_values.x.sizes[0]: dim 4611686018427387904 makes the tensor's "
        "byte size overflow int64");
  // Each dim fits; their product does not.
  CHECK(has(import_error(program_with_meta(float_meta(R"({"as_int": 4294967296}, {"as_int": 4294967296})"))),
            "tensor_values.x.sizes[1]: dim 4294967296 makes the tensor's byte size overflow int64"));
  CHECK_NOTHROW(import_text(program_with_meta(float_meta(R"({"as_int": 0}, {"as_int": 1073741824})"))));
}

TEST_CASE("a symbolic dim too long or too deep is refused, not kept as an opaque symbol") {
  const std::string deep = repeat("(", 7400) + "s0" + repeat(")", 7400);
  const std::string message =
      import_error(program_with_meta(float_meta(R"({"as_expr": {"expr_str": ")" + deep + R"("}})")));
  CHECK(message ==
        "models/model.json: graph_module.graph.tensor_values.x.sizes[0]: symbolic expression nesting exceeds "
        "the nesting limit (512 levels); raise it with --limit nesting=N if the input is trusted");
}

TEST_CASE("an nn_module_stack deeper than the nesting limit is refused") {
  std::string stack;
  for (int i = 0; i < 600; ++i) {
    std::string name(1, 'm');  // not "m" + ...: GCC 12 reports a false -Wrestrict there
    name += std::to_string(i);
    if (i > 0) stack += ';';
    stack += name;
    stack += ',';
    stack += name;
    stack += ",M";
  }
  try {
    import::parse_module_stack(stack);
    FAIL("expected a refusal");
  } catch (const LimitError& e) {
    CHECK(std::string(e.what()) ==
          "nn_module_stack of 600 frames exceeds the nesting limit (512 levels); raise it with --limit nesting=N if the "
          "input is trusted");
  }
  CHECK(import::parse_module_stack("a,m.a,A;b,m.b,B").size() == 2);
}
