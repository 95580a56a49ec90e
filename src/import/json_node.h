// A JSON value with its path from the document root, so that every reader error names the
// source and the field at fault: "models/model.json: graph_module.graph.nodes[3].target: ...".
// Encodes the export schema's conventions: a missing field and null are the same, and a union
// is an object with one member set (one key, or every key with all but one null).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "import/json_doc.h"

namespace pt2onnx::import {

// A value of a JsonDoc: two pointers and an index, copied freely; its path is derived from the
// document only when an error needs it.
class JsonNode {
 public:
  JsonNode(const JsonDoc& doc, JsonDoc::Id id, const std::string& source_name)
      : doc_(&doc), id_(id), source_name_(&source_name) {}

  std::string path() const { return doc_->path(id_); }
  const std::string& source_name() const { return *source_name_; }

  // Throws Error(kArchive) "<source>: <path>: <message>".
  [[noreturn]] void fail(const std::string& message) const;

  bool is_null() const { return type() == JsonType::kNull; }
  bool is_object() const { return type() == JsonType::kObject; }
  bool is_array() const { return type() == JsonType::kArray; }
  bool is_string() const { return type() == JsonType::kString; }
  bool is_number() const { return is_integer() || type() == JsonType::kDouble; }
  bool is_integer() const { return type() == JsonType::kInt || type() == JsonType::kUint; }
  bool is_bool() const { return type() == JsonType::kBool; }
  // An integer above int64's range (JSON allows them; as_int refuses them).
  bool exceeds_int64() const;

  // Object members. `find` returns nullopt for a missing or null member; `at` fails on one.
  bool has(std::string_view key) const;
  std::optional<JsonNode> find(std::string_view key) const;
  JsonNode at(std::string_view key) const;
  // Members of an object, sorted by key (as the former nlohmann DOM kept them; a repeated key
  // keeps its last value), nulls included.
  std::vector<std::pair<std::string, JsonNode>> members() const;

  // Elements of an array; fails unless this is an array.
  std::vector<JsonNode> elements() const;

  // Scalars; each fails on a value of another JSON type.
  int64_t as_int() const;
  // A number, or the strings "Infinity", "-Infinity", "NaN" the exporter writes for non-finite floats.
  double as_double() const;
  bool as_bool() const;
  std::string as_string() const;
  // The same text, as one copy shared with every other value of the document that has it.
  std::shared_ptr<const std::string> as_shared_string() const;
  // The value as compact JSON text (nlohmann's dump: keys sorted).
  std::string dump() const;

  // Optional members with defaults.
  std::string string_or(std::string_view key, std::string fallback) const;
  bool bool_or(std::string_view key, bool fallback) const;

  // The set member of a union: its key and value. Accepts {"as_x": v} and the old form with every
  // key present and all but one null. A union whose keys are all null is {"as_none", null} when
  // it has an as_none key (the all-null encoding of an unset optional).
  std::pair<std::string, JsonNode> union_member() const;

 private:
  JsonNode child(JsonDoc::Id id) const { return JsonNode(*doc_, id, *source_name_); }
  JsonType type() const { return doc_->value(id_).type; }
  const JsonDoc::Value& raw() const { return doc_->value(id_); }
  std::string_view key_of(JsonDoc::Id id) const { return doc_->string(doc_->value(id).key); }
  // The member `key` (the last one if repeated), or nullptr; fails unless this is an object.
  const JsonDoc::Id* find_member(std::string_view key) const;
  const char* type_name() const;

  const JsonDoc* doc_;
  JsonDoc::Id id_;
  const std::string* source_name_;
};

}  // namespace pt2onnx::import
