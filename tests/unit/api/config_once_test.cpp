// A config file is read once per conversion: options_from_config() hands its reading to
// convert(), which takes the rules from it instead of opening the file again.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "pt2onnx.h"

TEST_CASE("convert() uses the config options_from_config() read, not the file again") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "pt2onnx-config-once";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path config = dir / "c.json";
  std::ofstream(config) << R"({"input": ")" << PT2ONNX_SAMPLES_DIR << R"(/mlp.default.pt2", "output": "m.onnx",
    "rules": [{"op": "aten.relu", "domain": "com.example", "op_type": "MyRelu"}]})";
  pt2onnx::ConvertOptions options = pt2onnx::options_from_config(config);
  CHECK(options.output == dir / "m.onnx");
  REQUIRE(options.parsed_config != nullptr);
  std::filesystem::remove(config);  // a second reading would fail now
  const pt2onnx::ConvertReport report = pt2onnx::convert(options);
  CHECK(std::filesystem::exists(dir / "m.onnx"));
  CHECK(report.warnings.empty());  // the rule matched: it came from the first reading
  CHECK(report.inputs.size() == 2);
  std::filesystem::remove_all(dir);
}
