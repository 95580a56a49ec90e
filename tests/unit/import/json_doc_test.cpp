// The compact JSON document behind JsonNode: interning, derived paths, the number and key rules
// the former nlohmann DOM had, and malformed text.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "common/error.h"
#include "import/json_doc.h"
#include "import/json_node.h"

using namespace pt2onnx;
using namespace pt2onnx::import;

namespace {

const std::string kSource = "models/model.json";

std::string parse_error(const std::string& text) {
  try {
    parse_json_doc(text, kSource);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kArchive);
    return e.what();
  }
  FAIL("expected an error for " << text);
  return "";
}

}  // namespace

TEST_CASE("repeated strings are stored once") {
  auto doc = parse_json_doc(R"({"a": "same", "b": ["same", "same"], "same": 1})", kSource);
  CHECK(doc->string_bytes() == std::string("a").size() + std::string("same").size() + std::string("b").size());
  JsonNode root(*doc, doc->root(), kSource);
  CHECK(root.at("a").as_string() == "same");
  CHECK(root.at("b").elements()[1].as_string() == "same");
  CHECK(root.at("same").as_int() == 1);
}

TEST_CASE("a node's path is derived from the document when an error needs it") {
  auto doc = parse_json_doc(R"({"graph": {"nodes": [{"target": 1}, {"target": 2}]}})", kSource);
  JsonNode root(*doc, doc->root(), kSource);
  JsonNode target = root.at("graph").at("nodes").elements()[1].at("target");
  CHECK(target.path() == "graph.nodes[1].target");
  CHECK(root.path().empty());
  try {
    target.as_string();
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "models/model.json: graph.nodes[1].target: expected a string, found number");
  }
}

TEST_CASE("members are sorted by key and a repeated key keeps its last value") {
  auto doc = parse_json_doc(R"({"b": 1, "a": 2, "b": 3})", kSource);
  JsonNode root(*doc, doc->root(), kSource);
  auto members = root.members();
  REQUIRE(members.size() == 2);
  CHECK(members[0].first == "a");
  CHECK(members[1].first == "b");
  CHECK(members[1].second.as_int() == 3);
  CHECK(root.at("b").as_int() == 3);
}

TEST_CASE("integers: int64, uint64 above int64, and wider ones as doubles") {
  auto doc = parse_json_doc(R"([-5, 9223372036854775807, 18446744073709551615, 36893488147419103232, 1.5e3])", kSource);
  JsonNode root(*doc, doc->root(), kSource);
  auto v = root.elements();
  CHECK(v[0].as_int() == -5);
  CHECK(v[1].as_int() == INT64_MAX);
  CHECK(v[2].exceeds_int64());
  CHECK_FALSE(v[1].exceeds_int64());
  CHECK(v[3].is_number());
  CHECK_FALSE(v[3].is_integer());
  CHECK(v[3].as_double() == doctest::Approx(3.6893488147419103e19));
  CHECK(v[4].as_double() == 1500.0);
}

TEST_CASE("torch 2.3-2.4 bare non-finite tokens read as their strings") {
  auto doc = parse_json_doc(R"({"max_val": Infinity, "min_val": -Infinity, "x": NaN, "s": "NaN inside"})", kSource);
  JsonNode root(*doc, doc->root(), kSource);
  CHECK(std::isinf(root.at("max_val").as_double()));
  CHECK(root.at("min_val").as_double() < 0);
  CHECK(std::isnan(root.at("x").as_double()));
  CHECK(root.at("s").as_string() == "NaN inside");
}

TEST_CASE("malformed text is refused naming the source") {
  CHECK(parse_error(R"({"a": 1e999})") == "models/model.json: malformed JSON: number overflow parsing '1e999'");
  CHECK(parse_error(R"({"a": 1} {"b": 2})").starts_with("models/model.json: malformed JSON: "));
  CHECK(parse_error(R"({"a": )").starts_with("models/model.json: malformed JSON: "));
  CHECK(parse_error(R"({"a": tru})").starts_with("models/model.json: malformed JSON: "));
  CHECK(parse_error(R"(["\x"])").starts_with("models/model.json: malformed JSON: "));
}

TEST_CASE("dump renders a value as nlohmann did (keys sorted, compact)") {
  auto doc = parse_json_doc(R"({"m": {"z": [1, 2.5, "s"], "a": null, "t": true}})", kSource);
  JsonNode root(*doc, doc->root(), kSource);
  CHECK(root.at("m").dump() == R"({"a":null,"t":true,"z":[1,2.5,"s"]})");
}
