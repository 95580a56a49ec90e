// A compact, read-only JSON document for the program reader: every value is one 16-byte record in
// a vector, numbered in document order (with its key or index, so a path is derived only when an
// error needs one), every string is interned once. nlohmann's DOM spent several times the text
// (a heap node per value, a std::map per object, a copy of every key); this holds each distinct
// string once and builds no per-value heap objects.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/interned_names.h"

#include "common/read_once_text.h"

namespace pt2onnx::import {

enum class JsonType : uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kArray, kObject };

class JsonDoc {
 public:
  using Id = uint32_t;

  // No parent link: ids follow document order, a container before its members, which is all a
  // path needs (8 bytes less a value, and as many pages not touched).
  struct Value {
    JsonType type = JsonType::kNull;
    uint32_t key = 0;  // in an object: the member key's string id; in an array: the element index
    union {
      bool b;
      int64_t i;   // kInt: fits int64 (negative, or written as a signed number)
      uint64_t u;  // kUint: a non-negative integer (as nlohmann types them)
      double d;
      uint32_t str;
      struct {
        uint32_t first;  // into children_
        uint32_t count;
      } range;
    };
    Value() : i(0) {}
  };
  static_assert(sizeof(Value) == 16);

  Id root() const { return 0; }
  const Value& value(Id id) const { return values_[id]; }
  std::string_view string(uint32_t str) const { return strings_.text(str); }
  // The string as one heap copy shared by every caller (made on first use): the IR keeps texts
  // that thousands of values repeat, such as the stack traces of node metadata, once.
  std::shared_ptr<const std::string> shared_string(uint32_t str) const;
  // Children of an array or object (document order; object members carry their key).
  const Id* children_begin(Id id) const { return children_.data() + values_[id].range.first; }
  const Id* children_end(Id id) const { return children_begin(id) + values_[id].range.count; }

  // "graph_module.graph.nodes[3].target" for a value ("" for the root).
  std::string path(Id id) const;

  // Builder interface (one event per token, as a SAX parser reports them).
  void add_null() { add(JsonType::kNull); }
  void add_bool(bool b) { add(JsonType::kBool).b = b; }
  void add_int(int64_t i) { add(JsonType::kInt).i = i; }
  void add_uint(uint64_t u) { add(JsonType::kUint).u = u; }
  void add_double(double d) { add(JsonType::kDouble).d = d; }
  void add_string(std::string_view s) { add(JsonType::kString).str = intern(s); }
  void start_container(JsonType type);
  void set_key(std::string_view key) { pending_key_ = intern(key); }
  void end_container();
  size_t depth() const { return open_.size(); }

  // Room for the values of a text of `text_bytes` (program JSON averages ~23 bytes a value):
  // growing by doubling copied the arrays and held both copies at the peak. Untouched capacity
  // costs address space, not memory.
  void reserve(size_t text_bytes);

  size_t value_count() const { return values_.size(); }
  size_t string_bytes() const { return strings_.text_bytes(); }

 private:
  Value& add(JsonType type);
  uint32_t intern(std::string_view s) { return strings_.intern(s).first; }

  std::vector<Value> values_;
  std::vector<Id> children_;
  InternedNames strings_;
  mutable std::vector<std::shared_ptr<const std::string>> shared_strings_;  // by string id, filled lazily
  // While building: open containers, and the children collected for each (a stack).
  std::vector<Id> open_;
  std::vector<size_t> open_marks_;
  std::vector<Id> pending_children_;
  uint32_t pending_key_ = 0;
};

// Parses `text` (the contents of `source_name`) into a JsonDoc. Accepts the bare Infinity,
// -Infinity and NaN tokens of torch 2.3-2.4 as the strings "Infinity", "-Infinity", "NaN".
// Throws Error(kArchive) "<source_name>: malformed JSON: ..." on invalid text (also a number out
// of double's range) and refuses nesting past limits().nesting.
std::unique_ptr<JsonDoc> parse_json_doc(const std::string& text, const std::string& source_name);

// A text to parse and whether simdjson's padding (64 readable bytes) follows it; a text without
// is copied into a padded buffer first. A std::string has it when its capacity holds it
// (ZipContainer::read_text leaves that room).
struct JsonText {
  std::string_view text;
  bool padded = false;
  JsonText(std::string_view t, bool p) : text(t), padded(p) {}
  JsonText(const std::string& s) : text(s), padded(s.capacity() >= s.size() + kPadding) {}  // NOLINT: implicit by design
  static constexpr size_t kPadding = ReadOnceText::kPadding;  // SIMDJSON_PADDING (json_doc_parse.cpp checks)
};
std::unique_ptr<JsonDoc> parse_json_doc(JsonText text, const std::string& source_name);

struct FastGraph;
// An ExportedProgram text with graph_module.graph.nodes and .tensor_values read into `fast` by
// the fast readers (fast_graph.h), standing empty in the document; nullptr (and `fast` cleared)
// when they decline or the text has any fault: the caller then uses parse_json_doc, whose
// readers report it.
std::unique_ptr<JsonDoc> parse_program_doc_fast(JsonText text, const std::string& source_name, FastGraph& fast);

}  // namespace pt2onnx::import
