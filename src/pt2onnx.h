// The public API: convert a .pt2 archive to ONNX. The CLI is a thin shell over this.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pt2onnx {

struct ConvertOptions {
  std::filesystem::path input;
  std::filesystem::path output;  // empty: input with the extension .onnx
  std::string model;             // empty: the only model in the archive
  int opset = 18;
  bool external_data = false;    // forced on when weights exceed the 2 GB protobuf limit
  // --hiera: module types whose instances become calls of ONNX local functions (class name
  // alone or qualified); empty: a flat graph.
  std::vector<std::string> hiera;
};

struct ConvertReport {
  std::string model;
  std::filesystem::path output;
  std::filesystem::path external_data;  // empty when weights are embedded
  int64_t nodes_in = 0;    // FX nodes read
  int64_t nodes_out = 0;   // ONNX nodes written (main graph)
  int64_t functions_out = 0;  // local functions written (--hiera)
  int64_t weight_count = 0;
  int64_t weight_bytes = 0;
  std::vector<std::string> warnings;
};

// Converts; throws pt2onnx::Error. On failure nothing is left at the output paths.
ConvertReport convert(const ConvertOptions& options);

// The smallest and largest opset `--opset` accepts.
constexpr int kMinOpset = 17;
constexpr int kMaxOpset = 23;

const char* version();

}  // namespace pt2onnx
