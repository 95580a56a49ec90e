// The JSON pre-pass for Python's non-finite tokens, and malformed-JSON errors.
#include <doctest/doctest.h>

#include <cmath>

#include "common/error.h"
#include "import/json_text.h"

using namespace pt2onnx;
using namespace pt2onnx::import;

TEST_CASE("bare Infinity, -Infinity and NaN outside strings become strings") {
  CHECK(quote_nonfinite_tokens(R"({"a": Infinity, "b": -Infinity, "c": [NaN, 1]})") ==
        R"({"a": "Infinity", "b": "-Infinity", "c": ["NaN", 1]})");
}

TEST_CASE("tokens inside strings and inside longer words are left alone") {
  std::string text = R"({"Infinity": "x Infinity NaN \" Infinity", "NaNa": 1, "b": -3})";
  CHECK(quote_nonfinite_tokens(text) == text);
}

TEST_CASE("parse_export_json reads torch 2.3-2.4 range constraints") {
  auto json = parse_export_json(R"({"range_constraints": {"s0": {"min_val": 2, "max_val": Infinity}}})", "x.json");
  CHECK(json["range_constraints"]["s0"]["max_val"] == "Infinity");
}

TEST_CASE("malformed JSON names the source") {
  try {
    parse_export_json("{\"graph_module\": ", "models/model.json");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kArchive);
    std::string message = e.what();
    CHECK(message.starts_with("models/model.json: malformed JSON: "));
    CHECK(message.find("[json.exception") == std::string::npos);
  }
}
