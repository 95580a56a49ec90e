// write_run_report(): see run_report.h.
#include "cli/run_report.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include "api/inspect.h"
#include "common/error.h"
#include "kernels/sha256.h"

namespace pt2onnx::cli {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kFormatVersion = 1;

Json file_entry(const std::filesystem::path& path) {
  Json entry = {{"path", path.string()}};
  std::ifstream in(path, std::ios::binary);
  if (!in) return entry;  // not there (a failed run): path only
  kernels::Sha256 hash;
  std::vector<char> buffer(size_t{1} << 20);
  int64_t bytes = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize got = in.gcount();
    hash.update(std::string_view(buffer.data(), static_cast<size_t>(got)));
    bytes += got;
  }
  entry["bytes"] = bytes;
  entry["sha256"] = hash.hex();
  return entry;
}

// On an unsupported-op failure: which ops blocked, by inspecting the archive again.
Json blocking_ops(const ConvertOptions& options) {
  Json out = Json::array();
  try {
    InspectOptions inspect_options;
    inspect_options.input = options.input;
    inspect_options.model = options.model;
    inspect_options.opset = options.opset;
    inspect_options.config = options.config;
    for (const ModelInspection& model : inspect(inspect_options).models)
      for (const OpSummary& op : model.ops)
        if (op.blocks_conversion())
          out.push_back({{"target", op.target},
                         {"nodes", op.count},
                         {"reason", op.support == OpSupport::kNeedsOpset ? "needs a newer opset" : "no rule"}});
  } catch (const Error&) {
    // The archive itself is the problem; the error says so.
  }
  return out;
}

}  // namespace

void write_run_report(const std::filesystem::path& path, const RunRecord& record) {
  Json doc;
  doc["format_version"] = kFormatVersion;
  doc["pt2onnx_version"] = version();
  doc["command"] = record.command;
  doc["status"] = record.exit_code == 0 ? "ok" : "error";
  doc["exit_code"] = record.exit_code;
  if (!record.error.empty()) doc["error"] = record.error;
  const ConvertOptions& options = *record.options;
  doc["opset"] = options.opset;
  Json inputs = Json::array(), outputs = Json::array();
  if (const ConvertReport* report = record.report) {
    doc["model"] = report->model;
    for (const auto& p : report->inputs) inputs.push_back(file_entry(p));
    for (const auto& p : report->outputs) outputs.push_back(file_entry(p));
    Json stages = Json::array();
    for (const StageTiming& s : report->stages) stages.push_back({{"stage", s.stage}, {"seconds", s.seconds}});
    doc["stages"] = stages;
    doc["counts"] = {{"fx_nodes", report->nodes_in},
                     {"onnx_nodes", report->nodes_out},
                     {"functions", report->functions_out},
                     {"weights", report->weight_count},
                     {"weight_bytes", report->weight_bytes},
                     {"kernel_bundles", report->kernel_bundles.size()}};
    doc["warnings"] = report->warnings;
    doc["kernels_refused"] = report->kernels_refused;
  } else {
    if (!options.input.empty()) inputs.push_back(file_entry(options.input));
    if (!options.config.empty()) inputs.push_back(file_entry(options.config));
    doc["stages"] = Json::array();
    doc["warnings"] = Json::array();
  }
  doc["inputs"] = inputs;
  doc["outputs"] = outputs;
  doc["unsupported_ops"] = record.exit_code == static_cast<int>(ErrorCode::kUnsupported) && !record.report
                               ? blocking_ops(options)
                               : Json::array();

  const std::filesystem::path temp = path.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary);
    out << doc.dump(2) << "\n";
    out.close();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(temp, ec);
      fail(ErrorCode::kOutput, path.string() + ": cannot write the report");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  PT2ONNX_CHECK(!ec, ErrorCode::kOutput, path.string() + ": cannot write the report: " + ec.message());
}

}  // namespace pt2onnx::cli
