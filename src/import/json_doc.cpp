// The compact JSON document: building, interning and paths.
#include "import/json_doc.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace pt2onnx::import {

JsonDoc::Value& JsonDoc::add(JsonType type) {
  Id id = static_cast<Id>(values_.size());
  Value& v = values_.emplace_back();
  v.type = type;
  if (!open_.empty()) {
    const Value& parent = values_[open_.back()];
    v.key = parent.type == JsonType::kObject ? pending_key_
                                             : static_cast<uint32_t>(pending_children_.size() - open_marks_.back());
    pending_children_.push_back(id);
  }
  return v;
}

void JsonDoc::reserve(size_t text_bytes) {
  values_.reserve(text_bytes / 16 + 16);
  children_.reserve(text_bytes / 16 + 16);
}

void JsonDoc::start_container(JsonType type) {
  Id id = static_cast<Id>(values_.size());
  add(type);
  open_.push_back(id);
  open_marks_.push_back(pending_children_.size());
}

void JsonDoc::end_container() {
  Id id = open_.back();
  size_t mark = open_marks_.back();
  Value& v = values_[id];
  v.range.first = static_cast<uint32_t>(children_.size());
  v.range.count = static_cast<uint32_t>(pending_children_.size() - mark);
  children_.insert(children_.end(), pending_children_.begin() + static_cast<std::ptrdiff_t>(mark), pending_children_.end());
  pending_children_.resize(mark);
  open_.pop_back();
  open_marks_.pop_back();
}

std::shared_ptr<const std::string> JsonDoc::shared_string(uint32_t str) const {
  if (shared_strings_.size() < strings_.size()) shared_strings_.resize(strings_.size());
  std::shared_ptr<const std::string>& shared = shared_strings_[str];
  if (!shared) shared = std::make_shared<const std::string>(strings_.text(str));
  return shared;
}

std::string JsonDoc::path(Id id) const {
  // Walk down from the root: of a container's members (numbered in increasing order), the one that
  // holds `id` is the last numbered at or below it.
  std::string out;
  for (Id at = root(); at != id && at < values_.size();) {
    const Value& v = values_[at];
    if (v.type != JsonType::kArray && v.type != JsonType::kObject) break;
    const Id* next = std::upper_bound(children_begin(at), children_end(at), id);
    if (next == children_begin(at)) break;
    const Id member = next[-1];
    if (v.type == JsonType::kObject) {
      if (!out.empty()) out += '.';
      out += strings_.text(values_[member].key);
    } else {
      out += '[' + std::to_string(values_[member].key) + ']';
    }
    at = member;
  }
  return out;
}

}  // namespace pt2onnx::import
