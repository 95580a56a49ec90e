// convert(): the pipeline from a .pt2 archive to ONNX on disk, stage by stage.
#include <optional>
#include <utility>

#include "api/compile_kernels.h"
#include "api/dim_names.h"
#include "api/pipeline_helpers.h"
#include "archive/archive.h"
#include "common/error.h"
#include "config/config.h"
#include "emit/folded_weights.h"
#include "emit/write_model.h"
#include "hierarchy/hierarchy.h"
#include "hierarchy/module_instances.h"
#include "import/import_program.h"
#include "ir/rename_symbols.h"
#include "passes/passes.h"
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


// The --hiera options: CLI/config types plus the config's opaque module types (a module rule whose
// type matches no module is reported, not an error, like an op rule that matched nothing).
hierarchy::HierarchyOptions hierarchy_options(const ConvertOptions& options, const config::Config* config,
                                              const std::vector<std::vector<ir::ModuleFrame>>& node_modules,
                                              std::vector<std::string>& warnings) {
  hierarchy::HierarchyOptions out;
  out.types = options.hiera;
  out.domain = options.function_domain;
  out.function_name = options.function_name;
  if (!config) return out;
  for (const config::ModuleRule& rule : config->module_rules) {
    for (const std::string& type : options.hiera)
      PT2ONNX_CHECK(type != rule.type, ErrorCode::kUsage,
                    config->path.string() + ": " + rule.origin + " makes " + rule.type +
                        " an opaque node, but --hiera also asks for it as a function; choose one");
    if (hierarchy::deepest_match(rule.type, node_modules) < 0) {
      warnings.push_back("config rule " + rule.origin + " (module " + rule.type + ") matched no module of the model");
      continue;
    }
    out.types.push_back(rule.type);
    out.opaque.emplace(rule.type, rule.node);
  }
  return out;
}

// Which export symbol each user-named dim was, so the ONNX can be traced back to the export.
void add_dim_names_metadata(onnx::ModelProto& model, const std::map<std::string, std::string>& dim_names) {
  if (dim_names.empty()) return;
  std::string text = "{";
  for (const auto& [symbol, name] : dim_names)
    text += (text.size() > 1 ? ", \"" : "\"") + name + "\": \"" + symbol + "\"";
  onnx::StringStringEntryProto* entry = model.add_metadata_props();
  entry->set_key("pkg.pt2onnx.dim_names");
  entry->set_value(text + "}");
}

}  // namespace

ConvertReport convert(const ConvertOptions& options) {
  api::check_opset(options.opset);
  const std::string input_name = options.input.string();

  std::optional<config::Config> config;
  if (!options.config.empty()) config = config::load_config(options.config);
  api::KernelStage kernel_stage(options);  // --compile: NVRTC and --arch checked before any work

  std::unique_ptr<archive::Archive> archive = archive::Archive::open(options.input);
  ConvertReport report;
  report.model = choose_model(*archive, options.model);

  ir::Program program = api::with_context(input_name, [&] {
    return import::import_program(archive->model_json(report.model), archive->model_entry(report.model));
  });
  const std::map<std::string, std::string> dim_names =
      api::with_context(input_name, [&] { return api::resolve_dim_names(program, options.dim_names); });
  ir::rename_symbols(program, dim_names);
  report.nodes_in = static_cast<int64_t>(program.graph.nodes.size());

  translate::TranslateOptions translate_options;
  translate_options.opset = options.opset;
  if (config) translate_options.custom_ops = config->op_rules;
  translate::Translation translation =
      api::with_context(input_name, [&] { return translate::translate_program(program, translate_options); });
  add_dim_names_metadata(translation.model, dim_names);
  for (size_t i = 0; i < translate_options.custom_ops.size(); ++i)
    if (translation.custom_op_hits[i] == 0)
      translation.warnings.push_back("config rule " + translate_options.custom_ops[i].origin + " (op " +
                                     translate_options.custom_ops[i].op + ") matched no node");

  hierarchy::HierarchyOptions hiera_options =
      hierarchy_options(options, config ? &*config : nullptr, translation.node_modules, translation.warnings);
  kernel_stage.add_hiera_types(hiera_options.types);
  // Graph clean-up (passes/); BatchNorm folding derives weights that emit streams from the archive.
  emit::FoldedWeights folded_weights(translation, archive->weights(report.model), archive->constants(report.model));
  passes::clean_translation(translation, {hiera_options.types, options.fold ? &folded_weights : nullptr,
                                          passes::program_types(program)});
  if (!hiera_options.types.empty()) {
    const hierarchy::HierarchyReport folded = api::with_context(input_name, [&] {
      return hierarchy::fold_hierarchy(translation.model, translation.node_modules, hiera_options);
    });
    translation.warnings.insert(translation.warnings.end(), folded.warnings.begin(), folded.warnings.end());
    passes::clean_functions(translation.model);
    api::with_context(input_name, [&] { kernel_stage.prepare(translation.model, program, folded, hiera_options.domain); });
  }
  report.nodes_out = translation.model.graph().node_size();
  report.functions_out = translation.model.functions_size();

  report.output = options.output.empty() ? std::filesystem::path(options.input).replace_extension(".onnx")
                                         : options.output;
  emit::WriteOptions write_options;
  write_options.output = report.output;
  write_options.external_data = options.external_data;
  const emit::WriteResult written = emit::write_model(translation, *archive, folded_weights.weights(),
                                                      folded_weights.constants(), write_options);
  report.external_data = written.external_data;
  report.weight_count = written.weight_count;
  report.weight_bytes = written.weight_bytes;
  report.warnings = translation.warnings;  // the writer appends its own (e.g. forced external data)
  kernel_stage.write(report);
  return report;
}

const char* version() { return PT2ONNX_VERSION; }

}  // namespace pt2onnx
