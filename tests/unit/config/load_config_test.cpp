// parse_config: options, op rules (node and ONNX-text function), module rules, and the JSON path
// named by every refusal.
#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "config/config.h"

namespace pt2onnx::config {
namespace {

const std::filesystem::path kPath = "/configs/rules.json";

// The message of the Error that parsing `text` throws ("" when it parses).
std::string error_of(const std::string& text) {
  try {
    parse_config(text, kPath);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_CASE("options are read, paths resolved against the config's folder") {
  const Config c = parse_config(R"({"input": "m.pt2", "output": "/abs/out.onnx", "model": "model", "opset": 20,
      "external_data": true, "hiera": ["Attention", "a.b.Layer"],
      "functions": {"domain": "com.example.fn", "name": "{class}Fn"},
      "compile": ["Attention"], "arch": ["sm_90"], "kernels_dir": "bundles", "nvrtc": "libnvrtc.so.13"})", kPath);
  const ConvertOptions& o = c.options.convert;
  CHECK(o.input == std::filesystem::path("/configs/m.pt2"));
  CHECK(o.output == std::filesystem::path("/abs/out.onnx"));
  CHECK(o.model == "model");
  CHECK(o.opset == 20);
  CHECK(o.external_data == "file");
  CHECK(o.hiera == std::vector<std::string>{"Attention", "a.b.Layer"});
  CHECK(o.function_domain == "com.example.fn");
  CHECK(o.function_name == "{class}Fn");
  CHECK(o.compile == std::vector<std::string>{"Attention"});
  CHECK(o.archs == std::vector<std::string>{"sm_90"});
  CHECK(o.kernels_dir == std::filesystem::path("/configs/bundles"));
  CHECK(o.nvrtc == "libnvrtc.so.13");
  CHECK(c.given.size() == 12);
  CHECK(c.op_rules.empty());
}

TEST_CASE("external_data: true or \"file\" copies, \"archive\" references, anything else is refused") {
  CHECK(parse_config(R"({"external_data": "archive"})", kPath).options.convert.external_data == "archive");
  CHECK(parse_config(R"({"external_data": "file"})", kPath).options.convert.external_data == "file");
  CHECK(parse_config(R"({"external_data": false})", kPath).options.convert.external_data.empty());
  const std::string message = error_of(R"({"external_data": "zip"})");
  CHECK(contains(message, "$.external_data"));
  CHECK(contains(message, "'zip' is not a kind of external data"));
}

TEST_CASE("an empty object sets nothing") {
  const Config c = parse_config("{}", kPath);
  CHECK(c.given.empty());
  CHECK(c.options.convert.input.empty());
  CHECK(c.options.convert.opset == ConvertOptions{}.opset);
  CHECK(c.options.convert.hiera.empty());
}

TEST_CASE("an op rule with inputs and attributes from arguments and literals") {
  const Config c = parse_config(R"({"rules": [{"op": "mylib::gelu2", "domain": "com.example", "op_type": "Gelu2",
      "version": 2, "inputs": ["x", ""], "attributes": {"alpha": {"arg": "alpha"}, "mode": {"value": "fast"},
      "k": {"value": 3}, "scale": {"value": 0.5}, "axes": {"value": [1, 2]}, "w": {"value": [1, 2.5]}}}]})",
                                kPath);
  REQUIRE(c.op_rules.size() == 1);
  const translate::CustomOpRule& r = c.op_rules[0];
  CHECK(r.origin == "rules[0]");
  CHECK(r.op == "mylib.gelu2");
  CHECK(r.domain == "com.example");
  CHECK(r.op_type == "Gelu2");
  CHECK(r.domain_version == 2);
  REQUIRE(r.inputs.has_value());
  CHECK(*r.inputs == std::vector<std::string>{"x", ""});
  REQUIRE(r.attributes.size() == 6);
  // nlohmann keeps object keys sorted.
  CHECK(r.attributes[0].name == "alpha");
  CHECK(r.attributes[0].from_arg == "alpha");
  CHECK(std::get<std::vector<int64_t>>(*r.attributes[1].value) == std::vector<int64_t>{1, 2});
  CHECK(std::get<int64_t>(*r.attributes[2].value) == 3);
  CHECK(std::get<std::string>(*r.attributes[3].value) == "fast");
  CHECK(std::get<float>(*r.attributes[4].value) == doctest::Approx(0.5));
  CHECK(std::get<std::vector<float>>(*r.attributes[5].value) == std::vector<float>{1.0f, 2.5f});
  CHECK_FALSE(r.function.has_value());
}

TEST_CASE("op names are normalised to dots and matched by overload") {
  const Config c = parse_config(R"({"rules": [{"op": "torch.ops.mylib::f.default", "domain": "x.y", "op_type": "F"},
      {"op": "aten.gelu", "domain": "x.y", "op_type": "MyGelu"}]})", kPath);
  CHECK(c.op_rules[0].op == "mylib.f.default");
  CHECK(translate::custom_rule_matches(c.op_rules[0], "mylib.f.default"));
  CHECK_FALSE(translate::custom_rule_matches(c.op_rules[0], "mylib.f.out"));
  CHECK(translate::custom_rule_matches(c.op_rules[1], "aten.gelu.default"));
  CHECK(translate::custom_rule_matches(c.op_rules[1], "aten.gelu.tanh"));
  CHECK_FALSE(translate::custom_rule_matches(c.op_rules[1], "aten.gelu_.default"));
  CHECK_FALSE(translate::custom_rule_matches(c.op_rules[1], "aten.gelu.default.extra"));
}

TEST_CASE("an op rule with a function body in ONNX text takes its name and domain from it") {
  const Config c = parse_config(R"j({"rules": [{"op": "t::scaled_tanh", "inputs": ["x"],
      "attributes": {"alpha": {"arg": "alpha"}},
      "function": ["<domain: \"pt2onnx.test\", opset_import: [\"\" : 18]>",
                   "ScaledTanh <alpha> (x) => (y) {",
                   "  t = Tanh(x)",
                   "  a = Constant <value_float: float = @alpha> ()",
                   "  y = Mul(t, a)",
                   "}"]}]})j", kPath);
  const translate::CustomOpRule& r = c.op_rules.at(0);
  CHECK(r.domain == "pt2onnx.test");
  CHECK(r.op_type == "ScaledTanh");
  REQUIRE(r.function.has_value());
  CHECK(r.function->node_size() == 3);
  CHECK(r.function->attribute_size() == 1);
  CHECK(r.function->node(1).attribute(0).ref_attr_name() == "alpha");
}

TEST_CASE("a module rule makes an opaque node") {
  const Config c = parse_config(R"({"rules": [{"module": "Attention", "domain": "com.plugins", "op_type": "AttnPlugin",
      "attributes": {"heads": {"value": 4}}}]})", kPath);
  REQUIRE(c.module_rules.size() == 1);
  CHECK(c.module_rules[0].type == "Attention");
  CHECK(c.module_rules[0].node.domain == "com.plugins");
  CHECK(c.module_rules[0].node.op_type == "AttnPlugin");
  REQUIRE(c.module_rules[0].node.attributes.size() == 1);
  CHECK(c.module_rules[0].node.attributes[0].i() == 4);
}

TEST_CASE("refusals name the file and the JSON path of the field at fault") {
  struct Case {
    const char* text;
    const char* path;
    const char* says;
  };
  const Case cases[] = {
      {R"({"opset": "18"})", "$.opset", "expected an integer"},
      {R"({"opsett": 18})", "$.opsett", "unknown key"},
      {R"({"hiera": ["A", 3]})", "$.hiera[1]", "expected a string"},
      {R"({"functions": {"name": "Fixed"}})", "$.functions.name", "{class}"},
      {R"({"functions": {"domain": "ai.onnx"}})", "$.functions.domain", "standard ONNX domain"},
      {R"({"rules": {}})", "$.rules", "expected an array"},
      {R"({"rules": [{"domain": "a.b", "op_type": "X"}]})", "$.rules[0]", "exactly one of"},
      {R"({"rules": [{"op": "m::f", "op_type": "X"}]})", "$.rules[0]", "missing \"domain\""},
      {R"({"rules": [{"op": "m::f", "domain": "a.b"}]})", "$.rules[0]", "missing \"op_type\""},
      {R"({"rules": [{"op": "m::f", "domain": "a..b", "op_type": "X"}]})", "$.rules[0].domain", "not a domain"},
      {R"({"rules": [{"op": "m::f", "domain": "a.b", "op_type": "Relu"}]})", "$.rules[0].op_type", "TensorRT"},
      {R"({"rules": [{"op": "m::f", "domain": "a.b", "op_type": "X-1"}]})", "$.rules[0].op_type", "not an identifier"},
      {R"({"rules": [{"op": "m::f", "domain": "a.b", "op_type": "X", "inputs": "x"}]})", "$.rules[0].inputs", "array"},
      {R"({"rules": [{"op": "m::f", "domain": "a.b", "op_type": "X", "attributes": {"k": {"arg": "a", "value": 1}}}]})",
       "$.rules[0].attributes.k", "exactly one of"},
      {R"({"rules": [{"op": "m::f", "domain": "a.b", "op_type": "X", "attributes": {"k": {"value": [1, "a"]}}}]})",
       "$.rules[0].attributes.k.value[1]", "expected a number"},
      {R"({"rules": [{"module": "M", "domain": "a.b", "op_type": "X", "attributes": {"k": {"arg": "a"}}}]})",
       "$.rules[0].attributes.k.arg", "unknown key"},
      {R"({"rules": [{"op": "m::f", "domain": "a.b", "op_type": "X"}, {"op": "m.f", "domain": "a.b", "op_type": "Y"}]})",
       "$.rules[1]", "second rule for op m.f (the first is rules[0])"},
      {R"({"rules": [{"op": "m::f", "function": "F (x) => (y) { y = Relu(x) }"}]})", "$.rules[0].function",
       "declares no domain"},
      {R"({"rules": [{"op": "m::f", "function": "<domain: \"a.b\"> F (x) => (y) { y = Relu(z) }"}]})",
       "$.rules[0].function", "reads 'z'"},
      {R"({"rules": [{"op": "m::f", "function": "<domain: \"a.b\"> F (x) => (y) { y = Relu(x) "}]})",
       "$.rules[0].function", "not a function in ONNX text syntax"},
      {R"({"rules": [{"op": "m::f", "op_type": "G", "function": "<domain: \"a.b\"> F (x) => (y) { y = Relu(x) }"}]})",
       "$.rules[0].op_type", "differs from the function's name 'F'"},
  };
  for (const Case& c : cases) {
    const std::string text = c.text;
    const std::string message = error_of(text);
    CAPTURE(text);
    CAPTURE(message);
    CHECK(message.rfind(kPath.string() + ": " + c.path + ": ", 0) == 0);
    CHECK(contains(message, c.says));
  }
}

TEST_CASE("a JSON syntax error names the line and column") {
  const std::string message = error_of("{\n  \"opset\": 18,\n  \"hiera\": [\"A\",]\n}");
  CHECK(contains(message, kPath.string() + ": not valid JSON at line 3"));
}

TEST_CASE("an unreadable config file is refused by name") {
  try {
    load_config("/nonexistent/pt2onnx.json");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
    CHECK(contains(e.what(), "/nonexistent/pt2onnx.json: cannot read"));
  }
}

}  // namespace
}  // namespace pt2onnx::config
