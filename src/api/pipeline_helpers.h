// Helpers shared by convert() and inspect(): the opset check and error context per stage.
#pragma once

#include <string>
#include <utility>

#include "common/error.h"
#include "pt2onnx.h"

namespace pt2onnx::api {

inline void check_opset(int opset) {
  PT2ONNX_CHECK(opset >= kMinOpset && opset <= kMaxOpset, ErrorCode::kUsage,
                "--opset " + std::to_string(opset) + " is not supported (supported: " + std::to_string(kMinOpset) +
                    " to " + std::to_string(kMaxOpset) + ")");
}

// Runs `stage`, prefixing any pt2onnx::Error with `context` (the archive's path), so messages
// name the file even when the stage itself only knows an entry name.
template <typename Fn>
auto with_context(const std::string& context, Fn&& stage) {
  try {
    return std::forward<Fn>(stage)();
  } catch (const Error& e) {
    throw e.with_context(context);
  }
}

}  // namespace pt2onnx::api
