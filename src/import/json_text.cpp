// JSON text -> nlohmann::json, tolerating Python's non-finite float tokens.
#include "import/json_text.h"

#include <array>
#include <string_view>

#include "common/error.h"
#include "common/limits.h"

namespace pt2onnx::import {

namespace {

constexpr std::array<std::string_view, 3> kNonFiniteTokens = {"-Infinity", "Infinity", "NaN"};

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The non-finite token starting at `pos` outside a string, or "".
std::string_view token_at(const std::string& text, size_t pos) {
  if (pos > 0 && is_identifier_char(text[pos - 1])) return {};
  for (std::string_view token : kNonFiniteTokens) {
    if (text.compare(pos, token.size(), token) != 0) continue;
    size_t end = pos + token.size();
    if (end < text.size() && is_identifier_char(text[end])) continue;
    return token;
  }
  return {};
}

}  // namespace

std::string quote_nonfinite_tokens(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    if (c == '-' || c == 'I' || c == 'N') {
      std::string_view token = token_at(text, i);
      if (!token.empty()) {
        out += '"';
        out += token;
        out += '"';
        i += token.size() - 1;
        continue;
      }
    }
    out += c;
  }
  return out;
}

nlohmann::json parse_export_json(const std::string& text, const std::string& source_name) {
  // nlohmann's parser is iterative, but our readers recurse over the document: bound its depth first.
  check_bracket_nesting(text, "[]{}", ErrorCode::kArchive, source_name + ": JSON");
  // Quoting copies the text, so do it only when a token may be present (rare: torch 2.3-2.4).
  bool may_have_tokens = text.find("Infinity") != std::string::npos || text.find("NaN") != std::string::npos;
  try {
    return may_have_tokens ? nlohmann::json::parse(quote_nonfinite_tokens(text)) : nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // parse_error for syntax, out_of_range for a number such as 1e999 that no double holds.
    fail(ErrorCode::kArchive, source_name + ": malformed JSON: " + json_error_text(e));
  }
}

std::string json_error_text(const nlohmann::json::exception& e) {
  std::string message = e.what();
  if (size_t bracket = message.find("] "); message.starts_with("[json.exception") && bracket != std::string::npos)
    message = message.substr(bracket + 2);
  return message;
}

}  // namespace pt2onnx::import
