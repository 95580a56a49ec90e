// Schema-driven normalization of operator inputs.
#include "import/fill_defaults.h"

#include <algorithm>

#include "import/aten_schema.h"

namespace pt2onnx::import {

namespace {

bool has_input_named(const std::vector<ir::NamedArgument>& inputs, std::string_view name) {
  return std::any_of(inputs.begin(), inputs.end(), [&](const ir::NamedArgument& in) { return in.name == name; });
}

}  // namespace

void fill_schema_defaults(ir::Node& node) {
  const OpSchema* schema = find_aten_schema(node.target);
  if (!schema) return;

  // Old writers may leave positional inputs unnamed; their position says which argument they are.
  for (size_t i = 0; i < node.inputs.size() && i < schema->args.size(); ++i) {
    const SchemaArg& arg = schema->args[i];
    if (node.inputs[i].name.empty() && !arg.kwarg_only && !has_input_named(node.inputs, arg.name))
      node.inputs[i].name = std::string(arg.name);
  }

  std::vector<ir::NamedArgument> ordered;
  ordered.reserve(std::max(schema->args.size(), node.inputs.size()));
  std::vector<bool> used(node.inputs.size(), false);
  for (const SchemaArg& arg : schema->args) {
    auto it = std::find_if(node.inputs.begin(), node.inputs.end(),
                           [&](const ir::NamedArgument& in) { return in.name == arg.name; });
    if (it != node.inputs.end()) {
      used[static_cast<size_t>(it - node.inputs.begin())] = true;
      ordered.push_back({it->name, std::move(it->arg), arg.kwarg_only});
    } else if (auto value = default_argument(arg)) {
      ordered.push_back({std::string(arg.name), std::move(*value), arg.kwarg_only});
    }
    // A required argument the file lacks stays missing; the rule that needs it reports it.
  }
  for (size_t i = 0; i < node.inputs.size(); ++i)
    if (!used[i]) ordered.push_back(std::move(node.inputs[i]));
  node.inputs = std::move(ordered);
}

}  // namespace pt2onnx::import
