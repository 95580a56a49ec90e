// Resource limits for reading untrusted input: how deep a document may nest and how much memory
// a small archive or config may make us allocate. Declared once, in kLimitSpecs; the CLI's
// --limit NAME=N (and its aliases --max-entry-bytes, --max-inflate-ratio), its help, and the
// README's "Safety" table come from it. The values in force are process-wide (limits()), set
// once before any input is read (by the CLI, or by a library user before convert()/inspect());
// every reader checks against them and refuses with limit_exceeded()'s one line.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace pt2onnx {

// The values in force. Fields are filled from kLimitSpecs below (their one declaration).
struct Limits {
  uint64_t nesting;        // nesting of JSON, symbolic expressions, ONNX text, module stacks
  uint64_t pickle_bytes;   // estimated memory of one unpickled document
  uint64_t config_bytes;   // size of a --config file
  uint64_t expr_chars;     // characters of one symbolic expression
  uint64_t entry_bytes;    // an archive entry read whole into memory
  uint64_t inflate_ratio;  // size / compressed size of a large DEFLATE entry
  Limits();
};

// One limit: its --limit name, default, unit, what it bounds (the README's "Safety" table is
// checked against these by tests/unit/api/limits_readme_test.cpp), the exit codes of a refusal,
// and the older flag that is an alias of `--limit NAME=N`, if any.
struct LimitSpec {
  std::string_view name;
  uint64_t Limits::*field;
  uint64_t default_value;
  std::string_view unit;
  std::string_view bounds;
  std::string_view exit_codes;  // of a refusal: 3 (kArchive) for an archive, 2 (kUsage) for a config
  std::string_view alias;
};

inline constexpr std::array<LimitSpec, 6> kLimitSpecs = {{
    {"nesting", &Limits::nesting, 512, "levels",
     "nesting of the program JSON, config JSON and ONNX-text rule bodies (checked on the text before parsing), "
     "of symbolic size expressions (parentheses, calls, signs, powers), and the frames of an nn_module_stack",
     "3, or 2 in a config", ""},
    {"pickle-bytes", &Limits::pickle_bytes, uint64_t{256} << 20, "bytes",
     "the memory one unpickled data.pkl may take: every value, stack slot, memo entry, copied container slot and "
     "text byte is charged as it is made",
     "3", ""},
    {"config-bytes", &Limits::config_bytes, uint64_t{16} << 20, "bytes",
     "the size of a --config file; no more than this is read", "2", ""},
    {"expr-chars", &Limits::expr_chars, uint64_t{64} << 10, "characters", "the length of one symbolic expression",
     "3", ""},
    {"entry-bytes", &Limits::entry_bytes, uint64_t{512} << 20, "bytes",
     "an archive entry read whole into memory (program JSON, weight configs, pickles); weights are streamed", "3",
     "--max-entry-bytes"},
    {"inflate-ratio", &Limits::inflate_ratio, 200, "x",
     "size / compressed size of a DEFLATE entry over 1 MiB (zip bombs); re-zipped JSON inflates 10-30x", "3",
     "--max-inflate-ratio"},
}};

// DEFLATE entries up to this size are never refused for their ratio: they cost nothing.
inline constexpr uint64_t kRatioFreeBytes = uint64_t{1} << 20;

inline Limits::Limits() {
  for (const LimitSpec& spec : kLimitSpecs) this->*spec.field = spec.default_value;
}

inline const LimitSpec* find_limit(std::string_view name) {
  for (const LimitSpec& spec : kLimitSpecs)
    if (spec.name == name) return &spec;
  return nullptr;
}

inline Limits& limits() {
  static Limits instance;
  return instance;
}

// Sets one limit for a scope and restores it after (tests; a library user raising one for a call).
class ScopedLimit {
 public:
  ScopedLimit(uint64_t Limits::*field, uint64_t value) : field_(field), saved_(limits().*field) {
    limits().*field = value;
  }
  ~ScopedLimit() { limits().*field_ = saved_; }
  ScopedLimit(const ScopedLimit&) = delete;
  ScopedLimit& operator=(const ScopedLimit&) = delete;

 private:
  uint64_t Limits::*field_;
  uint64_t saved_;
};

// An input past a limit. A distinct type so that readers with a fallback for input they cannot
// parse (an opaque symbolic dim) still refuse input that is too big or too deep.
class LimitError : public Error {
 public:
  using Error::Error;
};

// The one refusal format of every limit: "<what> exceeds the <name> limit (N <unit>); raise it
// with --limit <name>=N if the input is trusted". `what` starts with the file or field.
[[noreturn]] inline void limit_exceeded(ErrorCode code, const std::string& what, std::string_view name) {
  const LimitSpec* spec = find_limit(name);
  if (spec == nullptr) fail(ErrorCode::kInternal, "unknown limit '" + std::string(name) + "'");
  throw LimitError(code, what + " exceeds the " + std::string(name) + " limit (" +
                             std::to_string(limits().*spec->field) + (spec->unit == "x" ? "" : " ") + std::string(spec->unit) +
                             "); raise it with --limit " + std::string(name) + "=N if the input is trusted");
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
