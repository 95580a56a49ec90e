// Schema-driven normalization of operator inputs.
#include "import/fill_defaults.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <type_traits>

#include "import/aten_schema.h"

namespace pt2onnx::import {

namespace {

bool has_input_named(const std::vector<ir::NamedArgument>& inputs, std::string_view name) {
  return std::any_of(inputs.begin(), inputs.end(), [&](const ir::NamedArgument& in) { return in.name == name; });
}

// Whether `arg` is a list with no items, of whatever kind the writer guessed.
bool is_empty_list(const ir::Argument& arg) {
  return std::visit(
      [](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, ir::TensorListArg> || std::is_same_v<T, ir::OptionalTensorListArg>) return v.names.empty();
        else if constexpr (std::is_same_v<T, ir::SymIntListArg> || std::is_same_v<T, ir::SymFloatListArg> ||
                           std::is_same_v<T, ir::SymBoolListArg>) return v.items.empty();
        else if constexpr (std::is_same_v<T, std::vector<std::string>>) return v.empty();
        else return false;
      },
      arg);
}

// The empty list of the kind a schema type names ("int[2]", "SymInt[]", "Tensor?[]", "bool[3]",
// ...), or nullopt when the type is not a list. An empty JSON list says nothing of its element
// type, so writers pick a key: torch 2.1 writes every empty list as `as_bools: []`.
std::optional<ir::Argument> empty_list_of(std::string_view type) {
  if (type.ends_with("?")) type.remove_suffix(1);  // "int[]?": an optional list
  const size_t bracket = type.find('[');
  if (bracket == std::string_view::npos || !type.ends_with("]")) return std::nullopt;
  std::string_view element = type.substr(0, bracket);
  if (const size_t alias = element.find('('); alias != std::string_view::npos) element = element.substr(0, alias);
  if (element == "int" || element == "SymInt") return ir::SymIntListArg{};
  if (element == "float") return ir::SymFloatListArg{};
  if (element == "bool") return ir::SymBoolListArg{};
  if (element == "Tensor") return ir::TensorListArg{};
  if (element == "Tensor?") return ir::OptionalTensorListArg{};
  if (element == "str") return std::vector<std::string>{};
  return std::nullopt;  // Scalar[], Dimname[], ...: left as written
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
      if (is_empty_list(it->arg))
        if (auto retyped = empty_list_of(arg.type)) it->arg = std::move(*retyped);
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
