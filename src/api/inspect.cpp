// inspect(): opens the archive, imports each chosen model and summarizes it; it is translated as
// convert would (to find what convert refuses), but nothing is written and no weight is read.
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "api/pipeline_helpers.h"
#include "api/inspect_summary.h"
#include "common/error.h"
#include "config/config.h"
#include "import/import_program.h"
#include "pt2onnx.h"
#include "translate/translate_with_rules.h"
#include "fx_passes/fuse_patterns.h"

namespace pt2onnx {

namespace inspection {

ModelInspection summarize_program(const ir::Program& program, const translate::RuleTable& rules, int opset,
                                  const std::vector<translate::CustomOpRule>& custom) {
  ModelInspection model;
  model.torch_version = program.torch_version;
  model.schema_major = program.schema_version.major;
  model.schema_minor = program.schema_version.minor;
  model.inputs = summarize_user_inputs(program);
  model.outputs = summarize_user_outputs(program);
  model.range_constraints = summarize_range_constraints(program);
  model.state = summarize_state(program);

  // Nodes inside subgraphs belong to modules too (a cond inside a block); without subgraphs the
  // graph is summarized as it is, not copied.
  const bool flat = count_nodes(program.graph) == static_cast<int64_t>(program.graph.nodes.size());
  ir::Graph nested;
  if (!flat) nested = with_subgraph_nodes(program.graph);
  const ir::Graph& modules_of = flat ? program.graph : nested;
  ModuleTree tree = summarize_modules(modules_of);
  model.modules = std::move(tree.modules);
  model.module_types = std::move(tree.module_types);
  model.nodes_outside_modules = tree.nodes_outside_modules;

  model.ops = summarize_ops(program, rules, opset, custom);
  model.quantization = summarize_quantization(program, opset);
  model.node_count = count_nodes(program.graph);
  model.subgraphs = summarize_subgraphs(program.graph);
  for (const OpSummary& op : model.ops)
    if (op.blocks_conversion()) model.unsupported_nodes += op.count - op.unused;
  translate::TranslateOptions options;
  options.opset = opset;
  options.custom_ops = custom;
  options.module_stacks = false;
  // Below the fused ops' opset nothing fuses, and the pass would only copy the program.
  std::optional<fx_passes::FusedProgram> fused;
  if (options.opset >= fx_passes::kMinFusedOpset) {
    fused = fx_passes::fuse_patterns(program, options);
    for (const fx_passes::FusedOp& f : fused->fused) ++model.fused_ops[{f.op_type, f.source}];
  }
  // The rest of what convert refuses: its own translation, told to collect (translate.h).
  translate::Refusals refusals;
  options.refusals = &refusals;
  model::Diagnostics warnings;  // inspect reports refusals; convert's warnings are convert's
  translate::translate_with_rules(fused ? fused->program : program, options, rules, warnings);
  for (const Error& e : refusals) model.refusals.push_back(RefusalSummary{static_cast<int>(e.code()), e.what()});
  return model;
}

}  // namespace inspection

namespace {



}  // namespace

InspectReport inspect(const InspectOptions& options) {
  ::pt2onnx::api::check_opset(options.opset);
  const std::string input_name = options.input.string();
  std::vector<translate::CustomOpRule> custom;
  if (!options.config.empty()) custom = config::load_config(options.config).op_rules;
  std::unique_ptr<archive::Archive> archive = archive::Archive::open(options.input);

  InspectReport report;
  report.input = options.input;
  report.layout = archive::layout_name(archive->layout());
  report.opset = options.opset;
  for (const std::string& name : api::choose_models(*archive, options.model)) {
    api::ArchiveTensorsBeside tensors(*archive, name);
    const ir::Program program = ::pt2onnx::api::with_context(
        input_name, [&] { return import::import_program(*archive->model_text(name), archive->model_entry(name), import::kGraphAndSignature); });
    ModelInspection model = inspection::summarize_program(program, translate::builtin_rules(), options.opset, custom);
    model.name = name;
    model.entry = archive->model_entry(name);
    model.weights = ::pt2onnx::api::with_context(input_name, [&] {
      const api::ArchiveTensors index = tensors.get();
      return inspection::summarize_weights(program.signature, index.weights, index.constants);
    });
    report.models.push_back(std::move(model));
  }
  return report;
}

}  // namespace pt2onnx
