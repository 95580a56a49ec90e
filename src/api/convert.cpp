// convert(): the pipeline from a .pt2 archive to ONNX on disk, stage by stage.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <utility>

#include "api/compile_kernels.h"
#include "api/dim_names.h"
#include "api/pipeline_helpers.h"
#include "api/weights_beside_clean.h"
#include "archive/archive.h"
#include "common/bulk_free.h"
#include "common/error.h"
#include "config/config.h"
#include "config/option_table.h"
#include "emit/archive_reference.h"
#include "emit/output_file.h"
#include "emit/model_set.h"
#include "emit/write_model.h"
#include "hierarchy/hierarchy.h"
#include "hierarchy/module_instances.h"
#include "model/diagnostics.h"
#include "import/import_program.h"
#include "ir/rename_symbols.h"
#include "clean/clean.h"
#include "pt2onnx.h"
#include "fx_passes/fuse_patterns.h"
#include "translate/translate.h"

namespace pt2onnx {

namespace {

// A --hiera or --compile type that matches no module is a warning, like a config rule that
// matches nothing, so one option set can serve a family of models (--strict makes it an error).
void drop_absent_types(std::vector<std::string>& types, const ir::ModuleStacks& node_modules,
                       model::Diagnostics& diagnostics);

// The --hiera options, built once: CLI/config types, the config's opaque module types (a module
// rule whose type matches no module is reported, not an error, like an op rule that matched
// nothing), and the --compile types (--compile implies --hiera), less those that match no module.
hierarchy::HierarchyOptions hierarchy_options(const ConvertOptions& options, const config::Config* config,
                                              const ir::ModuleStacks& node_modules, model::Diagnostics& diagnostics) {
  hierarchy::HierarchyOptions out;
  out.types = options.hiera;
  out.domain = options.function_domain;
  out.function_name = options.function_name;
  for (const config::ModuleRule& rule : config ? config->module_rules : std::vector<config::ModuleRule>{}) {
    for (const std::string& type : options.hiera)
      PT2ONNX_CHECK(type != rule.type, ErrorCode::kUsage,
                    config->path.string() + ": " + rule.origin + " makes " + rule.type +
                        " an opaque node, but --hiera also asks for it as a function; choose one");
    if (hierarchy::deepest_match(rule.type, node_modules) < 0) {
      diagnostics.warn(model::Stage::kConfig,
                       "config rule " + rule.origin + " (module " + rule.type + ") matched no module of the model");
      continue;
    }
    out.types.push_back(rule.type);
    out.opaque.emplace(rule.type, rule.node);
  }
  for (const std::string& type : options.compile)
    if (std::find(out.types.begin(), out.types.end(), type) == out.types.end()) out.types.push_back(type);
  drop_absent_types(out.types, node_modules, diagnostics);
  return out;
}

void drop_absent_types(std::vector<std::string>& types, const ir::ModuleStacks& node_modules,
                       model::Diagnostics& diagnostics) {
  std::vector<std::string> kept;
  for (const std::string& type : types) {
    if (hierarchy::deepest_match(type, node_modules) >= 0) {
      kept.push_back(type);
      continue;
    }
    std::string listed;
    for (const auto& [name, count] : hierarchy::module_types(node_modules))
      listed += (listed.empty() ? "" : ", ") + name + (count > 1 ? " (\u00d7" + std::to_string(count) + ")" : "");
    diagnostics.warn(model::Stage::kHierarchy, "--hiera " + type + " matches no module type of the model (types: " +
                                                   (listed.empty() ? "none, the graph carries no module stacks" : listed) +
                                                   ")");
  }
  types = std::move(kept);
}

// --strict: the first warning, as an error.
void refuse_warnings(const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  fail(ErrorCode::kStrict, "--strict: " + warnings.front() +
                               (warnings.size() > 1 ? " (and " + std::to_string(warnings.size() - 1) + " more warnings)" : ""));
}

// VmRSS and VmHWM of this process in bytes (0 when /proc is not there): a few microseconds.
std::pair<int64_t, int64_t> resident_bytes() {
  std::pair<int64_t, int64_t> out{0, 0};
  std::FILE* status = std::fopen("/proc/self/status", "re");
  if (!status) return out;
  char line[256];
  while (std::fgets(line, sizeof line, status)) {
    long long kb = 0;
    if (std::sscanf(line, "VmRSS: %lld kB", &kb) == 1) out.first = kb * 1024;
    if (std::sscanf(line, "VmHWM: %lld kB", &kb) == 1) out.second = kb * 1024;
  }
  std::fclose(status);
  return out;
}

// Times the stages of one conversion into the report, with the memory each leaves resident.
class StageClock {
 public:
  StageClock(std::vector<StageTiming>& stages, std::vector<StageMemory>& memory) : stages_(stages), memory_(memory) {}
  template <typename Fn>
  auto run(const char* stage, Fn&& fn) {
    const auto start = std::chrono::steady_clock::now();
    struct Record {
      StageClock& clock;
      const char* stage;
      std::chrono::steady_clock::time_point start;
      ~Record() { clock.add(stage, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()); }
    } record{*this, stage, start};
    return std::forward<Fn>(fn)();
  }
  void add(const char* stage, double seconds) {
    // A stage run twice in a row (the weights, then the constants) is one entry: after both.
    if (const auto [rss, peak] = resident_bytes(); peak > 0) {
      if (!memory_.empty() && memory_.back().stage == stage) memory_.back() = {stage, rss, peak};
      else memory_.push_back({stage, rss, peak});
    }
    for (StageTiming& s : stages_)
      if (s.stage == stage) {
        s.seconds += seconds;
        return;
      }
    stages_.push_back({stage, seconds});
  }

 private:
  std::vector<StageTiming>& stages_;
  std::vector<StageMemory>& memory_;
};

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

namespace {
// `list_only`: stops before writing, with report.outputs the files a conversion would write.
// `set`: one model of several written together (--all-models); its files are named by the set.
ConvertReport convert_checked(const ConvertOptions& options, bool list_only, emit::ModelSet* set = nullptr);
// --all-models: every model of the archive through convert_checked, one set of files.
ConvertReport convert_all(const ConvertOptions& options, bool list_only);
}  // namespace

// Every size an archive declares is bounded (common/limits.h), but what it implies (a JSON of many
// small nodes, a graph of many ops) can still exhaust a memory cap: that is the input's doing.
ConvertReport convert(const ConvertOptions& options) {
  try {
    return options.all_models ? convert_all(options, false) : convert_checked(options, false);
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::kArchive, options.input.string() +
                                  ": out of memory while converting (the archive needs more than this process may "
                                  "allocate; see --limit entry-bytes=N and ulimit -v)");
  }
}

ConvertReport list_outputs(const ConvertOptions& options) {
  return options.all_models ? convert_all(options, true) : convert_checked(options, true);
}

namespace {

// `<stem>.<model>.onnx` beside `output`: where --all-models writes each model.
std::filesystem::path model_output(const std::filesystem::path& output, const std::string& model) {
  return output.parent_path() / (output.stem().string() + "." + model + ".onnx");
}

void add_unique(std::vector<std::filesystem::path>& paths, const std::filesystem::path& path) {
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
}

ConvertReport convert_all(const ConvertOptions& options, bool list_only) {
  PT2ONNX_CHECK(options.model.empty(), ErrorCode::kUsage, "--all-models converts every model; it cannot be given with --model");
  PT2ONNX_CHECK(options.compile.empty(), ErrorCode::kUsage,
                "--compile cannot be given with --all-models yet (kernel bundles of several models would share names); "
                "convert each model with --model");
  const std::filesystem::path output = options.output.empty()
                                           ? std::filesystem::path(options.input).replace_extension(".onnx")
                                           : options.output;
  const std::vector<std::string> names = archive::Archive::open(options.input)->model_names();
  PT2ONNX_CHECK(!names.empty(), ErrorCode::kArchive, options.input.string() + ": the archive holds no model");
  emit::ModelSet set(output.parent_path() / (output.filename().string() + ".data"), options.input);
  ConvertReport merged;
  for (const std::string& name : names) {
    ConvertOptions one = options;
    one.all_models = false;
    one.model = name;
    one.output = model_output(output, name);
    ConvertReport report = convert_checked(one, list_only, &set);
    merged.model += (merged.model.empty() ? "" : ",") + name;
    if (merged.output.empty()) merged.output = report.output;
    if (!report.external_data.empty()) merged.external_data = report.external_data;
    merged.archive_location = report.archive_location;
    merged.nodes_in += report.nodes_in;
    merged.nodes_out += report.nodes_out;
    merged.functions_out += report.functions_out;
    merged.weight_count += report.weight_count;
    merged.weight_bytes += report.weight_bytes;
    merged.weight_bytes_referenced += report.weight_bytes_referenced;
    for (const std::string& warning : report.warnings) merged.warnings.push_back(name + ": " + warning);
    for (const StageTiming& stage : report.stages) merged.stages.push_back({name + ": " + stage.stage, stage.seconds});
    merged.memory.insert(merged.memory.end(), report.memory.begin(), report.memory.end());
    for (const auto& path : report.inputs) add_unique(merged.inputs, path);
    for (const auto& path : report.outputs) add_unique(merged.outputs, path);
    merged.per_model.push_back(std::move(report));
  }
  if (!list_only) set.commit();
  merged.shared_weights = set.shared_weights();
  merged.shared_bytes = set.shared_bytes();
  return merged;
}

ConvertReport convert_checked(const ConvertOptions& options, bool list_only, emit::ModelSet* set) {
  api::check_opset(options.opset);
  const std::string input_name = options.input.string();
  ConvertReport report;
  StageClock clock(report.stages, report.memory);

  // The config as the caller read it (options_from_config), else read here: once per conversion.
  std::shared_ptr<const config::Config> config = options.parsed_config;
  if (!config && !options.config.empty()) config = std::make_shared<const config::Config>(config::load_config(options.config));
  api::KernelStage kernel_stage(options, list_only);  // --compile: NVRTC and --arch checked before any work

  // Output paths are refused before any work (empty, the input itself, a device or FIFO).
  report.output = options.output.empty() ? std::filesystem::path(options.input).replace_extension(".onnx")
                                         : options.output;
  const std::optional<emit::FileIdentity> input_identity = emit::identity_of(options.input);
  emit::check_output_path(report.output, input_identity);
  if (const std::string error = config::external_data_error(options.external_data);
      !options.external_data.empty() && !error.empty())
    fail(ErrorCode::kUsage, "--external-data: " + error);
  const bool in_archive = options.external_data == "archive";
  if (options.external_data == "file")
    emit::check_output_path(set ? set->data_path() : report.output.parent_path() / (report.output.filename().string() + ".data"),
                            input_identity, "external data");
  if (in_archive) static_cast<void>(emit::archive_location(options.input, report.output));  // refused before any work
  if (options.matmul_nbits && (in_archive || set))
    fail(ErrorCode::kUsage, std::string("--matmul-nbits packs 4-bit weights, which ") +
                                (in_archive ? "--external-data=archive" : "--all-models") +
                                " never derives; use --external-data (a file) and convert one model at a time");

  std::unique_ptr<archive::Archive> archive = clock.run("read", [&] {
    std::unique_ptr<archive::Archive> opened = archive::Archive::open(options.input);
    report.model = api::choose_model(*opened, options.model);
    return opened;
  });
  report.inputs.push_back(options.input);
  if (config) report.inputs.push_back(options.config);

  // Archive errors name the file themselves; the importer's gain it here.
  ir::Program program = clock.run("import", [&] {
    const std::unique_ptr<ReadOnceText> program_json = archive->model_text(report.model);
    // Node metadata (stack traces, torch_fn) and the module call graph are read by no later stage: not built.
    return api::with_context(input_name, [&] {
      return import::import_program(*program_json, archive->model_entry(report.model), import::kGraphAndSignature);
    });
  });
  const std::map<std::string, std::string> dim_names =
      api::with_context(input_name, [&] { return api::resolve_dim_names(program, options.dim_names); });
  ir::rename_symbols(program, dim_names);
  report.nodes_in = static_cast<int64_t>(program.graph.nodes.size());

  model::Diagnostics diagnostics;
  translate::TranslateOptions translate_options;
  translate_options.opset = options.opset;
  if (config) translate_options.custom_ops = config->op_rules;
  translate_options.fuse = options.fuse;
  translate_options.module_stacks =
      !options.hiera.empty() || !options.compile.empty() || (config && !config->module_rules.empty());
  translate::Translated translated = clock.run("translate", [&] {
    // Without fusion the pass returns a copy of the whole program: skip it.
    if (translate_options.fuse && translate_options.opset >= fx_passes::kMinFusedOpset)
      program = fx_passes::fuse_patterns(program, translate_options).program;
    return api::with_context(input_name, [&] {
      return translate::translate_program(std::move(program), translate_options, diagnostics);
    });
  });
  model::OnnxModel& model = translated.model;
  add_dim_names_metadata(model.proto, dim_names);
  model.proto.set_producer_version(version());
  for (size_t i = 0; i < translate_options.custom_ops.size(); ++i)
    if (translated.custom_op_hits[i] == 0)
      diagnostics.warn(model::Stage::kConfig, "config rule " + translate_options.custom_ops[i].origin + " (op " +
                                                  translate_options.custom_ops[i].op + ") matched no node");

  const hierarchy::HierarchyOptions hiera_options =
      hierarchy_options(options, config.get(), model.node_modules, diagnostics);
  if (hiera_options.types.empty()) ir::ModuleStacks().swap(model.node_modules);  // only --hiera reads them
  // Graph clean-up (clean/), with the weights' index read beside it; BatchNorm folding derives
  // weights that emit streams from the archive. Weights referenced inside the archive are its
  // bytes as they are, and so are those several models share (--all-models: a weight one model
  // would read transposed and another as it is could not be stored once): nothing is derived
  // then (--no-fold, and weight Transposes stay nodes).
  auto weights_owner = std::make_unique<api::WeightsBesideClean>(*archive, report.model);
  api::WeightsBesideClean& weights = *weights_owner;
  const std::vector<model::DerivedWeight> derived = clock.run("clean", [&] {
    clean::CleanOptions clean_options;
    clean_options.hiera_types = hiera_options.types;
    clean_options.weights = &weights;
    clean_options.fold_weights = options.fold && !in_archive && !set;
    clean_options.pack_weights = !in_archive && !set;  // a packed weight is derived too
    clean_options.matmul_nbits = options.matmul_nbits;
    clean_options.types = clean::value_type_oracle(translated.value_types);
    clean::Cleaned cleaned = clean::clean_model(std::move(model), clean_options);
    model = std::move(cleaned.model);
    return std::move(cleaned.derived);
  });
  clock.run("read", [&] { weights.tensors(); });  // where the index was taken before: errors keep their order
  const api::ArchiveTensors& archive_tensors = weights.tensors();
  if (!hiera_options.types.empty()) {
    const hierarchy::HierarchyReport folded = clock.run("hierarchy", [&] {
      return api::with_context(input_name, [&] {
        return hierarchy::fold_hierarchy(model.proto, model.node_modules, hiera_options);
      });
    });
    for (const std::string& warning : folded.warnings) diagnostics.warn(model::Stage::kHierarchy, warning);
    clock.run("clean", [&] { clean::clean_functions(model.proto); });
    if (kernel_stage.active())
      clock.run("kernels", [&] {
        api::with_context(input_name, [&] {
          kernel_stage.prepare(model.proto, translated.value_types, folded, hiera_options.domain);
        });
      });
  }
  report.nodes_out = model.proto.graph().node_size();
  report.functions_out = model.proto.functions_size();

  emit::WriteOptions write_options;
  write_options.output = report.output;
  write_options.external_data = options.external_data == "file";
  write_options.reference_archive = in_archive;
  write_options.model_set = set;
  write_options.on_progress = options.on_weight_progress;
  if (list_only) {  // the files the steps below write, decided as they decide
    report.outputs.push_back(report.output);
    const emit::OutputPlan plan =
        emit::plan_outputs(model, archive_tensors.weights, archive_tensors.constants, derived, write_options);
    for (const std::string& warning : plan.warnings) diagnostics.warn(model::Stage::kEmit, warning);
    if (!plan.data_file.empty()) report.outputs.push_back(plan.data_file);
    for (const auto& file : kernel_stage.planned_files(report.output)) report.outputs.push_back(file);
    report.warnings = diagnostics.messages();
    return report;
  }
  if (options.strict) refuse_warnings(diagnostics.messages());
  const size_t warnings_before_write = diagnostics.size();
  const emit::WriteResult written = clock.run("emit", [&] {
    // A weight the archive lacks is the input's fault: name the input.
    return api::with_context(input_name, [&] {
      return emit::write_model(model, *archive, archive_tensors.weights, archive_tensors.constants, derived,
                               write_options, diagnostics);
    });
  });
  report.external_data = written.external_data;
  report.weight_count = written.weight_count;
  report.weight_bytes = written.weight_bytes;
  report.weight_bytes_referenced = written.referenced_bytes;
  report.archive_location = written.archive_location;
  report.warnings = diagnostics.messages();  // the writer adds its own (e.g. forced external data)
  report.outputs.push_back(report.output);
  if (!report.external_data.empty()) report.outputs.push_back(report.external_data);
  if (options.strict && report.warnings.size() > warnings_before_write) {
    std::error_code ec;
    if (!set)  // a set names nothing before all its models are written
      for (const auto& path : report.outputs) std::filesystem::remove(path, ec);
    refuse_warnings(diagnostics.messages(warnings_before_write));
  }
  if (kernel_stage.active()) clock.run("kernels", [&] { kernel_stage.write(report); });
  for (const KernelBundleReport& bundle : report.kernel_bundles) report.outputs.push_back(bundle.dir / "manifest.json");
  leave_for_exit(translated);  // a move: the graph is not copied
  leave_for_exit(weights_owner);
  leave_for_exit(archive);
  return report;
}

}  // namespace

const char* version() { return PT2ONNX_VERSION_STRING; }

}  // namespace pt2onnx
