// Every committed sample archive (torch 2.2-2.15, both IRs, control flow, zoo rows): the import
// with the fast graph readers gives the same IR as the general readers alone, and the fast ones
// take the archives whose encoding they know (fast_graph.h).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "common/error.h"
#include "import/fast_graph.h"
#include "import/import_program.h"
#include "import/ir_text.h"
#include "import/json_doc.h"

TEST_CASE("fast graph readers: the samples' IR is the general readers' IR") {
  std::vector<std::filesystem::path> archives;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(PT2ONNX_SAMPLES_DIR))
    if (entry.path().extension() == ".pt2") archives.push_back(entry.path());
  REQUIRE(archives.size() > 200);
  int models = 0;
  int taken = 0;
  for (const auto& path : archives) {
    std::unique_ptr<pt2onnx::archive::Archive> archive;
    try {
      archive = pt2onnx::archive::Archive::open(path);
    } catch (const pt2onnx::Error&) {
      continue;  // the damaged-archive samples: refused before any JSON is read
    }
    for (const std::string& model : archive->model_names()) {
      std::string json;
      try {
        json = archive->model_json(model);
      } catch (const pt2onnx::Error&) {
        continue;
      }
      CAPTURE(path.string());
      ++models;
      pt2onnx::import::FastGraph fast;
      if (pt2onnx::import::parse_program_doc_fast(json, "model.json", fast) && fast.nodes_taken) ++taken;
      std::string general;
      std::string error;
      try {
        general = pt2onnx::test::graph_text(pt2onnx::import::import_program_general(json, "model.json").graph);
      } catch (const pt2onnx::Error& e) {
        error = e.what();
      }
      try {
        CHECK(pt2onnx::test::graph_text(pt2onnx::import::import_program(json, "model.json").graph) == general);
        CHECK(error.empty());
      } catch (const pt2onnx::Error& e) {
        CHECK(std::string(e.what()) == error);
      }
    }
  }
  MESSAGE(taken << " of " << models << " sample models were read by the fast graph readers");
  CHECK(models > 200);
  CHECK(taken * 2 > models);  // most: every torch >= 2.5 archive without higher-order ops
}
