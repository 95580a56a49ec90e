// The weights config read without a DOM of the whole text (payload_config_spans.h): the members
// it finds, and that every config, well-formed or not, reads as simdjson's DOM of the whole text
// reads it: the same tensors, the same first error (in key order, the last of duplicate keys
// counting), and "not valid JSON" with the DOM's own words wherever the DOM refuses the text.
#include <doctest/doctest.h>

#include <simdjson.h>

#include <string>

#include "archive/archive.h"
#include "archive/payload_config_spans.h"
#include "archive/test_archives.h"
#include "archive/test_errors.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;
using testing::has;
using testing::TempDir;
using testing::ZipItem;

const char* const kEntry = "m/data/weights/model_weights_config.json";

// A PayloadMeta as text; weight_0 holds four floats.
std::string meta(const std::string& path_name = "weight_0", const std::string& dtype = "7",
                 const std::string& sizes = R"([{"as_int": 4}])", const std::string& extra = "") {
  return R"({"path_name": ")" + path_name + R"(", "is_param": true, "use_pickle": false, )" +
         R"("tensor_meta": {"dtype": )" + dtype + R"(, "sizes": )" + sizes +
         R"(, "strides": [{"as_int": 1}], "storage_offset": {"as_int": 0})" + extra + "}}";
}

// A one-model archive whose weights config is `config`, STORED (read mapped) or DEFLATE (read
// into memory).
std::filesystem::path with_config(const TempDir& dir, const std::string& config, bool deflate = false) {
  std::vector<ZipItem> items = {{"m/models/model.json", "{}"},
                                {"m/data/weights/weight_0", testing::float_bytes({1, 2, 3, 4})},
                                {kEntry, config, deflate},
                                {"m/data/constants/model_constants_config.json", R"({"config": {}})"}};
  testing::append(items, testing::pt2_records("m/"));
  return dir.write(deflate ? "deflated.pt2" : "stored.pt2",
                   deflate ? testing::libzip_zip(items) : testing::torch_style_zip(items));
}

// The error simdjson's DOM finds in the whole text, in the words the reader gives it; empty when
// the text is JSON.
std::string dom_error(const std::string& text) {
  simdjson::dom::parser parser;
  const simdjson::error_code code = parser.parse(simdjson::padded_string(text)).error();
  if (code == simdjson::SUCCESS) return {};
  std::string_view words = simdjson::error_message(code);
  if (size_t colon = words.find(": "); colon != std::string_view::npos && colon < 24) words.remove_prefix(colon + 2);
  return std::string(words);
}

// What reading the weights of an archive with this config says: the sorted names of the tensors
// read, or the error.
std::string outcome(const TempDir& dir, const std::string& config, bool deflate = false) {
  const auto path = with_config(dir, config, deflate);
  std::string names;
  try {
    for (const auto& [fqn, tensor] : Archive::open(path)->weights("model")) {
      CHECK(tensor.name == fqn);
      names += (names.empty() ? "" : " ") + fqn;
    }
  } catch (const Error& e) {
    const std::string message = e.what();
    const std::string prefix = path.string() + ": ";
    return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
  }
  return names;
}

std::string not_json(const std::string& config) {
  return std::string(kEntry) + ": not valid JSON: " + dom_error(config);
}

TEST_CASE("payload config spans: the members of \"config\" and the root's other values") {
  const std::string text = R"( {"version": [1, "}"], "config": {"a.w": {"x": "{[\""}, "b": 5,"c":null} , "z": {}} )";
  const auto spans = split_payload_config(text);
  REQUIRE(spans);
  REQUIRE(spans->config.size() == 3);
  CHECK(spans->config[0].key == "a.w");
  CHECK(spans->config[0].value == R"({"x": "{[\""})");
  CHECK(spans->config[1].key == "b");
  CHECK(spans->config[1].value == "5");
  CHECK(spans->config[2].value == "null");
  REQUIRE(spans->others.size() == 2);
  CHECK(spans->others[0] == R"([1, "}"])");
  CHECK(spans->others[1] == "{}");

  // Shapes left to the DOM: escaped or control characters in keys, no config object, a root
  // that is no object, text after it, broken UTF-8 outside the values.
  for (const std::string& other :
       {std::string(R"({"config": {"a\u002eb": 1}})"), std::string("{\"config\": {\"a\tb\": 1}}"),
        std::string(R"({"con\u0066ig": {}})"), std::string(R"({"config": []})"), std::string(R"({"other": {}})"),
        std::string(R"([{"config": {}}])"), std::string(R"({"config": {}} x)"), std::string(R"({"config": {}},)"),
        std::string("{\"config\": {\"\xff\": 1}}"), std::string(R"({"config": {"a": }})"),
        std::string(R"({"config": {"a" 1}})"), std::string(R"({"config": {"a": 1,}})"), std::string("")}) {
    CAPTURE(other);
    CHECK_FALSE(split_payload_config(other));
  }
  // Only the first "config" is the config, as for a DOM's lookup.
  const auto twice = split_payload_config(R"({"config": {"a": 1}, "config": {"b": 2}})");
  REQUIRE(twice);
  CHECK(twice->config.size() == 1);
  CHECK(twice->others == std::vector<std::string_view>{R"({"b": 2})"});
}

TEST_CASE("payload config: members read in document order, errors in key order") {
  TempDir dir;
  // 'b' comes first in the text, 'a' first by key: the error is a's.
  const std::string two_errors =
      R"({"config": {"b": )" + meta("weight_0", "99") + R"(, "a": )" + meta("weight_9") + "}}";
  CHECK(outcome(dir, two_errors) == std::string(kEntry) +
                                        ": config['a']: path_name 'weight_9': the archive has no "
                                        "m/data/weights/weight_9");
  // The last of duplicate keys counts, wherever the first lies.
  CHECK(outcome(dir, R"({"config": {"a": )" + meta("weight_0", "99") + R"(, "b": )" + meta() + R"(, "a": )" +
                         meta() + "}}") == "a b");
  CHECK(has(outcome(dir, R"({"config": {"a": )" + meta() + R"(, "a": )" + meta("weight_0", "99") + "}}"),
            "config['a']: tensor_meta.dtype 99 is not a known ScalarType"));
  // Text that is no JSON comes before any member's error, wherever it lies.
  const std::string broken_after = R"({"config": {"a": )" + meta("weight_0", "99") + R"(, "b": [1, }})";
  CHECK(outcome(dir, broken_after) == not_json(broken_after));
  const std::string broken_other = R"({"config": {"a": )" + meta("weight_0", "99") + R"(}, "extra": [1,,2]})";
  CHECK(outcome(dir, broken_other) == not_json(broken_other));
  // The root's other members are checked, not read; custom objects are skipped.
  CHECK(outcome(dir, R"({"version": 1, "config": {"w": )" + meta() +
                         R"(, "obj": {"path_name": "x", "tensor_meta": null}}, "extra": {"x": [1, {"y": null}]}})") ==
        "w");
}

TEST_CASE("payload config: shapes the scanner leaves to the DOM read as before") {
  TempDir dir;
  CHECK(outcome(dir, R"({"config": {"fc\u002eweight": )" + meta() + "}}") == "fc.weight");
  CHECK(outcome(dir, R"({"con\u0066ig": {"w": )" + meta() + "}}") == "w");
  CHECK(outcome(dir, R"({"config": {"w": )" + meta() + R"(}, "config": {"v": )" + meta() + "}}") == "w");
  CHECK(outcome(dir, "\n{\t\"config\" :\r\n {\"w\"  :  " + meta() + " }\n}\n") == "w");
  const std::string expected = std::string(kEntry) + ": expected {\"config\": {FQN: PayloadMeta}}";
  for (const std::string& shape : {std::string("[]"), std::string("{}"), std::string(R"({"config": 5})"),
                                   std::string(R"({"config": [1]})"), std::string(R"("config")")}) {
    CAPTURE(shape);
    CHECK(outcome(dir, shape) == expected);
  }
  CHECK(outcome(dir, R"({"config": {"x": 5}})") == std::string(kEntry) + ": config['x']: expected an object");
  CHECK(has(outcome(dir, R"({"config": {"x": {"path_name": 0, "tensor_meta": {}}}})"),
            "config['x']: path_name is not a string"));
  CHECK(has(outcome(dir, R"({"config": {"x": )" + meta("weight_0", "7", R"("4")") + "}}"),
            "config['x']: tensor_meta.sizes is not a list"));
}

TEST_CASE("payload config: damaged text is refused in the DOM's words") {
  TempDir dir;
  const std::string good = R"({"config": {"a": )" + meta() + R"(, "b": )" + meta() + "}}";
  REQUIRE(outcome(dir, good) == "a b");
  // Every truncation, and text after the end.
  for (size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    CHECK(outcome(dir, good.substr(0, n)) == not_json(good.substr(0, n)));
  }
  for (const std::string& damaged :
       {good + "}", good + " x", good + ",", R"({"config": {"a": )" + meta("weight_0", "1e400") + "}}",
        R"({"config": {"a": )" + meta("weight_0", "7", R"([{"as_int": 123456789012345678901234567890}])") + "}}",
        R"({"config": {"a": )" + meta("weight_0", "07") + "}}", R"({"config": {"a": )" + meta("weight_\x01") + "}}",
        R"({"config": {"a": )" + meta("weight_\xc3") + "}}", "{\"config\": {\"\xc3\": " + meta() + "}}",
        R"({"config": {"a": )" + meta("weight_0", "tru") + "}}", R"({"config": {"a": )" + meta("weight_\\q") + "}}",
        std::string(100000, '['),
        R"({"config": {"a": )" +
            meta("weight_0", "7", R"([{"as_int": 4}])", ", \"x\": " + std::string(100000, '[') + std::string(100000, ']')) +
            "}}"}) {
    CAPTURE(damaged);
    REQUIRE_FALSE(dom_error(damaged).empty());
    CHECK(outcome(dir, damaged) == not_json(damaged));
  }
  // A number that is JSON but no int64 reads as nlohmann's get<int64_t>() did.
  const std::string uint64_max = R"([{"as_int": 18446744073709551615}])";
  CHECK(has(outcome(dir, R"({"config": {"a": )" + meta("weight_0", "7", uint64_max) + "}}"),
            "'a' (float32 sizes [-1] strides [1] offset 0): negative size"));
  CHECK(has(outcome(dir, R"({"config": {"a": )" + meta("weight_0", "7.0") + "}}"),
            "config['a']: tensor_meta.dtype 7.0 is not a known ScalarType"));
}

// Whether the first value of "config" (or else of the root's others) parses alone with the depth
// the reader gives it.
bool value_parses_alone(const std::string& document) {
  const auto spans = split_payload_config(document);
  REQUIRE(spans);
  const bool in_config = !spans->config.empty();
  const size_t levels_above = in_config ? kLevelsAboveConfigMember : kLevelsAboveRootValue;
  simdjson::dom::parser parser;
  REQUIRE(parser.allocate(document.size(), simdjson::DEFAULT_MAX_DEPTH - levels_above) == simdjson::SUCCESS);
  const simdjson::padded_string value(in_config ? spans->config.at(0).value : spans->others.at(0));
  return parser.parse(value).error() == simdjson::SUCCESS;
}

TEST_CASE("payload config: nesting up to the document's limit, and no further") {
  TempDir dir;
  for (const bool arrays : {true, false}) {
    for (const bool in_config : {true, false}) {
      CAPTURE(arrays);
      CAPTURE(in_config);
      auto with_depth = [&](size_t depth) {
        std::string nested;
        for (size_t i = 0; i < depth; ++i) nested += arrays ? "[" : R"({"n": )";
        nested += "1";
        for (size_t i = 0; i < depth; ++i) nested += arrays ? "]" : "}";
        if (!in_config) return R"({"config": {}, "extra": )" + nested + "}";
        return R"({"config": {"a": )" + meta("weight_0", "7", R"([{"as_int": 4}])", R"(, "extra": )" + nested) + "}}";
      };
      // The deepest value the whole document may hold, as the DOM finds it.
      size_t deepest = 0;
      while (dom_error(with_depth(deepest + 1)).empty()) ++deepest;
      CHECK(deepest > 1000);
      CHECK(value_parses_alone(with_depth(deepest)));  // read without the DOM's help
      CHECK_FALSE(value_parses_alone(with_depth(deepest + 1)));
      CHECK(outcome(dir, with_depth(deepest)) == (in_config ? "a" : ""));
      CHECK(outcome(dir, with_depth(deepest + 1)) == not_json(with_depth(deepest + 1)));
    }
  }
}

TEST_CASE("payload config: many members, mapped and inflated") {
  TempDir dir;
  std::string config = R"({"config": {)";
  std::string expected;
  for (int i = 2999; i >= 0; --i) {  // in reverse key order
    const std::string fqn = "layers." + std::to_string(i) + ".weight";
    config += "\"" + fqn + "\": " + meta("weight_0", "7", R"([{"as_int": 2}])") + (i > 0 ? ", " : "");
  }
  config += "}}";
  for (const bool deflate : {false, true}) {
    CAPTURE(deflate);
    const auto archive = Archive::open(with_config(dir, config, deflate));
    const auto weights = archive->weights("model");
    REQUIRE(weights.size() == 3000);
    const TensorData& last = weights.at("layers.2999.weight");
    CHECK(last.name == "layers.2999.weight");
    CHECK(last.sizes == std::vector<int64_t>{2});
    CHECK(last.storage == weights.at("layers.0.weight").storage);  // one Storage per blob
    CHECK(last.read_contiguous().size() == 8);
  }
}

}  // namespace
}  // namespace pt2onnx::archive
