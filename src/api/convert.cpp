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
  emit::ModelSet set(output.parent_path() / (output.filename().string() + ".data"));
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

// One conversion as its stages see it: what they read (the options, the set of models it belongs
// to, the input's name for messages) and what they write to (the report with its stage clock,
// the diagnostics). Each stage takes the previous one's output by move and returns its own.
struct Conversion {
  Conversion(const ConvertOptions& o, emit::ModelSet* s) : options(o), set(s), input_name(o.input.string()) {}
  const ConvertOptions& options;
  emit::ModelSet* set;  // --all-models: the set this model is written into
  const std::string input_name;
  ConvertReport report;
  StageClock clock{report.stages, report.memory};
  model::Diagnostics diagnostics;
  // Weights referenced inside the archive are its bytes as they are, and so are those several
  // models share (--all-models: a weight one model would read transposed and another as it is
  // could not be stored once): nothing is derived then (no folding, no 4-bit packing).
  bool in_archive() const { return options.external_data == "archive"; }
  bool derives_weights() const { return !in_archive() && !set; }
};

// The config as the caller read it (options_from_config), else read here: once per conversion.
std::shared_ptr<const config::Config> read_config(const ConvertOptions& options) {
  if (options.parsed_config || options.config.empty()) return options.parsed_config;
  return std::make_shared<const config::Config>(config::load_config(options.config));
}

// The .onnx path. Output paths are refused before any work (empty, the input itself, a device or
// FIFO), and so are the options that cannot apply to them.
std::filesystem::path check_outputs(const Conversion& c) {
  const ConvertOptions& options = c.options;
  const std::filesystem::path output =
      options.output.empty() ? std::filesystem::path(options.input).replace_extension(".onnx") : options.output;
  const std::optional<emit::FileIdentity> input_identity = emit::identity_of(options.input);
  emit::check_output_path(output, input_identity);
  if (const std::string error = config::external_data_error(options.external_data);
      !options.external_data.empty() && !error.empty())
    fail(ErrorCode::kUsage, "--external-data: " + error);
  if (options.external_data == "file")
    emit::check_output_path(c.set ? c.set->data_path() : output.parent_path() / (output.filename().string() + ".data"),
                            input_identity, "external data");
  if (c.in_archive()) static_cast<void>(emit::archive_location(options.input, output));
  if (options.matmul_nbits && !c.derives_weights())
    fail(ErrorCode::kUsage, std::string("--matmul-nbits packs 4-bit weights, which ") +
                                (c.in_archive() ? "--external-data=archive" : "--all-models") +
                                " never derives; use --external-data (a file) and convert one model at a time");
  return output;
}

// The model's program, with the dims the user named renamed (and the names, for the ONNX's
// metadata). Archive errors name the file themselves; the importer's gain it here.
struct Imported {
  ir::Program program;
  std::map<std::string, std::string> dim_names;
};

Imported import_model(Conversion& c, const archive::Archive& archive) {
  Imported out;
  out.program = c.clock.run("import", [&] {
    const std::unique_ptr<ReadOnceText> program_json = archive.model_text(c.report.model);
    // Node metadata (stack traces, torch_fn) and the module call graph are read by no later stage: not built.
    return api::with_context(c.input_name, [&] {
      return import::import_program(*program_json, archive.model_entry(c.report.model), import::kGraphAndSignature);
    });
  });
  out.dim_names = api::with_context(c.input_name, [&] { return api::resolve_dim_names(out.program, c.options.dim_names); });
  ir::rename_symbols(out.program, out.dim_names);
  c.report.nodes_in = static_cast<int64_t>(out.program.graph.nodes.size());
  return out;
}

translate::TranslateOptions translate_options(const ConvertOptions& options, const config::Config* config) {
  translate::TranslateOptions out;
  out.opset = options.opset;
  if (config) out.custom_ops = config->op_rules;
  out.fuse = options.fuse;
  out.module_stacks = !options.hiera.empty() || !options.compile.empty() || (config && !config->module_rules.empty());
  return out;
}

// Fusion, then translation; the model is labelled (producer, the dims the user named) and the
// config's op rules that matched nothing reported.
translate::Translated translate_model(Conversion& c, ir::Program&& program, const translate::TranslateOptions& options,
                                      const std::map<std::string, std::string>& dim_names) {
  translate::Translated translated = c.clock.run("translate", [&] {
    // Without fusion the pass returns a copy of the whole program: skip it.
    if (options.fuse && options.opset >= fx_passes::kMinFusedOpset)
      program = fx_passes::fuse_patterns(program, options).program;
    return api::with_context(c.input_name, [&] {
      return translate::translate_program(std::move(program), options, c.diagnostics);
    });
  });
  add_dim_names_metadata(translated.model.proto, dim_names);
  translated.model.proto.set_producer_version(version());
  for (size_t i = 0; i < options.custom_ops.size(); ++i)
    if (translated.custom_op_hits[i] == 0)
      c.diagnostics.warn(model::Stage::kConfig, "config rule " + options.custom_ops[i].origin + " (op " +
                                                    options.custom_ops[i].op + ") matched no node");
  return translated;
}

// Graph clean-up (clean/), with the weights' index read beside it; folding and 4-bit packing
// derive weights that emit streams from the archive.
clean::Cleaned clean_stage(Conversion& c, model::OnnxModel&& model, const std::vector<std::string>& hiera_types,
                           api::WeightsBesideClean& weights, const ir::TensorValues& value_types) {
  return c.clock.run("clean", [&] {
    clean::CleanOptions options;
    options.hiera_types = hiera_types;
    options.weights = &weights;
    options.fold_weights = c.options.fold && c.derives_weights();
    options.pack_weights = c.derives_weights();  // a packed weight is derived too
    options.matmul_nbits = c.options.matmul_nbits;
    options.types = clean::value_type_oracle(value_types);
    return clean::clean_model(std::move(model), options);
  });
}

// --hiera: module instances folded into function calls, the functions cleaned, and (--compile)
// their kernel bundles generated. Without hiera types, the model as it is.
model::OnnxModel fold_modules(Conversion& c, model::OnnxModel&& model, const hierarchy::HierarchyOptions& options,
                              api::KernelStage& kernels, const ir::TensorValues& value_types) {
  if (options.types.empty()) return std::move(model);
  const hierarchy::HierarchyReport folded = c.clock.run("hierarchy", [&] {
    return api::with_context(c.input_name, [&] { return hierarchy::fold_hierarchy(model.proto, model.node_modules, options); });
  });
  for (const std::string& warning : folded.warnings) c.diagnostics.warn(model::Stage::kHierarchy, warning);
  c.clock.run("clean", [&] { clean::clean_functions(model.proto); });
  if (kernels.active())
    c.clock.run("kernels", [&] {
      api::with_context(c.input_name, [&] { kernels.prepare(model.proto, value_types, folded, options.domain); });
    });
  return std::move(model);
}

emit::WriteOptions write_options(const Conversion& c) {
  emit::WriteOptions out;
  out.output = c.report.output;
  out.external_data = c.options.external_data == "file";
  out.reference_archive = c.in_archive();
  out.model_set = c.set;
  out.on_progress = c.options.on_weight_progress;
  return out;
}

// list_outputs(): the files the writing steps would write, decided as they decide.
void list_planned_outputs(Conversion& c, const model::OnnxModel& model, const api::ArchiveTensors& tensors,
                  const std::vector<model::DerivedWeight>& derived, const api::KernelStage& kernels) {
  c.report.outputs.push_back(c.report.output);
  const emit::OutputPlan plan = emit::plan_outputs(model, tensors.weights, tensors.constants, derived, write_options(c));
  for (const std::string& warning : plan.warnings) c.diagnostics.warn(model::Stage::kEmit, warning);
  if (!plan.data_file.empty()) c.report.outputs.push_back(plan.data_file);
  for (const auto& file : kernels.planned_files(c.report.output)) c.report.outputs.push_back(file);
  c.report.warnings = c.diagnostics.messages();
}

// The ONNX (and its data file), then the kernel bundles. --strict refuses every warning: those of
// the earlier stages before anything is written, the writer's own by removing what it wrote.
void write_outputs(Conversion& c, model::OnnxModel& model, const archive::Archive& archive, const api::ArchiveTensors& tensors,
                   const std::vector<model::DerivedWeight>& derived, api::KernelStage& kernels) {
  ConvertReport& report = c.report;
  if (c.options.strict) refuse_warnings(c.diagnostics.messages());
  const size_t warnings_before_write = c.diagnostics.size();
  const emit::WriteResult written = c.clock.run("emit", [&] {
    // A weight the archive lacks is the input's fault: name the input.
    return api::with_context(c.input_name, [&] {
      return emit::write_model(model, archive, tensors.weights, tensors.constants, derived, write_options(c), c.diagnostics);
    });
  });
  report.external_data = written.external_data;
  report.weight_count = written.weight_count;
  report.weight_bytes = written.weight_bytes;
  report.weight_bytes_referenced = written.referenced_bytes;
  report.archive_location = written.archive_location;
  report.warnings = c.diagnostics.messages();  // the writer adds its own (e.g. forced external data)
  report.outputs.push_back(report.output);
  if (!report.external_data.empty()) report.outputs.push_back(report.external_data);
  if (c.options.strict && report.warnings.size() > warnings_before_write) {
    std::error_code ec;
    if (!c.set)  // a set names nothing before all its models are written
      for (const auto& path : report.outputs) std::filesystem::remove(path, ec);
    refuse_warnings(c.diagnostics.messages(warnings_before_write));
  }
  if (kernels.active()) c.clock.run("kernels", [&] { kernels.write(report); });
  for (const KernelBundleReport& bundle : report.kernel_bundles) report.outputs.push_back(bundle.dir / "manifest.json");
}

ConvertReport convert_checked(const ConvertOptions& options, bool list_only, emit::ModelSet* set) {
  api::check_opset(options.opset);
  Conversion c(options, set);
  const std::shared_ptr<const config::Config> config = read_config(options);
  api::KernelStage kernel_stage(options, list_only);  // --compile: NVRTC and --arch checked before any work
  c.report.output = check_outputs(c);                  // before any work too
  std::unique_ptr<archive::Archive> archive = c.clock.run("read", [&] {
    std::unique_ptr<archive::Archive> opened = archive::Archive::open(options.input);
    c.report.model = api::choose_model(*opened, options.model);
    return opened;
  });
  c.report.inputs.push_back(options.input);
  if (config) c.report.inputs.push_back(options.config);

  Imported imported = import_model(c, *archive);
  translate::Translated translated =
      translate_model(c, std::move(imported.program), translate_options(options, config.get()), imported.dim_names);
  const hierarchy::HierarchyOptions hiera_options =
      hierarchy_options(options, config.get(), translated.model.node_modules, c.diagnostics);
  if (hiera_options.types.empty()) ir::ModuleStacks().swap(translated.model.node_modules);  // only --hiera reads them
  auto weights = std::make_unique<api::WeightsBesideClean>(*archive, c.report.model);
  clean::Cleaned cleaned = clean_stage(c, std::move(translated.model), hiera_options.types, *weights, translated.value_types);
  c.clock.run("read", [&] { weights->tensors(); });  // where the index was taken before: errors keep their order
  model::OnnxModel model = fold_modules(c, std::move(cleaned.model), hiera_options, kernel_stage, translated.value_types);
  c.report.nodes_out = model.proto.graph().node_size();
  c.report.functions_out = model.proto.functions_size();
  if (list_only) list_planned_outputs(c, model, weights->tensors(), cleaned.derived, kernel_stage);
  else write_outputs(c, model, *archive, weights->tensors(), cleaned.derived, kernel_stage);
  leave_for_exit(model);  // moves: nothing is copied
  leave_for_exit(translated);
  leave_for_exit(weights);
  leave_for_exit(archive);
  return std::move(c.report);
}

}  // namespace

const char* version() { return PT2ONNX_VERSION_STRING; }

}  // namespace pt2onnx
