// One error type for the whole converter. The library throws pt2onnx::Error; only the CLI turns
// its code into an exit status. Context (file, JSON field, node, op) is added on the way up, so the
// final message reads outermost-first: "model.pt2: models/model.json: node linear_3: ...".
#pragma once

#include <stdexcept>
#include <string>

namespace pt2onnx {

enum class ErrorCode {
  kUsage = 2,        // bad command line or config
  kArchive = 3,      // unreadable zip, missing entry, malformed JSON, bad weights
  kUnsupported = 4,  // an op or construct we cannot translate
  // 5 is unused: no ONNX checker runs in C++ (the tests run onnx's), so nothing fails "validation".
  kCompile = 6,      // CUDA / NVRTC
  kOutput = 7,       // cannot write the output
  kStrict = 8,       // --strict: a warning, refused
  kInternal = 70,    // a bug of ours
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }
  // Returns a copy whose message is prefixed with `context: `, unless it already starts with
  // that (a stage that names the file itself must not get it twice).
  Error with_context(const std::string& context) const {
    const std::string message = what();
    if (message.starts_with(context + ": ")) return *this;
    return Error(code_, context + ": " + message);
  }

 private:
  ErrorCode code_;
};

[[noreturn]] inline void fail(ErrorCode code, const std::string& message) { throw Error(code, message); }

}  // namespace pt2onnx

#define PT2ONNX_CHECK(cond, code, message)                        \
  do {                                                            \
    if (!(cond)) ::pt2onnx::fail((code), (message));              \
  } while (0)
