// Graph inputs, weight initializer declarations and graph outputs.
#include "translate/graph_io.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "common/error.h"
#include "translate/complex_values.h"
#include "ir/value_names.h"
#include "translate/liveness.h"
#include "translate/onnx_types.h"
#include "translate/refusals.h"

namespace pt2onnx::translate {

namespace {

const char* kind_word(ir::InputKind kind) {
  switch (kind) {
    case ir::InputKind::kParameter: return "parameter";
    case ir::InputKind::kBuffer: return "buffer";
    default: return "tensor constant";
  }
}

void set_tensor_type(const EmitContext& ctx, onnx::TypeProto* type, const ir::TensorMeta& meta) {
  onnx::TypeProto_Tensor* tensor = type->mutable_tensor_type();
  tensor->set_elem_type(onnx_dtype(meta.dtype));
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  for (const ir::Dim& d : meta.sizes) {
    onnx::TensorShapeProto_Dimension* dim = shape->add_dim();
    if (d.is_static()) dim->set_dim_value(d.as_int());
    else dim->set_dim_param(ctx.dim_param(d.as_expr()));
  }
}

onnx::ValueInfoProto int64_scalar_info(const std::string& name) {
  onnx::ValueInfoProto info;
  info.set_name(name);
  onnx::TypeProto_Tensor* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto_DataType_INT64);
  tensor->mutable_shape();  // rank 0
  return info;
}

// Every ONNX value name the graph holds so far (packed nodes' included).
std::set<std::string> graph_value_names(const EmitContext& ctx, const onnx::GraphProto& graph) {
  std::set<std::string> names;
  for (const auto& in : graph.input()) names.insert(in.name());
  for (const auto& init : graph.initializer()) names.insert(init.name());
  ctx.visit_nodes([&](const onnx::NodeProto& node) {
    for (const auto& out : node.output()) names.insert(out);
  });
  return names;
}

// Declares one input of the signature (a graph input, or a weight's initializer) and binds its
// placeholder.
void declare_input(EmitContext& ctx, const ir::InputSpec& spec, std::vector<model::WeightBinding>& weights) {
  onnx::GraphProto& graph = ctx.graph();
  if (spec.kind == ir::InputKind::kUserInput) {
    if (const auto* t = std::get_if<ir::TensorArg>(&spec.arg)) {
      const ir::TensorMeta* meta = ctx.meta(t->name);
      PT2ONNX_CHECK(meta != nullptr, ErrorCode::kUnsupported, "user input '" + t->name + "' has no tensor_values entry");
      *graph.add_input() = tensor_value_info(ctx, t->name, *meta);
      ctx.bind(t->name, t->name);
      ctx.pin(t->name);
    } else if (const auto* s = std::get_if<ir::SymIntArg>(&spec.arg)) {
      if (const auto* name = std::get_if<std::string>(&s->v)) {  // an int input that stayed symbolic
        *graph.add_input() = int64_scalar_info(*name);
        ctx.bind(*name, *name);
        ctx.pin(*name);
      }
    }
    return;  // constants among the user inputs were inlined by export
  }
  if (!ir::is_weight(spec.kind)) return;  // tokens, custom objects: rules that need them refuse
  const auto* t = std::get_if<ir::TensorArg>(&spec.arg);
  PT2ONNX_CHECK(t != nullptr, ErrorCode::kUnsupported, std::string(kind_word(spec.kind)) + " " + spec.target + " is not a tensor");
  if (!ctx.is_used(t->name)) return;  // e.g. num_batches_tracked: nothing reads it
  const ir::TensorMeta* meta = ctx.meta(t->name);
  PT2ONNX_CHECK(meta != nullptr, ErrorCode::kUnsupported,
                std::string(kind_word(spec.kind)) + " " + spec.target + " has no tensor_values entry");
  const std::string name = ctx.fresh_name(spec.target);
  ir::TensorMeta stored;  // complex weights are real pairs, their bytes unchanged (complex_values.h)
  try {
    stored = lowered_meta(*meta);
    require_opset_for(stored.dtype, ctx.opset());
  } catch (const Error& e) {
    throw e.with_context(std::string(kind_word(spec.kind)) + " " + spec.target);
  }
  onnx::TensorProto* init = graph.add_initializer();
  init->set_name(name);
  init->set_data_type(onnx_dtype(stored.dtype));
  ctx.require_ir_version(min_ir_version_for(stored.dtype));
  for (const ir::Dim& d : stored.sizes) {
    PT2ONNX_CHECK(d.is_static(), ErrorCode::kUnsupported,
                  std::string(kind_word(spec.kind)) + " " + spec.target + " has a symbolic size");
    init->add_dims(d.as_int());
  }
  // Non-persistent buffers are not in the state dict; the archive keeps them with the constants.
  const bool is_constant = spec.kind == ir::InputKind::kTensorConstant ||
                           (spec.kind == ir::InputKind::kBuffer && !spec.persistent);
  weights.push_back(model::WeightBinding{name, spec.target, is_constant});
  ctx.bind(t->name, name);
  ctx.pin(name);
}

}  // namespace

onnx::ValueInfoProto tensor_value_info(const EmitContext& ctx, const std::string& name, const ir::TensorMeta& fx_meta) {
  ir::TensorMeta meta;
  try {
    meta = lowered_meta(fx_meta);  // complex values are real pairs (complex_values.h)
    require_opset_for(meta.dtype, ctx.opset());
  } catch (const Error& e) {
    throw e.with_context("value " + name);
  }
  onnx::ValueInfoProto info;
  info.set_name(name);
  set_tensor_type(ctx, info.mutable_type(), meta);
  return info;
}

void reserve_names(EmitContext& ctx, const ir::Program& program) {
  std::unordered_set<std::string_view> weight_placeholders;
  for (const ir::InputSpec& spec : program.signature.inputs)
    if (ir::is_weight(spec.kind))
      if (const auto* t = std::get_if<ir::TensorArg>(&spec.arg)) weight_placeholders.insert(t->name);

  std::vector<std::string_view> names;  // views of the program's strings
  for (const ir::InputSpec& spec : program.signature.inputs)
    if (spec.kind == ir::InputKind::kUserInput) ir::collect_value_name_views(spec.arg, names);
  for (const ir::Node& node : program.graph.nodes)
    for (const auto& out : node.outputs) ir::collect_value_name_views(out, names);
  for (const auto& [name, meta] : program.graph.tensor_values) names.push_back(name);
  for (const auto& [name, dim] : program.graph.sym_int_values) names.push_back(name);
  // Every name above, the weights' initializer names and about two per ONNX node to come.
  ctx.expect_names(names.size() * 3 + program.signature.inputs.size());
  for (std::string_view name : names)
    if (!weight_placeholders.count(name)) ctx.reserve(name);
}

std::vector<StateInput> declare_inputs(EmitContext& ctx, const ir::Program& program, std::vector<model::WeightBinding>& weights,
                                       Refusals* refused) {
  onnx::GraphProto& graph = ctx.graph();
  const std::vector<StateUpdate> updates = find_state_updates(program, refused);
  for (const ir::InputSpec& spec : program.signature.inputs)
    if (!refuse_or_record(refused, [&] { declare_input(ctx, spec, weights); }))
      if (const auto* t = std::get_if<ir::TensorArg>(&spec.arg); t && !ctx.is_bound(t->name))
        ctx.bind(t->name, ctx.fresh_name(t->name));  // refused: later readers see a value no node makes

  // State inputs: user inputs are graph inputs already; an updated parameter or buffer becomes
  // one, named like its initializer, which ONNX then treats as the input's default (a plain run
  // starts from it).
  std::vector<StateInput> state;
  for (const StateUpdate& update : updates)
    refuse_or_record(refused, [&] {
      PT2ONNX_CHECK(ctx.is_bound(update.placeholder), ErrorCode::kInternal,
                    std::string(state_kind_word(update.kind)) + " " + update.target + " is updated but not declared");
      const std::string& input = ctx.value_of(update.placeholder);
      if (update.kind != ir::InputKind::kUserInput) {
        const ir::TensorMeta* meta = ctx.meta(update.placeholder);
        PT2ONNX_CHECK(meta != nullptr, ErrorCode::kUnsupported,
                      std::string(state_kind_word(update.kind)) + " " + update.target + " has no tensor_values entry");
        *graph.add_input() = tensor_value_info(ctx, input, *meta);
      }
      state.push_back(StateInput{update, input});
    });
  return state;
}

std::vector<std::pair<std::string, std::string>> declare_outputs(EmitContext& ctx, const ir::Program& program,
                                                                 const std::vector<StateInput>& state, Refusals* refused) {
  onnx::GraphProto& graph = ctx.graph();
  // The graph's value names, gathered at the first output that needs them (most need none).
  std::optional<std::set<std::string>> taken_names;
  auto taken = [&]() -> std::set<std::string>& {
    if (!taken_names) taken_names = graph_value_names(ctx, graph);
    return *taken_names;
  };
  std::set<std::string> outputs;
  for (const ir::OutputSpec& spec : program.signature.outputs)
    refuse_or_record(refused, [&] {
      if (!is_returned_output(spec)) return;  // tokens, gradients

      std::string fx_name;
      onnx::ValueInfoProto info;
      if (const auto* t = std::get_if<ir::TensorArg>(&spec.arg)) {
        fx_name = t->name;
        const ir::TensorMeta* meta = ctx.meta(fx_name);
        PT2ONNX_CHECK(meta != nullptr, ErrorCode::kUnsupported, "output '" + fx_name + "' has no tensor_values entry");
        info = tensor_value_info(ctx, fx_name, *meta);
      } else if (const auto* s = std::get_if<ir::SymIntArg>(&spec.arg)) {
        if (const auto* v = std::get_if<int64_t>(&s->v)) {
          fx_name = ctx.fresh_name("output_" + std::to_string(graph.output_size()));
          ctx.bind(fx_name, ctx.const_i64(*v));
        } else {
          fx_name = std::get<std::string>(s->v);
          if (!ctx.is_bound(fx_name)) ctx.bind(fx_name, ctx.sym_int(*s));
        }
        info = int64_scalar_info(fx_name);
      } else {
        ctx.warn("an output that is not a tensor or an int is left out of the ONNX graph");
        return;
      }

      const std::string& value = ctx.value_of(fx_name);
      const bool graph_input = std::any_of(graph.input().begin(), graph.input().end(),
                                           [&](const onnx::ValueInfoProto& in) { return in.name() == value; });
      const bool initializer = std::any_of(graph.initializer().begin(), graph.initializer().end(),
                                           [&](const onnx::TensorProto& in) { return in.name() == value; });
      std::string out_name = value;
      if (value != fx_name || graph_input || initializer || outputs.count(value)) {
        out_name = taken().count(fx_name) ? ctx.fresh_name(fx_name) : fx_name;
        ctx.emit_named("Identity", {value}, {out_name});
        taken().insert(out_name);
      }
      info.set_name(out_name);
      outputs.insert(out_name);
      *graph.add_output() = info;
    });

  // State outputs, after the user outputs: the value a functional graph returns for the input,
  // or what in-place writes left bound to its placeholder.
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const StateInput& s : state)
    refuse_or_record(refused, [&] {
      const std::string& fx = s.update.new_value.empty() ? s.update.placeholder : s.update.new_value;
      PT2ONNX_CHECK(ctx.is_bound(fx), ErrorCode::kUnsupported,
                    "the new value of " + s.update.target + " (" + s.update.how + ") is produced by no node");
      const std::string& value = ctx.value_of(fx);
      const ir::TensorMeta* meta = ctx.meta(s.update.placeholder);
      PT2ONNX_CHECK(meta != nullptr, ErrorCode::kUnsupported, s.update.target + " has no tensor_values entry");
      std::string out_name = s.input + ".new";
      if (taken().count(out_name)) out_name = ctx.fresh_name(out_name);
      ctx.emit_named("Identity", {value}, {out_name});
      taken().insert(out_name);
      *graph.add_output() = tensor_value_info(ctx, out_name, *meta);
      pairs.emplace_back(s.input, out_name);
    });
  return pairs;
}

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

void add_state_metadata(onnx::ModelProto& model, const std::vector<std::pair<std::string, std::string>>& pairs) {
  if (pairs.empty()) return;
  std::string json = "{";
  for (const auto& [input, output] : pairs) json += (json.size() > 1 ? ", " : "") + json_string(input) + ": " + json_string(output);
  onnx::StringStringEntryProto* entry = model.add_metadata_props();
  entry->set_key("pkg.pt2onnx.state");
  entry->set_value(json + "}");
}

}  // namespace pt2onnx::translate
