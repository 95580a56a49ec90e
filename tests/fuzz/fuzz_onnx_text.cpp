// ONNX-text function bodies of config rules, through libonnx's parser and our checks.
#include "config/onnx_text.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = pt2onnx::fuzz::as_string(data, size);
  pt2onnx::fuzz::expect_clean([&] { (void)pt2onnx::config::parse_function(text, "$.rules[0].function"); });
  return 0;
}
