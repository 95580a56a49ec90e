// The ExportedProgram JSON importer: text -> ir::Program.
#include "fuzz_support.h"
#include "import/import_program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = pt2onnx::fuzz::as_string(data, size);
  pt2onnx::fuzz::expect_clean([&] { (void)pt2onnx::import::import_program(text, "models/fuzz.json"); });
  return 0;
}
