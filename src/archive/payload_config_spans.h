// The members of a PayloadConfig's "config" object as raw JSON text, found without a DOM: a
// document of a large model's config is about twice its text, and would be alive beside the
// index read from it. The reader parses each member's value alone, when it reads it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace pt2onnx::archive {

struct PayloadConfigSpans {
  struct Member {
    std::string_view key;    // as written: only keys without escapes are taken
    std::string_view value;  // the member's value, delimited but not yet checked to be JSON
  };
  std::vector<Member> config;            // the "config" object's members, in document order
  std::vector<std::string_view> others;  // the values of the root's other members: checked, not read
};

// Levels of the document above a member of "config" (the root object and "config"), and above
// a value of the root: a value parsed alone may nest that much less than the document's limit.
constexpr size_t kLevelsAboveConfigMember = 2;
constexpr size_t kLevelsAboveRootValue = 1;

// Splits `text` at its two outer levels. Nullopt where it is not the plain shape read here: not
// UTF-8, a root that is no object, a key with an escape or a control character, no object under
// the first "config" key, or anything else out of place at those levels (a caller then parses the
// document whole, which words the error or reads the unusual shape). Values are only delimited
// (strings and brackets matched): the text is JSON exactly when each value parses as JSON alone,
// nesting no deeper than the levels above it allow.
std::optional<PayloadConfigSpans> split_payload_config(std::string_view text);

}  // namespace pt2onnx::archive
