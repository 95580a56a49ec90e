// convert(): the pipeline from a .pt2 archive to ONNX on disk, stage by stage.
#include <utility>

#include "api/pipeline_helpers.h"
#include "archive/archive.h"
#include "common/error.h"
#include "emit/write_model.h"
#include "hierarchy/hierarchy.h"
#include "import/import_program.h"
#include "pt2onnx.h"
#include "translate/translate.h"

namespace pt2onnx {

namespace {

std::string choose_model(const archive::Archive& archive, const std::string& requested) {
  const std::vector<std::string> names = archive.model_names();
  auto list = [&] {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  if (requested.empty()) {
    PT2ONNX_CHECK(!names.empty(), ErrorCode::kArchive, archive.path().string() + ": the archive holds no model");
    PT2ONNX_CHECK(names.size() == 1, ErrorCode::kUsage,
                  archive.path().string() + ": the archive holds several models (" + list() + "); choose one with --model");
    return names.front();
  }
  for (const auto& n : names)
    if (n == requested) return n;
  fail(ErrorCode::kUsage, archive.path().string() + ": no model '" + requested + "' (models: " + list() + ")");
}


}  // namespace

ConvertReport convert(const ConvertOptions& options) {
  api::check_opset(options.opset);
  const std::string input_name = options.input.string();

  std::unique_ptr<archive::Archive> archive = archive::Archive::open(options.input);
  ConvertReport report;
  report.model = choose_model(*archive, options.model);

  const ir::Program program = api::with_context(input_name, [&] {
    return import::import_program(archive->model_json(report.model), archive->model_entry(report.model));
  });
  report.nodes_in = static_cast<int64_t>(program.graph.nodes.size());

  translate::Translation translation =
      api::with_context(input_name, [&] { return translate::translate_program(program, {options.opset}); });
  if (!options.hiera.empty()) {
    hierarchy::HierarchyOptions hiera_options;
    hiera_options.types = options.hiera;
    api::with_context(input_name, [&] {
      return hierarchy::fold_hierarchy(translation.model, translation.node_modules, hiera_options);
    });
  }
  report.nodes_out = translation.model.graph().node_size();
  report.functions_out = translation.model.functions_size();

  report.output = options.output.empty() ? std::filesystem::path(options.input).replace_extension(".onnx")
                                         : options.output;
  emit::WriteOptions write_options;
  write_options.output = report.output;
  write_options.external_data = options.external_data;
  const emit::WriteResult written = emit::write_model(translation, *archive, archive->weights(report.model),
                                                      archive->constants(report.model), write_options);
  report.external_data = written.external_data;
  report.weight_count = written.weight_count;
  report.weight_bytes = written.weight_bytes;
  report.warnings = translation.warnings;  // the writer appends its own (e.g. forced external data)
  return report;
}

const char* version() { return PT2ONNX_VERSION; }

}  // namespace pt2onnx
