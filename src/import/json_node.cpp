// Path-tracking access to the exporter's JSON.
#include "import/json_node.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace pt2onnx::import {

namespace {

// nlohmann's rendering of a JsonDoc subtree, for dump(): objects sorted, last repeated key wins.
nlohmann::json to_nlohmann(const JsonDoc& doc, JsonDoc::Id id) {
  const JsonDoc::Value& v = doc.value(id);
  switch (v.type) {
    case JsonType::kNull: return nullptr;
    case JsonType::kBool: return v.b;
    case JsonType::kInt: return v.i;
    case JsonType::kUint: return v.u;
    case JsonType::kDouble: return v.d;
    case JsonType::kString: return std::string(doc.string(v.str));
    case JsonType::kArray: {
      nlohmann::json out = nlohmann::json::array();
      for (const JsonDoc::Id* c = doc.children_begin(id); c != doc.children_end(id); ++c) out.push_back(to_nlohmann(doc, *c));
      return out;
    }
    case JsonType::kObject: {
      nlohmann::json out = nlohmann::json::object();
      for (const JsonDoc::Id* c = doc.children_begin(id); c != doc.children_end(id); ++c)
        out[std::string(doc.string(doc.value(*c).key))] = to_nlohmann(doc, *c);
      return out;
    }
  }
  return nullptr;
}

}  // namespace

void JsonNode::fail(const std::string& message) const {
  std::string prefix = *source_name_ + ": ";
  std::string at = path();
  if (!at.empty()) prefix += at + ": ";
  pt2onnx::fail(ErrorCode::kArchive, prefix + message);
}

const char* JsonNode::type_name() const {
  switch (type()) {
    case JsonType::kNull: return "null";
    case JsonType::kBool: return "boolean";
    case JsonType::kInt:
    case JsonType::kUint:
    case JsonType::kDouble: return "number";
    case JsonType::kString: return "string";
    case JsonType::kArray: return "array";
    case JsonType::kObject: return "object";
  }
  return "value";
}

bool JsonNode::exceeds_int64() const {
  return type() == JsonType::kUint && raw().u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
}

const JsonDoc::Id* JsonNode::find_member(std::string_view key) const {
  if (!is_object()) fail(std::string("expected an object, found ") + type_name());
  const JsonDoc::Id* found = nullptr;
  for (const JsonDoc::Id* c = doc_->children_begin(id_); c != doc_->children_end(id_); ++c)
    if (key_of(*c) == key) found = c;
  return found;
}

bool JsonNode::has(std::string_view key) const { return find(key).has_value(); }

std::optional<JsonNode> JsonNode::find(std::string_view key) const {
  const JsonDoc::Id* found = find_member(key);
  if (!found || doc_->value(*found).type == JsonType::kNull) return std::nullopt;
  return child(*found);
}

JsonNode JsonNode::at(std::string_view key) const {
  auto found = find(key);
  if (!found) fail("missing field '" + std::string(key) + "'");
  return *found;
}

std::vector<std::pair<std::string, JsonNode>> JsonNode::members() const {
  if (!is_object()) fail(std::string("expected an object, found ") + type_name());
  std::vector<JsonDoc::Id> ids(doc_->children_begin(id_), doc_->children_end(id_));
  // Sorted by key, stable so that among repeated keys the last comes last; keep that one.
  std::stable_sort(ids.begin(), ids.end(), [&](JsonDoc::Id a, JsonDoc::Id b) { return key_of(a) < key_of(b); });
  std::vector<std::pair<std::string, JsonNode>> out;
  out.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i + 1 < ids.size() && key_of(ids[i]) == key_of(ids[i + 1])) continue;
    out.emplace_back(std::string(key_of(ids[i])), child(ids[i]));
  }
  return out;
}

std::vector<JsonNode> JsonNode::elements() const {
  if (!is_array()) fail(std::string("expected an array, found ") + type_name());
  std::vector<JsonNode> out;
  out.reserve(raw().range.count);
  for (const JsonDoc::Id* c = doc_->children_begin(id_); c != doc_->children_end(id_); ++c) out.push_back(child(*c));
  return out;
}

int64_t JsonNode::as_int() const {
  if (type() == JsonType::kUint) {
    uint64_t v = raw().u;
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail("integer " + std::to_string(v) + " does not fit in 64 bits");
    return static_cast<int64_t>(v);
  }
  if (type() == JsonType::kInt) return raw().i;
  fail(std::string("expected an integer, found ") + (type() == JsonType::kDouble ? "a float" : type_name()));
}

double JsonNode::as_double() const {
  switch (type()) {
    case JsonType::kInt: return static_cast<double>(raw().i);
    case JsonType::kUint: return static_cast<double>(raw().u);
    case JsonType::kDouble: return raw().d;
    default: break;
  }
  if (is_string()) {
    std::string_view s = doc_->string(raw().str);
    if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  std::string found = "expected a number, found ";
  if (is_string()) {
    found += '\'';
    found += doc_->string(raw().str);
    found += '\'';
  } else {
    found += type_name();
  }
  fail(found);
}

bool JsonNode::as_bool() const {
  if (is_bool()) return raw().b;
  fail(std::string("expected a boolean, found ") + type_name());
}

std::string JsonNode::as_string() const {
  if (!is_string()) fail(std::string("expected a string, found ") + type_name());
  return std::string(doc_->string(raw().str));
}

std::shared_ptr<const std::string> JsonNode::as_shared_string() const {
  if (!is_string()) fail(std::string("expected a string, found ") + type_name());
  return doc_->shared_string(raw().str);
}

std::string JsonNode::dump() const { return to_nlohmann(*doc_, id_).dump(); }

std::string JsonNode::string_or(std::string_view key, std::string fallback) const {
  auto found = find(key);
  return found ? found->as_string() : std::move(fallback);
}

bool JsonNode::bool_or(std::string_view key, bool fallback) const {
  auto found = find(key);
  return found ? found->as_bool() : fallback;
}

std::pair<std::string, JsonNode> JsonNode::union_member() const {
  if (!is_object()) fail(std::string("expected a union object, found ") + type_name());
  if (raw().range.count == 1) {  // the usual {"as_x": v}
    JsonDoc::Id only = *doc_->children_begin(id_);
    return {std::string(key_of(only)), child(only)};
  }
  // Members in key order with repeated keys collapsed, as the checks below saw them before.
  const auto all = members();
  const JsonNode* chosen = nullptr;
  const std::string* chosen_key = nullptr;
  const JsonNode* none_member = nullptr;
  for (const auto& [key, value] : all) {
    if (key == "as_none") none_member = &value;
    // A lone key is the member even when null (e.g. {"as_none": null}).
    if (value.is_null() && all.size() > 1) continue;
    if (chosen) fail("union has several members set ('" + *chosen_key + "' and '" + key + "')");
    chosen_key = &key;
    chosen = &value;
  }
  if (!chosen) {
    if (none_member) return {"as_none", *none_member};
    fail("union has no member set");
  }
  return {*chosen_key, *chosen};
}

}  // namespace pt2onnx::import
