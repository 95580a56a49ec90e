// Path-tracking access to the exporter's JSON.
#include "import/json_node.h"

#include <cmath>
#include <limits>

#include "common/error.h"

namespace pt2onnx::import {

void JsonNode::fail(const std::string& message) const {
  std::string prefix = *source_name_ + ": ";
  if (!path_.empty()) prefix += path_ + ": ";
  pt2onnx::fail(ErrorCode::kArchive, prefix + message);
}

const char* JsonNode::type_name() const { return value_->type_name(); }

JsonNode JsonNode::child(const nlohmann::json& value, std::string_view key) const {
  std::string path = path_;
  if (!path.empty()) path += '.';
  path += key;
  return JsonNode(value, std::move(path), *source_name_);
}

bool JsonNode::has(std::string_view key) const { return find(key).has_value(); }

std::optional<JsonNode> JsonNode::find(std::string_view key) const {
  if (!value_->is_object()) fail(std::string("expected an object, found ") + type_name());
  auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return child(*it, key);
}

JsonNode JsonNode::at(std::string_view key) const {
  auto found = find(key);
  if (!found) fail("missing field '" + std::string(key) + "'");
  return *found;
}

std::vector<std::pair<std::string, JsonNode>> JsonNode::members() const {
  if (!value_->is_object()) fail(std::string("expected an object, found ") + type_name());
  std::vector<std::pair<std::string, JsonNode>> out;
  out.reserve(value_->size());
  for (auto it = value_->begin(); it != value_->end(); ++it) out.emplace_back(it.key(), child(it.value(), it.key()));
  return out;
}

std::vector<JsonNode> JsonNode::elements() const {
  if (!value_->is_array()) fail(std::string("expected an array, found ") + type_name());
  std::vector<JsonNode> out;
  out.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i)
    out.emplace_back((*value_)[i], path_ + "[" + std::to_string(i) + "]", *source_name_);
  return out;
}

int64_t JsonNode::as_int() const {
  if (value_->is_number_unsigned()) {
    auto v = value_->get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail("integer " + std::to_string(v) + " does not fit in 64 bits");
    return static_cast<int64_t>(v);
  }
  if (value_->is_number_integer()) return value_->get<int64_t>();
  fail(std::string("expected an integer, found ") + (value_->is_number_float() ? "a float" : type_name()));
}

double JsonNode::as_double() const {
  if (value_->is_number()) return value_->get<double>();
  if (value_->is_string()) {
    const auto& s = value_->get_ref<const std::string&>();
    if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  std::string found = "expected a number, found ";
  if (value_->is_string()) {
    found += '\'';
    found += value_->get_ref<const std::string&>();
    found += '\'';
  } else {
    found += type_name();
  }
  fail(found);
}

bool JsonNode::as_bool() const {
  if (value_->is_boolean()) return value_->get<bool>();
  fail(std::string("expected a boolean, found ") + type_name());
}

std::string JsonNode::as_string() const {
  if (!value_->is_string()) fail(std::string("expected a string, found ") + type_name());
  return value_->get<std::string>();
}

std::string JsonNode::string_or(std::string_view key, std::string fallback) const {
  auto found = find(key);
  return found ? found->as_string() : std::move(fallback);
}

bool JsonNode::bool_or(std::string_view key, bool fallback) const {
  auto found = find(key);
  return found ? found->as_bool() : fallback;
}

std::pair<std::string, JsonNode> JsonNode::union_member() const {
  if (!value_->is_object()) fail(std::string("expected a union object, found ") + type_name());
  const nlohmann::json* chosen_value = nullptr;
  std::string chosen_key;
  bool has_none_key = false;
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (it.key() == "as_none") has_none_key = true;
    // A lone key is the member even when null (e.g. {"as_none": null}).
    if (it->is_null() && value_->size() > 1) continue;
    if (chosen_value) fail("union has several members set ('" + chosen_key + "' and '" + it.key() + "')");
    chosen_key = it.key();
    chosen_value = &it.value();
  }
  if (!chosen_value) {
    if (has_none_key) return {"as_none", child(value_->at("as_none"), "as_none")};
    fail("union has no member set");
  }
  return {chosen_key, child(*chosen_value, chosen_key)};
}

}  // namespace pt2onnx::import
