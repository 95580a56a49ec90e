// Runs an action that must throw pt2onnx::Error(kArchive) and returns its message, so tests can
// assert on what the message names.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "common/error.h"

namespace pt2onnx::archive::testing {

inline std::string archive_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kArchive);
    return e.what();
  }
  FAIL("expected pt2onnx::Error");
  return {};
}

// True when `text` contains `part`; doctest prints both on failure via CHECK_MESSAGE.
inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace pt2onnx::archive::testing
