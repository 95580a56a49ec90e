// --report FILE.json: a machine-readable record of one run of the CLI, success or failure
// (schema/pt2onnx-report.schema.json): versions, the files read and written with sizes and
// sha256, stage timings, counts, warnings, and on failure the error and the ops that blocked.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "pt2onnx.h"

namespace pt2onnx::cli {

struct RunRecord {
  std::vector<std::string> command;  // argv
  const ConvertOptions* options = nullptr;
  const ConvertReport* report = nullptr;  // null when the conversion failed
  int exit_code = 0;
  std::string error;  // the one-line message, on failure
};

// Writes the report (to a temp file, renamed into place). Throws pt2onnx::Error(kOutput).
void write_run_report(const std::filesystem::path& path, const RunRecord& record);

}  // namespace pt2onnx::cli
