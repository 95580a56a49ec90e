// The option table (config/option_table.h) against schema/pt2onnx-config.schema.json: every
// config key of the table is a property of the schema with the JSON type and range the reader
// accepts, every option property of the schema is a key of the table, and the reader takes a
// document that sets every key of the table.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "config/option_table.h"

namespace pt2onnx::config {
namespace {

using Json = nlohmann::json;

Json schema() {
  std::ifstream in(std::string(PT2ONNX_SCHEMA_DIR) + "/pt2onnx-config.schema.json");
  REQUIRE(in.good());
  return Json::parse(in);
}

// The schema of the property at a dotted config key ("functions.domain"), or null.
Json property(const Json& schema, const std::string& key) {
  const Json* node = &schema;
  std::stringstream parts(key);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!node->contains("properties") || !(*node)["properties"].contains(part)) return nullptr;
    node = &(*node)["properties"][part];
  }
  return *node;
}

// The JSON Schema "type" of the row's field, as the reader checks it.
std::string json_type(const OptionSpec& spec) {
  RunOptions options;
  return std::visit(
      [](auto* field) -> std::string {
        using T = std::remove_pointer_t<decltype(field)>;
        if constexpr (std::is_same_v<T, bool>) return "boolean";
        else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, uint64_t>) return "integer";
        else if constexpr (std::is_same_v<T, std::vector<std::string>>) return "array";
        else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>) return "object";
        else return "string";
      },
      field_of(spec, options));
}

TEST_CASE("every config key of the option table is in the schema, with its type and range") {
  const Json s = schema();
  int keys = 0;
  for (const OptionSpec& spec : option_table()) {
    if (spec.config_key.empty()) continue;
    ++keys;
    CAPTURE(spec.config_key);
    const Json p = property(s, spec.config_key);
    REQUIRE_FALSE(p.is_null());
    const std::string type = json_type(spec);
    if (spec.kind == OptionKind::kFlagValue) {  // true / false, or the value's string
      CHECK(p["type"] == Json::array({"boolean", "string"}));
      CHECK(p["enum"].size() >= 3);
      continue;
    }
    if (p.contains("type")) CHECK(p["type"] == type);
    else CHECK(p.contains("$ref"));  // a shared definition ($defs/domain): a string
    if (type == "string" && p.contains("type")) CHECK(p.value("minLength", 0) + (p.contains("pattern") ? 1 : 0) >= 1);
    if (type == "array") CHECK(p["items"]["type"] == "string");
    if (type == "object") CHECK(p["additionalProperties"]["type"] == "string");
    if (spec.min < spec.max) {
      CHECK(p["minimum"] == spec.min);
      CHECK(p["maximum"] == spec.max);
    }
  }
  CHECK(keys >= 14);
}

TEST_CASE("every option of the schema is a key of the option table") {
  const Json s = schema();
  const std::set<std::string> not_options = {"$schema", "comment", "rules"};
  std::set<std::string> table_keys;
  for (const OptionSpec& spec : option_table())
    if (!spec.config_key.empty()) table_keys.insert(spec.config_key);
  CHECK(s["additionalProperties"] == false);
  for (const auto& [key, p] : s["properties"].items()) {
    if (not_options.count(key)) continue;
    CAPTURE(key);
    if (table_keys.count(key)) continue;
    // A group of options ("functions"): an object whose every property is a table key.
    REQUIRE(p["type"] == "object");
    CHECK(p["additionalProperties"] == false);
    for (const auto& [inner, unused] : p["properties"].items()) CHECK(table_keys.count(key + "." + inner) == 1);
  }
}

TEST_CASE("the reader takes a document that sets every key of the table") {
  Json doc = Json::object();
  size_t keys = 0;
  for (const OptionSpec& spec : option_table()) {
    if (spec.config_key.empty()) continue;
    ++keys;
    const std::string type = json_type(spec);
    Json value;
    if (type == "boolean") value = true;
    else if (type == "integer") value = spec.min < spec.max ? spec.min : 1;
    else if (type == "array") value = Json::array({"Layer"});
    else if (type == "object") value = Json{{"s0", "batch"}};
    else {
      // A string that the row's own rule accepts.
      for (const char* candidate : {"com.example.fn", "{class}Fn", "archive"})
        if (!spec.check || spec.check(candidate).empty()) {
          value = candidate;
          break;
        }
    }
    REQUIRE_FALSE(value.is_null());
    Json* at = &doc;
    std::stringstream parts(spec.config_key);
    for (std::string part; std::getline(parts, part, '.');) at = &(*at)[part];
    *at = value;
  }
  const Config c = parse_config(doc.dump(), "/configs/all.json");
  CHECK(c.given.size() == keys);
}

}  // namespace
}  // namespace pt2onnx::config
