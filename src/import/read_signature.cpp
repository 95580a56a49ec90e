// Graph signature readers, both generations.
#include "import/read_signature.h"

#include <map>

#include "import/read_argument.h"

namespace pt2onnx::import {

namespace {

// The `arg` of a spec that binds a tensor: a TensorArgument {name}, or an Argument union.
ir::Argument read_tensor_spec_arg(const JsonNode& node) {
  if (node.is_string() || node.has("name")) return ir::TensorArg{read_tensor_name(node)};
  return read_argument(node);
}

ir::InputSpec read_input_spec(const JsonNode& node) {
  auto [kind, spec] = node.union_member();
  ir::InputSpec out;
  if (kind == "user_input") {
    out.kind = ir::InputKind::kUserInput;
    out.arg = read_argument(spec.at("arg"));
  } else if (kind == "parameter") {
    out.kind = ir::InputKind::kParameter;
    out.arg = read_tensor_spec_arg(spec.at("arg"));
    out.target = spec.at("parameter_name").as_string();
  } else if (kind == "buffer") {
    out.kind = ir::InputKind::kBuffer;
    out.arg = read_tensor_spec_arg(spec.at("arg"));
    out.target = spec.at("buffer_name").as_string();
    out.persistent = spec.bool_or("persistent", true);
  } else if (kind == "tensor_constant") {
    out.kind = ir::InputKind::kTensorConstant;
    out.arg = read_tensor_spec_arg(spec.at("arg"));
    out.target = spec.at("tensor_constant_name").as_string();
  } else if (kind == "custom_obj") {
    out.kind = ir::InputKind::kCustomObj;
    JsonNode arg = spec.at("arg");
    out.arg = ir::CustomObjArg{arg.string_or("name", ""), arg.string_or("class_fqn", "")};
    out.target = spec.at("custom_obj_name").as_string();
  } else if (kind == "token") {
    out.kind = ir::InputKind::kToken;
    out.arg = ir::TokenArg{read_tensor_name(spec.at("arg"))};
  } else if (kind == "constant_input") {
    out.kind = ir::InputKind::kConstantInput;
    out.target = spec.at("name").as_string();
    auto value = spec.find("value");
    out.arg = value ? read_argument(*value) : ir::Argument(ir::NoneArg{});
  } else {
    node.fail("unknown input spec kind '" + kind + "'");
  }
  return out;
}

ir::OutputSpec read_output_spec(const JsonNode& node) {
  auto [kind, spec] = node.union_member();
  ir::OutputSpec out;
  // Every kind but user_output binds a tensor and (most) name what it updates.
  static const std::map<std::string, std::pair<ir::OutputKind, const char*>, std::less<>> kTensorKinds = {
      {"loss_output", {ir::OutputKind::kLossOutput, nullptr}},
      {"buffer_mutation", {ir::OutputKind::kBufferMutation, "buffer_name"}},
      {"gradient_to_parameter", {ir::OutputKind::kGradientToParameter, "parameter_name"}},
      {"gradient_to_user_input", {ir::OutputKind::kGradientToUserInput, "user_input_name"}},
      {"user_input_mutation", {ir::OutputKind::kUserInputMutation, "user_input_name"}},
      {"parameter_mutation", {ir::OutputKind::kParameterMutation, "parameter_name"}},
  };
  if (kind == "user_output") {
    out.kind = ir::OutputKind::kUserOutput;
    out.arg = read_argument(spec.at("arg"));
  } else if (kind == "token") {
    out.kind = ir::OutputKind::kToken;
    out.arg = ir::TokenArg{read_tensor_name(spec.at("arg"))};
  } else if (auto it = kTensorKinds.find(kind); it != kTensorKinds.end()) {
    out.kind = it->second.first;
    out.arg = read_tensor_spec_arg(spec.at("arg"));
    if (it->second.second) out.target = spec.at(it->second.second).as_string();
  } else {
    node.fail("unknown output spec kind '" + kind + "'");
  }
  return out;
}

std::map<std::string, std::string> read_string_map(const JsonNode& node, std::string_view key) {
  std::map<std::string, std::string> out;
  if (auto found = node.find(key))
    for (const auto& [k, v] : found->members())
      if (!v.is_null()) out[k] = v.as_string();
  return out;
}

// The 2.1 form: name -> FQN dicts over the graph's inputs and outputs.
ir::GraphSignature read_old_signature(const JsonNode& node, const ir::Graph& graph) {
  auto to_parameters = read_string_map(node, "inputs_to_parameters");
  auto to_buffers = read_string_map(node, "inputs_to_buffers");
  auto to_constants = read_string_map(node, "inputs_to_lifted_tensor_constants");
  auto buffers_to_mutate = read_string_map(node, "buffers_to_mutate");
  std::map<std::string, std::string> gradients_to_parameters, gradients_to_user_inputs;
  std::string loss_output;
  if (auto backward = node.find("backward_signature")) {
    gradients_to_parameters = read_string_map(*backward, "gradients_to_parameters");
    gradients_to_user_inputs = read_string_map(*backward, "gradients_to_user_inputs");
    loss_output = backward->string_or("loss_output", "");
  }

  ir::GraphSignature out;
  for (const auto& input : graph.inputs) {
    ir::InputSpec spec{ir::InputKind::kUserInput, input, "", true};
    if (const auto* tensor = std::get_if<ir::TensorArg>(&input)) {
      if (auto it = to_parameters.find(tensor->name); it != to_parameters.end()) {
        spec.kind = ir::InputKind::kParameter;
        spec.target = it->second;
      } else if (auto b = to_buffers.find(tensor->name); b != to_buffers.end()) {
        spec.kind = ir::InputKind::kBuffer;
        spec.target = b->second;
      } else if (auto c = to_constants.find(tensor->name); c != to_constants.end()) {
        spec.kind = ir::InputKind::kTensorConstant;
        spec.target = c->second;
      }
    }
    out.inputs.push_back(std::move(spec));
  }
  for (const auto& output : graph.outputs) {
    ir::OutputSpec spec{ir::OutputKind::kUserOutput, output, ""};
    if (const auto* tensor = std::get_if<ir::TensorArg>(&output)) {
      if (auto it = buffers_to_mutate.find(tensor->name); it != buffers_to_mutate.end()) {
        spec.kind = ir::OutputKind::kBufferMutation;
        spec.target = it->second;
      } else if (auto g = gradients_to_parameters.find(tensor->name); g != gradients_to_parameters.end()) {
        spec.kind = ir::OutputKind::kGradientToParameter;
        spec.target = g->second;
      } else if (auto u = gradients_to_user_inputs.find(tensor->name); u != gradients_to_user_inputs.end()) {
        spec.kind = ir::OutputKind::kGradientToUserInput;
        spec.target = u->second;
      } else if (!loss_output.empty() && tensor->name == loss_output) {
        spec.kind = ir::OutputKind::kLossOutput;
      }
    }
    out.outputs.push_back(std::move(spec));
  }
  return out;
}

}  // namespace

ir::GraphSignature read_signature(const JsonNode& node, const ir::Graph& graph) {
  if (!node.has("input_specs") && !node.has("output_specs") &&
      (node.has("inputs_to_parameters") || node.has("user_inputs") || node.has("inputs_to_buffers")))
    return read_old_signature(node, graph);
  ir::GraphSignature out;
  if (auto specs = node.find("input_specs"))
    for (const auto& spec : specs->elements()) out.inputs.push_back(read_input_spec(spec));
  if (auto specs = node.find("output_specs"))
    for (const auto& spec : specs->elements()) out.outputs.push_back(read_output_spec(spec));
  return out;
}

}  // namespace pt2onnx::import
