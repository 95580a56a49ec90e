// ExportedProgram JSON -> ir::Program: the top level (versions, ranges, module call graph).
#include "import/import_program.h"
#include "import/inline_wrappers.h"

#include <cmath>
#include <limits>

#include "common/error.h"
#include "import/check_definitions.h"
#include "import/fast_graph.h"
#include "import/json_node.h"
#include "import/json_doc.h"
#include "import/read_argument.h"
#include "import/read_graph.h"
#include "import/read_signature.h"

namespace pt2onnx::import {

namespace {

// SchemaVersion {major, minor}, or the bare integer of 2.1-2.2.
ir::SchemaVersion read_schema_version(const JsonNode& node) {
  if (node.is_number()) return {node.as_int(), 0};
  return {node.at("major").as_int(), node.find("minor") ? node.at("minor").as_int() : 0};
}

void check_schema_version(const ir::SchemaVersion& version, const JsonNode& root) {
  if (version.major >= kMinSchemaMajor && version.major <= kMaxSchemaMajor) return;
  pt2onnx::fail(ErrorCode::kArchive, root.source_name() + ": schema version " + std::to_string(version.major) + "." +
                                         std::to_string(version.minor) + " is not supported (supported major versions: " +
                                         std::to_string(kMinSchemaMajor) + " to " + std::to_string(kMaxSchemaMajor) + ")");
}

// A range bound: an integer; null, "Infinity"/"-Infinity" or a bare infinity (quoted by the JSON
// pre-pass) for unbounded; integers beyond int64 are unbounded too.
std::optional<int64_t> read_bound(const std::optional<JsonNode>& node) {
  if (!node) return std::nullopt;
  if (node->exceeds_int64()) return std::nullopt;
  if (node->is_integer()) return node->as_int();
  double v = node->as_double();
  if (!std::isfinite(v)) return std::nullopt;
  if (v != static_cast<double>(static_cast<int64_t>(v))) node->fail("range bound is not an integer");
  return static_cast<int64_t>(v);
}

std::map<std::string, ir::RangeConstraint> read_range_constraints(const JsonNode& node) {
  std::map<std::string, ir::RangeConstraint> out;
  for (const auto& [symbol, range] : node.members()) {
    if (range.is_null()) {
      out[symbol] = {};
      continue;
    }
    out[symbol] = {read_bound(range.find("min_val")), read_bound(range.find("max_val"))};
  }
  return out;
}

ir::ModuleCallSignature read_module_call_signature(const JsonNode& node) {
  ir::ModuleCallSignature out;
  if (auto inputs = node.find("inputs"))
    for (const auto& input : inputs->elements()) out.inputs.push_back(read_argument(input));
  if (auto outputs = node.find("outputs"))
    for (const auto& output : outputs->elements()) out.outputs.push_back(read_argument(output));
  out.in_spec = node.string_or("in_spec", "");
  out.out_spec = node.string_or("out_spec", "");
  if (auto names = node.find("forward_arg_names"))
    for (const auto& name : names->elements()) out.forward_arg_names.push_back(name.as_string());
  return out;
}

std::vector<ir::ModuleCallEntry> read_module_call_graph(const JsonNode& node) {
  std::vector<ir::ModuleCallEntry> out;
  for (const auto& entry : node.elements()) {
    ir::ModuleCallEntry parsed;
    parsed.fqn = entry.string_or("fqn", "");
    if (auto signature = entry.find("signature")) parsed.signature = read_module_call_signature(*signature);
    out.push_back(std::move(parsed));
  }
  return out;
}

// 2.1 files have a call_spec {in_spec, out_spec} instead of a module call graph: make the root
// entry from it, with the user inputs and outputs of the signature.
ir::ModuleCallEntry root_entry_from_call_spec(const JsonNode& call_spec, const ir::GraphSignature& signature) {
  ir::ModuleCallSignature root;
  root.in_spec = call_spec.string_or("in_spec", "");
  root.out_spec = call_spec.string_or("out_spec", "");
  for (const auto& input : signature.inputs)
    if (input.kind == ir::InputKind::kUserInput) root.inputs.push_back(input.arg);
  for (const auto& output : signature.outputs)
    if (output.kind == ir::OutputKind::kUserOutput) root.outputs.push_back(output.arg);
  return {"", root};
}

ir::Program read_program(const JsonNode& root, const std::string& source_name, FastGraph* fast, ImportParts parts) {
  ir::Program program;
  if (auto version = root.find("schema_version")) {
    program.schema_version = read_schema_version(*version);
    check_schema_version(program.schema_version, root);
  }
  JsonNode graph_module = root.at("graph_module");
  program.graph = read_graph(graph_module.at("graph"), fast);
  check_definitions(program.graph, source_name);
  inline_mode_wrappers(program.graph);
  if (auto signature = graph_module.find("signature")) {
    program.signature = read_signature(*signature, program.graph);
    check_signature(program, source_name);
  }
  if (!parts.module_call_graph) {
    // not read by the caller: not built (an entry per module call)
  } else if (auto calls = graph_module.find("module_call_graph")) {
    program.module_call_graph = read_module_call_graph(*calls);
  } else if (auto call_spec = graph_module.find("call_spec")) {
    program.module_call_graph.push_back(root_entry_from_call_spec(*call_spec, program.signature));
  }
  if (auto ranges = root.find("range_constraints")) program.range_constraints = read_range_constraints(*ranges);
  if (auto opsets = root.find("opset_version"))
    for (const auto& [name, version] : opsets->members())
      if (!version.is_null()) program.opset_version[name] = version.as_int();
  program.torch_version = root.string_or("torch_version", "");
  if (auto verifiers = root.find("verifiers")) {
    for (const auto& verifier : verifiers->elements()) program.verifiers.push_back(verifier.as_string());
  } else if (auto dialect = root.find("dialect")) {  // 2.2-2.4 spelling
    program.verifiers.push_back(dialect->as_string());
  }
  return program;
}

ir::Program read_document(const JsonDoc& document, const std::string& source_name, FastGraph* fast = nullptr,
                          ImportParts parts = {}) {
  JsonNode root(document, document.root(), source_name);
  if (!root.is_object()) root.fail("expected an ExportedProgram object");
  // Early-2025 "Sigmoid" packages wrap the program: {program: {methods: {forward: <program>}}}.
  if (!root.has("graph_module") && root.has("program")) {
    if (auto forward = root.at("program").at("methods").find("forward")) return read_program(*forward, source_name, nullptr, parts);
  }
  return read_program(root, source_name, fast, parts);
}

// The graph's nodes and tensor values straight from the parse when the fast readers take them
// (fast_graph.h), else the whole document the general way. `release` (the text's owner, or
// null) is told as the parse passes parts of the text, and at its end.
ir::Program import_text(JsonText text, const std::string& source_name, ReadOnceText* release, ImportParts parts) {
  FastGraph fast;
  fast.text = release;
  fast.node_metadata = parts.node_metadata;
  fast.module_call_graph = parts.module_call_graph;
  fast.nodes_beside = parts.nodes_beside;
  std::unique_ptr<JsonDoc> document = parse_program_doc_fast(text, source_name, fast);
  FastGraph* taken = document ? &fast : nullptr;
  if (!document) document = parse_json_doc(text, source_name);
  if (release) release->release_before(text.text.data() + text.text.size());  // the document and `fast` hold what they need
  ir::Program program = read_document(*document, source_name, taken, parts);
  if (!parts.node_metadata)  // what the general readers built (the fast ones built none)
    for (ir::Node& node : program.graph.nodes) std::map<std::string, ir::SharedText>().swap(node.metadata);
  return program;
}

}  // namespace

ir::Program import_program(const std::string& json_text, const std::string& source_name) {
  return import_text(JsonText(json_text), source_name, nullptr, {});
}

ir::Program import_program(const std::string& json_text, const std::string& source_name, ImportParts parts) {
  return import_text(JsonText(json_text), source_name, nullptr, parts);
}

ir::Program import_program(ReadOnceText& text, const std::string& source_name, ImportParts parts) {
  return import_text(JsonText(text.text(), true), source_name, &text, parts);
}

ir::Program import_program_general(const std::string& json_text, const std::string& source_name) {
  return read_document(*parse_json_doc(json_text, source_name), source_name);
}

}  // namespace pt2onnx::import
