// The zip/archive layer: bytes -> Archive (zip directory, layouts, nested torch.save zips,
// weight configs, pickles), reading every model's JSON, weights and constants and the first
// bytes of every storage. The input is written to one file per process, since Archive opens
// paths.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "archive/archive.h"
#include "fuzz_support.h"

namespace {

const std::filesystem::path& scratch_path() {
  static const std::filesystem::path path = [] {
    std::atexit([] { std::filesystem::remove(scratch_path()); });
    return std::filesystem::temp_directory_path() / ("pt2onnx_fuzz_archive_" + std::to_string(getpid()) + ".pt2");
  }();
  return path;
}

void read_tensors(const std::map<std::string, pt2onnx::archive::TensorData>& tensors) {
  std::vector<char> buffer(16);
  for (const auto& [name, tensor] : tensors)
    if (tensor.storage && tensor.storage->size() > 0)
      tensor.storage->read(0, std::min<uint64_t>(16, tensor.storage->size()), buffer.data());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream out(scratch_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  pt2onnx::fuzz::expect_clean([&] {
    auto archive = pt2onnx::archive::Archive::open(scratch_path());
    for (const std::string& model : archive->model_names()) {
      pt2onnx::fuzz::expect_clean([&] { (void)archive->model_json(model); });
      // The mapped text the import reads: the same bytes as model_json, or the same refusal.
      pt2onnx::fuzz::expect_clean([&] {
        std::string json;
        try {
          json = archive->model_json(model);
        } catch (const pt2onnx::Error&) {
          json = "<refused>";
        }
        std::string mapped;
        try {
          mapped = std::string(archive->model_text(model)->text());
        } catch (const pt2onnx::Error&) {
          mapped = "<refused>";
        }
        if (json != mapped) {
          std::fprintf(stderr, "model_text and model_json differ\n");
          std::abort();
        }
      });
      pt2onnx::fuzz::expect_clean([&] { read_tensors(archive->weights(model)); });
      pt2onnx::fuzz::expect_clean([&] { read_tensors(archive->constants(model)); });
    }
  });
  return 0;
}
