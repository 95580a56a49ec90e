// A JSON value with its path from the document root, so that every reader error names the
// source and the field at fault: "models/model.json: graph_module.graph.nodes[3].target: ...".
// Encodes the export schema's conventions: a missing field and null are the same, and a union
// is an object with one member set (one key, or every key with all but one null).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pt2onnx::import {

class JsonNode {
 public:
  JsonNode(const nlohmann::json& value, std::string path, const std::string& source_name)
      : value_(&value), path_(std::move(path)), source_name_(&source_name) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }
  const std::string& source_name() const { return *source_name_; }

  // Throws Error(kArchive) "<source>: <path>: <message>".
  [[noreturn]] void fail(const std::string& message) const;

  bool is_null() const { return value_->is_null(); }
  bool is_object() const { return value_->is_object(); }
  bool is_array() const { return value_->is_array(); }
  bool is_string() const { return value_->is_string(); }
  bool is_number() const { return value_->is_number(); }
  bool is_bool() const { return value_->is_boolean(); }

  // Object members. `find` returns nullopt for a missing or null member; `at` fails on one.
  bool has(std::string_view key) const;
  std::optional<JsonNode> find(std::string_view key) const;
  JsonNode at(std::string_view key) const;
  // Members of an object, sorted by key (nlohmann::json keeps objects sorted), nulls included.
  std::vector<std::pair<std::string, JsonNode>> members() const;

  // Elements of an array; fails unless this is an array.
  std::vector<JsonNode> elements() const;

  // Scalars; each fails on a value of another JSON type.
  int64_t as_int() const;
  // A number, or the strings "Infinity", "-Infinity", "NaN" the exporter writes for non-finite floats.
  double as_double() const;
  bool as_bool() const;
  std::string as_string() const;

  // Optional members with defaults.
  std::string string_or(std::string_view key, std::string fallback) const;
  bool bool_or(std::string_view key, bool fallback) const;

  // The set member of a union: its key and value. Accepts {"as_x": v} and the old form with every
  // key present and all but one null. A union whose keys are all null is {"as_none", null} when
  // it has an as_none key (the all-null encoding of an unset optional).
  std::pair<std::string, JsonNode> union_member() const;

 private:
  JsonNode child(const nlohmann::json& value, std::string_view key) const;
  const char* type_name() const;

  const nlohmann::json* value_;
  std::string path_;
  const std::string* source_name_;
};

}  // namespace pt2onnx::import
