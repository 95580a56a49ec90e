// Graph and Node readers.
#include "import/read_graph.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/error.h"
#include "import/fast_graph.h"
#include "import/fill_defaults.h"
#include "import/import_program.h"
#include "import/read_argument.h"
#include "import/read_tensor_meta.h"

namespace pt2onnx::import {

namespace {

constexpr int64_t kKeywordKind = 2;  // ArgumentKind.KEYWORD

}  // namespace

std::string first_value_name(const ir::Argument& arg) {
  if (const auto* t = std::get_if<ir::TensorArg>(&arg)) return t->name;
  if (const auto* ts = std::get_if<ir::TensorListArg>(&arg)) return ts->names.empty() ? "" : ts->names.front();
  if (const auto* s = std::get_if<ir::SymIntArg>(&arg))
    if (const auto* name = std::get_if<std::string>(&s->v)) return *name;
  if (const auto* s = std::get_if<ir::SymFloatArg>(&arg))
    if (const auto* name = std::get_if<std::string>(&s->v)) return *name;
  if (const auto* s = std::get_if<ir::SymBoolArg>(&arg))
    if (const auto* name = std::get_if<std::string>(&s->v)) return *name;
  if (const auto* t = std::get_if<ir::TokenArg>(&arg)) return t->name;
  return "";
}

namespace {

// FX-style name for a node that has neither a name field nor a named output (e.g. an assert):
// "aten._assert_scalar.default" -> "_assert_scalar_default".
std::string synthesized_name(const std::string& target) {
  std::string base = target;
  if (size_t dot = base.find('.'); dot != std::string::npos && base.compare(0, dot, "aten") == 0)
    base = base.substr(dot + 1);
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return base.empty() ? "node" : base;
}

std::string metadata_text(const JsonNode& value) {
  return value.is_string() ? value.as_string() : value.dump();
}

// Metadata strings repeat across nodes (a block's stack traces in every block): shared, not copied.
ir::SharedText shared_metadata_text(const JsonNode& value) {
  return value.is_string() ? value.as_shared_string() : std::make_shared<const std::string>(value.dump());
}

ir::Node read_node(const JsonNode& node, ModuleStackReader& stacks) {
  ir::Node out;
  out.target = strip_torch_ops(node.at("target").as_string());
  if (auto inputs = node.find("inputs")) {
    for (const auto& input : inputs->elements()) {
      ir::NamedArgument named;
      named.name = input.string_or("name", "");
      named.arg = read_argument(input.at("arg"));
      if (auto kind = input.find("kind")) named.keyword = kind->as_int() == kKeywordKind;
      out.inputs.push_back(std::move(named));
    }
  }
  if (auto outputs = node.find("outputs"))
    for (const auto& output : outputs->elements()) out.outputs.push_back(read_argument(output));
  if (auto metadata = node.find("metadata")) {
    for (const auto& [key, value] : metadata->members()) {
      if (value.is_null()) continue;
      if (key == "nn_module_stack") {
        try {
          out.module_stack = stacks.read(metadata_text(value));
        } catch (const Error& e) {
          value.fail(e.what());
        }
      } else {
        out.metadata[key] = shared_metadata_text(value);
      }
    }
  }
  out.name = node.string_or("name", "");
  if (out.name.empty() && !out.outputs.empty()) out.name = first_value_name(out.outputs.front());
  fill_schema_defaults(out);
  return out;
}

}  // namespace

ir::Graph read_graph(const JsonNode& node, FastGraph* fast) {
  ir::Graph graph;
  if (auto inputs = node.find("inputs"))
    for (const auto& input : inputs->elements()) graph.inputs.push_back(read_argument(input));
  if (auto outputs = node.find("outputs"))
    for (const auto& output : outputs->elements()) graph.outputs.push_back(read_argument(output));
  if (fast && fast->nodes_taken) {
    graph.nodes = std::move(fast->nodes);  // every one named: the fast reader declines the others
  } else if (auto nodes = node.find("nodes")) {
    const std::vector<JsonNode> elements = nodes->elements();
    graph.nodes.reserve(elements.size());
    ModuleStackReader stacks;
    for (const auto& n : elements) graph.nodes.push_back(read_node(n, stacks));
    // Names are made up only for nodes without one (asserts of old writers): most graphs have none.
    const bool all_named = std::none_of(graph.nodes.begin(), graph.nodes.end(), [](const ir::Node& n) { return n.name.empty(); });
    std::set<std::string> used_names;
    if (!all_named)
      for (const auto& n : graph.nodes) used_names.insert(n.name);
    for (auto& n : graph.nodes) {
      if (!n.name.empty()) continue;
      std::string base = synthesized_name(n.target);
      n.name = base;
      for (int suffix = 1; used_names.count(n.name); ++suffix) n.name = base + "_" + std::to_string(suffix);
      used_names.insert(n.name);
    }
  }
  // members() come sorted and without repeats: each insertion goes at the end of the map.
  if (fast && fast->values_taken)
    graph.tensor_values = std::move(fast->tensor_values);
  else if (auto values = node.find("tensor_values"))
    for (auto& [name, meta] : values->members())
      if (!meta.is_null()) graph.tensor_values.emplace_hint(graph.tensor_values.end(), std::move(name), read_tensor_meta(meta));
  if (auto values = node.find("sym_int_values"))
    for (const auto& [name, value] : values->members())
      if (!value.is_null()) graph.sym_int_values[name] = read_dim(value);
  if (auto values = node.find("sym_bool_values"))
    for (const auto& [name, value] : values->members())
      if (!value.is_null()) graph.sym_bool_values[name] = read_sym_bool_text(value);
  if (auto values = node.find("sym_float_values"))
    for (const auto& [name, value] : values->members())
      if (!value.is_null()) graph.sym_float_values[name] = read_sym_float_text(value);
  graph.is_single_tensor_return = node.bool_or("is_single_tensor_return", false);
  return graph;
}

}  // namespace pt2onnx::import
