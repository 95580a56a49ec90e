// Shared by the libFuzzer harnesses: the one property every reader must have on any input is
// that it either succeeds or throws pt2onnx::Error with a documented code. Anything else — a
// crash, a sanitizer report, another exception, an internal error (exit 70) — is a finding.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "common/error.h"

namespace pt2onnx::fuzz {

template <typename F>
void expect_clean(F&& body) {
  try {
    body();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kInternal) {
      std::fprintf(stderr, "internal error on input: %s\n", e.what());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exception other than pt2onnx::Error: %s\n", e.what());
    std::abort();
  }
}

inline std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace pt2onnx::fuzz
