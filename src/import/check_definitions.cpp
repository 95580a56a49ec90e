#include "import/check_definitions.h"

#include <string_view>
#include <variant>

#include "common/error.h"
#include "common/view_map.h"
#include "ir/value_names.h"

namespace pt2onnx::import {

namespace {

// The names are views of the graph's own strings, and the reader's description is made only
// for a message: these checks read every value of the graph.
void check_graph(const ir::Graph& graph, const std::string& source_name) {
  size_t values = 0;
  for (const ir::Node& node : graph.nodes) values += node.outputs.size();
  ViewSet defined(graph.inputs.size() + values);
  std::vector<std::string_view> names;
  for (const ir::Argument& input : graph.inputs) ir::collect_value_name_views(input, names);
  for (std::string_view name : names) defined.insert(name);
  auto check = [&](const auto& reader, const std::vector<std::string_view>& read) {
    for (std::string_view name : read)
      // "": torch 2.1 passes custom objects by blob, not by a named input.
      PT2ONNX_CHECK(name.empty() || defined.contains(name), ErrorCode::kArchive,
                    source_name + ": " + reader() + " reads '" + std::string(name) +
                        "', which no graph input or earlier node produces");
  };
  for (const ir::Node& node : graph.nodes) {
    names.clear();
    for (const ir::NamedArgument& input : node.inputs) {
      ir::collect_value_name_views(input.arg, names);
      if (const auto* sub = std::get_if<ir::GraphArg>(&input.arg); sub && sub->graph)
        check_graph(*sub->graph, source_name + ": " + sub->name);
    }
    check([&] { return "node " + node.name; }, names);
    names.clear();
    for (const ir::Argument& output : node.outputs) ir::collect_value_name_views(output, names);
    for (std::string_view name : names) defined.insert(name);
  }
  names.clear();
  for (const ir::Argument& output : graph.outputs) ir::collect_value_name_views(output, names);
  check([] { return std::string("the graph's output list"); }, names);
}

std::vector<std::string_view> names_of(const std::vector<ir::Argument>& args) {
  std::vector<std::string_view> names;
  for (const ir::Argument& arg : args) ir::collect_value_name_views(arg, names);
  return names;
}

template <typename Spec>
std::vector<std::string_view> names_of(const std::vector<Spec>& specs) {
  std::vector<std::string_view> names;
  for (const Spec& spec : specs) ir::collect_value_name_views(spec.arg, names);
  return names;
}

// `side` is "input" or "output": each graph value has one spec, each spec a graph value.
void check_side(const std::vector<std::string_view>& graph_values, const std::vector<std::string_view>& spec_values,
                const std::string& side, const std::string& source_name) {
  ViewSet in_graph(graph_values.size());
  for (std::string_view name : graph_values) in_graph.insert(name);
  ViewSet in_specs(spec_values.size());
  for (std::string_view name : spec_values) {
    PT2ONNX_CHECK(in_graph.contains(name), ErrorCode::kArchive,
                  source_name + ": the signature's " + side + " spec names '" + std::string(name) +
                      "', which is not a graph " + side);
    // An output may be returned twice; an input is bound once.
    const bool first = in_specs.insert(name);
    PT2ONNX_CHECK(first || side == "output", ErrorCode::kArchive,
                  source_name + ": graph input '" + std::string(name) + "' has two input specs in the signature");
  }
  for (std::string_view name : graph_values)
    PT2ONNX_CHECK(in_specs.contains(name), ErrorCode::kArchive,
                  source_name + ": graph " + side + " '" + std::string(name) + "' has no " + side + " spec in the signature");
}

}  // namespace

void check_definitions(const ir::Graph& graph, const std::string& source_name) { check_graph(graph, source_name); }

void check_signature(const ir::Program& program, const std::string& source_name) {
  const ir::GraphSignature& signature = program.signature;
  if (signature.inputs.empty() && signature.outputs.empty()) return;
  check_side(names_of(program.graph.inputs), names_of(signature.inputs), "input", source_name);
  check_side(names_of(program.graph.outputs), names_of(signature.outputs), "output", source_name);
}

}  // namespace pt2onnx::import
