// Config limits: file size (--limit config-bytes), JSON and ONNX-text nesting, numbers no double
// or float holds. All refusals are usage errors (exit 2) naming the file.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/limits.h"
#include "config/config.h"

namespace pt2onnx::config {
namespace {

const std::filesystem::path kPath = "/configs/rules.json";

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
    return e.what();
  }
  FAIL("expected a refusal");
  return "";
}

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string rule_with_body(const std::string& body) {
  nlohmann::json rule = {{"op", "mylib::f"}, {"function", body}};
  return nlohmann::json({{"rules", {rule}}}).dump();
}

TEST_CASE("/dev/zero and files past config-bytes are refused after reading at most the limit") {
  CHECK(error_of([] { load_config("/dev/zero"); }) ==
        "/dev/zero: the config file exceeds the config-bytes limit (16777216 bytes); raise it with --limit config-bytes=N "
        "if the input is trusted");
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "pt2onnx_config_limits_test.json";
  {
    std::ofstream out(path);
    out << "{\"comment\": \"" << std::string(2000, 'x') << "\"}";
  }
  const Limits saved = limits();
  limits().config_bytes = 1000;
  CHECK(has(error_of([&] { load_config(path); }), "exceeds the config-bytes limit (1000 bytes)"));
  limits() = saved;
  CHECK_NOTHROW(load_config(path));
  std::filesystem::remove(path);
}

TEST_CASE("JSON nested past the limit, and numbers that no double holds") {
  CHECK(error_of([] { parse_config(repeat("[", 20000) + repeat("]", 20000), kPath); }) ==
        "/configs/rules.json: JSON nesting exceeds the nesting limit (512 levels); raise it with --limit nesting=N if the "
        "input is trusted");
  CHECK(has(error_of([] { parse_config(R"({"opset": 1e999})", kPath); }),
            "/configs/rules.json: not valid JSON: number overflow parsing '1e999'"));
}

TEST_CASE("a float attribute past float's range is refused by path") {
  const std::string text = R"({"rules": [{"op": "mylib::f", "domain": "com.x", "op_type": "F",
                                          "attributes": {"a": {"value": 1e300}}}]})";
  CHECK(has(error_of([&] { parse_config(text, kPath); }), "$.rules[0].attributes.a.value: "));
  CHECK(has(error_of([&] { parse_config(text, kPath); }), "does not fit in a float attribute"));
}

TEST_CASE("ONNX-text bodies nested past the limit are refused before libonnx parses them") {
  const std::string body = "<domain: \"com.x\"> F (x) => (y) { y = Identity" + repeat("(", 20000) + "x" +
                           repeat(")", 20000) + " }";
  CHECK(has(error_of([&] { parse_config(rule_with_body(body), kPath); }),
            "/configs/rules.json: $.rules[0].function: ONNX text nesting exceeds the nesting limit (512 levels)"));
}

}  // namespace
}  // namespace pt2onnx::config
