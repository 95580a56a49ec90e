#include "import/check_definitions.h"

#include <set>
#include <unordered_set>
#include <variant>

#include "common/error.h"

namespace pt2onnx::import {

void check_definitions(const ir::Graph& graph, const std::string& source_name) {
  std::unordered_set<std::string> defined;
  std::vector<std::string> names;
  for (const ir::Argument& input : graph.inputs) ir::collect_value_names(input, names);
  defined.insert(names.begin(), names.end());
  auto check = [&](const std::string& reader, const std::vector<std::string>& read) {
    for (const std::string& name : read)
      // "": torch 2.1 passes custom objects by blob, not by a named input.
      PT2ONNX_CHECK(name.empty() || defined.count(name), ErrorCode::kArchive,
                    source_name + ": " + reader + " reads '" + name + "', which no graph input or earlier node produces");
  };
  for (const ir::Node& node : graph.nodes) {
    names.clear();
    for (const ir::NamedArgument& input : node.inputs) {
      ir::collect_value_names(input.arg, names);
      if (const auto* sub = std::get_if<ir::GraphArg>(&input.arg); sub && sub->graph)
        check_definitions(*sub->graph, source_name + ": " + sub->name);
    }
    check("node " + node.name, names);
    names.clear();
    for (const ir::Argument& output : node.outputs) ir::collect_value_names(output, names);
    defined.insert(names.begin(), names.end());
  }
  names.clear();
  for (const ir::Argument& output : graph.outputs) ir::collect_value_names(output, names);
  check("the graph's output list", names);
}

namespace {

std::vector<std::string> names_of(const std::vector<ir::Argument>& args) {
  std::vector<std::string> names;
  for (const ir::Argument& arg : args) ir::collect_value_names(arg, names);
  return names;
}

// `side` is "input" or "output": each graph value has one spec, each spec a graph value.
void check_side(const std::vector<std::string>& graph_values, const std::vector<std::string>& spec_values,
                const std::string& side, const std::string& source_name) {
  const std::set<std::string> in_graph(graph_values.begin(), graph_values.end());
  std::set<std::string> in_specs;
  for (const std::string& name : spec_values) {
    PT2ONNX_CHECK(in_graph.count(name), ErrorCode::kArchive,
                  source_name + ": the signature's " + side + " spec names '" + name + "', which is not a graph " + side);
    // An output may be returned twice; an input is bound once.
    const bool first = in_specs.insert(name).second;
    PT2ONNX_CHECK(first || side == "output", ErrorCode::kArchive,
                  source_name + ": graph input '" + name + "' has two input specs in the signature");
  }
  for (const std::string& name : graph_values)
    PT2ONNX_CHECK(in_specs.count(name), ErrorCode::kArchive,
                  source_name + ": graph " + side + " '" + name + "' has no " + side + " spec in the signature");
}

}  // namespace

void check_signature(const ir::Program& program, const std::string& source_name) {
  const ir::GraphSignature& signature = program.signature;
  if (signature.inputs.empty() && signature.outputs.empty()) return;
  std::vector<ir::Argument> inputs, outputs;
  for (const ir::InputSpec& spec : signature.inputs) inputs.push_back(spec.arg);
  for (const ir::OutputSpec& spec : signature.outputs) outputs.push_back(spec.arg);
  check_side(names_of(program.graph.inputs), names_of(inputs), "input", source_name);
  check_side(names_of(program.graph.outputs), names_of(outputs), "output", source_name);
}

}  // namespace pt2onnx::import
