// Resource limits for reading untrusted input: how deep a document may nest and how much memory
// a small input may make us allocate. One process-wide table, set once by the CLI (--limit
// NAME=N) before any input is read; every reader checks against it and refuses with one line
// naming the limit and the flag that raises it. Declared once here; the README's "Limits" table
// and the CLI's --limit names come from kLimitNames.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace pt2onnx {

struct Limits {
  // Nesting of JSON documents (program and config), symbolic expressions, ONNX text bodies and
  // module stacks. Bounds every recursive walk over them, so none can exhaust the stack.
  uint64_t nesting = 512;
  // Estimated memory of one unpickled document (values, container slots, text), counted as it
  // is built, so a pickle cannot make far more than it holds.
  uint64_t pickle_bytes = uint64_t{256} << 20;
  // Size of a --config file.
  uint64_t config_bytes = uint64_t{16} << 20;
  // Characters of one symbolic expression (an exporter writes a few hundred at most).
  uint64_t expr_chars = uint64_t{64} << 10;
};

// The --limit names, in the order of Limits' fields.
struct LimitName {
  std::string_view name;
  uint64_t Limits::*field;
  std::string_view what;
};
inline constexpr std::array<LimitName, 4> kLimitNames = {{
    {"nesting", &Limits::nesting, "nesting depth of JSON, symbolic expressions, ONNX text and module stacks"},
    {"pickle-bytes", &Limits::pickle_bytes, "estimated memory of one unpickled document, in bytes"},
    {"config-bytes", &Limits::config_bytes, "size of a --config file, in bytes"},
    {"expr-chars", &Limits::expr_chars, "length of one symbolic expression, in characters"},
}};

inline Limits& limits() {
  static Limits instance;
  return instance;
}

// An input past a limit. A distinct type so that readers with a fallback for input they cannot
// parse (an opaque symbolic dim) still refuse input that is too big or too deep.
class LimitError : public Error {
 public:
  using Error::Error;
};

// "<what> exceeds the <name> limit (N); raise it with --limit <name>=M if the input is trusted".
[[noreturn]] inline void limit_exceeded(ErrorCode code, const std::string& what, std::string_view name) {
  for (const LimitName& l : kLimitNames) {
    if (l.name != name) continue;
    throw LimitError(code, what + " exceeds the " + std::string(name) + " limit (" +
                               std::to_string(limits().*l.field) + "); raise it with --limit " + std::string(name) +
                               "=N if the input is trusted");
  }
  fail(ErrorCode::kInternal, "unknown limit '" + std::string(name) + "'");
}

// Counts the nesting of a recursive reader. One per reader object; each level holds a guard.
class DepthGuard {
 public:
  DepthGuard(uint64_t& depth, ErrorCode code, const char* what) : depth_(depth) {
    if (++depth_ > limits().nesting) {
      --depth_;
      limit_exceeded(code, std::string(what) + " nesting", "nesting");
    }
  }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  uint64_t& depth_;
};

// The deepest bracket nesting of `text`, skipping double-quoted strings (with backslash escapes),
// for text that a library parses (nlohmann's JSON, libonnx's ONNX text) before our walks recurse
// over the result. `brackets` lists opening and closing characters in pairs ("[]{}").
inline uint64_t max_bracket_nesting(std::string_view text, std::string_view brackets) {
  bool open_char[256] = {}, close_char[256] = {};
  for (size_t i = 0; i + 1 < brackets.size(); i += 2) {
    open_char[static_cast<unsigned char>(brackets[i])] = true;
    close_char[static_cast<unsigned char>(brackets[i + 1])] = true;
  }
  uint64_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (open_char[c]) {
      if (++depth > deepest) deepest = depth;
    } else if (close_char[c] && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// Refuses `text` (named by `what`) whose brackets nest past the nesting limit.
inline void check_bracket_nesting(std::string_view text, std::string_view brackets, ErrorCode code,
                                  const std::string& what) {
  if (max_bracket_nesting(text, brackets) > limits().nesting) limit_exceeded(code, what + " nesting", "nesting");
}

}  // namespace pt2onnx
