#include "import/check_definitions.h"

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

}  // namespace pt2onnx::import
