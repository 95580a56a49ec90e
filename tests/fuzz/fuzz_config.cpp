// The --config loader: JSON text -> Config, rule bodies in ONNX text included.
#include "config/config.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = pt2onnx::fuzz::as_string(data, size);
  pt2onnx::fuzz::expect_clean([&] { (void)pt2onnx::config::parse_config(text, "/fuzz/rules.json"); });
  return 0;
}
