// The ExportedProgram JSON importer: text -> ir::Program. Differential as well: the import with
// the fast graph readers (import/fast_graph.h), the same with the nodes read on a second thread
// in pieces of one node (import/nodes_beside.h; forced here, large programs only otherwise) and
// the one through the general readers alone must give the same IR, or the same error, on every
// input.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "import/import_program.h"
#include "import/ir_text.h"

namespace {

template <typename Import>
std::string outcome(Import&& import) {
  std::string out;
  pt2onnx::fuzz::expect_clean([&] {
    try {
      out = pt2onnx::test::graph_text(import().graph);
    } catch (const pt2onnx::Error& e) {
      out = "error " + std::to_string(static_cast<int>(e.code())) + ": " + e.what();
      throw;
    }
  });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = pt2onnx::fuzz::as_string(data, size);
  const std::string fast = outcome([&] { return pt2onnx::import::import_program(text, "models/fuzz.json"); });
  const std::string general = outcome([&] { return pt2onnx::import::import_program_general(text, "models/fuzz.json"); });
  if (fast != general) {
    std::fprintf(stderr, "the fast and the general import differ:\n%s\n--- general:\n%s\n", fast.c_str(), general.c_str());
    std::abort();
  }
  std::string padded = text;
  padded.reserve(text.size() + pt2onnx::ReadOnceText::kPadding);
  pt2onnx::import::ImportParts split;
  split.nodes_beside = {.min_bytes = 0, .piece_bytes = 1};
  const std::string beside = outcome([&] { return pt2onnx::import::import_program(padded, "models/fuzz.json", split); });
  if (beside != fast) {
    std::fprintf(stderr, "the import with the nodes beside differs:\n%s\n--- on one thread:\n%s\n", beside.c_str(), fast.c_str());
    std::abort();
  }
  return 0;
}
