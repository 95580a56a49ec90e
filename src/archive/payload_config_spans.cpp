#include "archive/payload_config_spans.h"

#include <simdjson.h>

namespace pt2onnx::archive {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A cursor over the text. Every method returns nothing (or false) where the text is not what it
// expects, leaving the verdict to a JSON parser.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool take(char c) {
    skip_space();
    if (at_ == text_.size() || text_[at_] != c) return false;
    ++at_;
    return true;
  }

  bool at_end() {
    skip_space();
    return at_ == text_.size();
  }

  // A key whose text is its value: no escapes, no control characters (which JSON refuses).
  std::optional<std::string_view> key() {
    if (!take('"')) return std::nullopt;
    const size_t begin = at_;
    for (; at_ < text_.size(); ++at_) {
      const auto c = static_cast<unsigned char>(text_[at_]);
      if (c == '"') return text_.substr(begin, at_++ - begin);
      if (c == '\\' || c < 0x20) return std::nullopt;
    }
    return std::nullopt;
  }

  // One value's extent: a string to its closing quote, an object or array to its matching
  // bracket (brackets inside strings not counted), anything else to the next delimiter.
  std::optional<std::string_view> value() {
    skip_space();
    const size_t begin = at_;
    if (at_ == text_.size()) return std::nullopt;
    const char first = text_[at_];
    if (first == '"') {
      if (!skip_string()) return std::nullopt;
    } else if (first == '{' || first == '[') {
      size_t depth = 0;
      while (at_ < text_.size()) {
        const char c = text_[at_];
        if (c == '"') {
          if (!skip_string()) return std::nullopt;
          continue;
        }
        ++at_;
        if (c == '{' || c == '[') {
          ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
          return text_.substr(begin, at_ - begin);
        }
      }
      return std::nullopt;
    } else {
      while (at_ < text_.size() && !is_space(text_[at_]) && text_[at_] != ',' && text_[at_] != '}' &&
             text_[at_] != ']')
        ++at_;
      if (at_ == begin) return std::nullopt;
    }
    return text_.substr(begin, at_ - begin);
  }

  // The members of the object whose '{' was just taken, each handed its key with the cursor
  // before the value; `on_member` takes the value and says whether it could.
  template <typename OnMember>
  bool members(OnMember on_member) {
    if (take('}')) return true;
    do {
      const std::optional<std::string_view> name = key();
      if (!name || !take(':') || !on_member(*name)) return false;
    } while (take(','));
    return take('}');
  }

 private:
  void skip_space() {
    while (at_ < text_.size() && is_space(text_[at_])) ++at_;
  }

  // From the opening quote to past the closing one.
  bool skip_string() {
    for (++at_; at_ < text_.size(); ++at_) {
      if (text_[at_] == '"') {
        ++at_;
        return true;
      }
      if (text_[at_] == '\\') ++at_;  // the escaped character is no quote
    }
    return false;
  }

  std::string_view text_;
  size_t at_ = 0;
};

}  // namespace

std::optional<PayloadConfigSpans> split_payload_config(std::string_view text) {
  // Values are checked where they are parsed; keys and the bytes between are checked here.
  if (!simdjson::validate_utf8(text.data(), text.size())) return std::nullopt;
  Scanner scanner(text);
  PayloadConfigSpans spans;
  bool found = false;
  auto other = [&] {
    const std::optional<std::string_view> value = scanner.value();
    if (value) spans.others.push_back(*value);
    return value.has_value();
  };
  auto config_member = [&](std::string_view key) {
    const std::optional<std::string_view> value = scanner.value();
    if (value) spans.config.push_back({key, *value});
    return value.has_value();
  };
  auto root_member = [&](std::string_view key) {
    if (key != "config" || found) return other();  // a DOM's lookup finds the first "config"
    found = true;
    return scanner.take('{') && scanner.members(config_member);
  };
  if (!scanner.take('{') || !scanner.members(root_member) || !found || !scanner.at_end()) return std::nullopt;
  return spans;
}

}  // namespace pt2onnx::archive
