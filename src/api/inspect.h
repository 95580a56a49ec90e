// The public inspection API: what a .pt2 archive holds (layout, versions, module tree, graph
// inputs and outputs, weights) and which of its ops the converter can translate, without
// converting anything. `pt2onnx inspect` is a thin shell over this.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/opsets.h"

namespace pt2onnx {

struct InspectOptions {
  std::filesystem::path input;
  std::string model;  // empty: every model in the archive
  int opset = kDefaultOpset;     // ops are checked against the rules valid at this opset
  // --config: ops its rules translate count as handled (its other options are ignored here).
  std::filesystem::path config;
};

// A size: a number, or the text of a symbolic expression ("s0", "2*s0 + 1").
using InspectDim = std::variant<int64_t, std::string>;

// A user input or output of the graph.
struct ValueSummary {
  std::string name;  // FX name
  std::string kind;  // "tensor", "symint", "symfloat", "symbool", "constant", "token", ...
  std::string dtype;               // tensors: torch-style name ("float32"); "" otherwise
  std::vector<InspectDim> dims;    // tensors only
  bool has_meta = true;            // false: a tensor with no tensor_values entry
};

// A range constraint on a symbol; nullopt is unbounded.
struct SymbolRange {
  std::string symbol;
  std::optional<int64_t> min;
  std::optional<int64_t> max;
};

// A parameter, buffer or user input the program updates: ONNX state (a graph input paired with
// an output `<name>.new`), or an update convert refuses (a tensor constant's, ...).
struct StateSummary {
  std::string kind;    // "buffer", "user input", "parameter", "tensor constant"
  std::string target;  // parameter/buffer FQN or user input name
  std::string how;     // "in-place aten.index_copy_.default (node index_copy_)", "BUFFER_MUTATION output add_1"
  bool convertible = true;  // false: convert refuses it (exit 4)
};

// What convert would refuse besides ops without a rule (those are the ops' blocks_conversion()):
// a rule refusing a node's arguments, dtypes or complex values, a dtype the opset lacks, state
// ONNX cannot hold. Found by running convert's own translation, collecting refusals instead of
// stopping at the first.
struct RefusalSummary {
  int exit_code = 4;    // convert's exit status for it (4: unsupported)
  std::string message;  // convert's message after "FILE: ", e.g. "translating node x (aten.foo) ...: ..."
};

// One module of the call tree that the nodes' nn_module_stack describes.
struct ModuleSummary {
  std::string path;  // FQN; "" for the root module
  std::string type;  // qualified class, e.g. "torch.nn.modules.linear.Linear"
  int depth = 0;     // 0 for the root
  int64_t nodes = 0;        // nodes whose innermost module is this one
  int64_t total_nodes = 0;  // nodes of this module and its submodules
};

struct WeightTotals {
  int64_t count = 0;
  int64_t bytes = 0;
};

struct WeightSummary {
  WeightTotals parameters;
  WeightTotals buffers;    // persistent and non-persistent
  WeightTotals constants;  // lifted tensor constants
  std::vector<std::string> missing;  // FQNs the signature names but the archive lacks
  // --external-data=archive: the weights (from 1 KiB up; smaller ones are embedded) whose bytes
  // cannot be referenced inside the archive, and why the first cannot; 0: convert can reference all.
  int64_t unreferenceable = 0;
  std::string unreferenceable_first;
  WeightTotals total() const;
};

enum class OpSupport {
  kSupported,     // a rule handles it at the chosen opset
  kDropped,       // a runtime check that ONNX has no use for (not translated, not an error)
  kNeedsOpset,    // rules exist, but only for a newer opset
  kUnsupported,   // no rule at all
  kConfigRule,    // an op rule of --config translates it (before any built-in rule)
};

struct OpSummary {
  std::string target;  // "aten.linear.default"
  int64_t count = 0;   // nodes calling it
  int64_t unused = 0;  // of those, nodes the ONNX graph does not need (skipped by convert)
  OpSupport support = OpSupport::kSupported;
  int min_opset = 0;   // kNeedsOpset: the oldest opset a rule accepts
  std::string rule;    // kConfigRule: where the config has the rule, e.g. "rules[0]"
  bool decomposed = false;  // rewritten into other aten ops before translation (a built-in decomposition)
  // Whether convert would refuse the model for this op: unhandled and needed at least once.
  bool blocks_conversion() const;
};

// One subgraph of a higher-order op (cond branch, loop body, ...), depth-first: a subgraph of a
// node inside another subgraph follows it with depth + 1.
struct SubgraphSummary {
  int depth = 0;       // 0: a subgraph of a node of the main graph
  std::string node;    // the node holding it
  std::string target;  // that node's op, e.g. "higher_order.cond"
  std::string name;    // the subgraph's name in the archive, e.g. "true_graph_0"
  int64_t nodes = 0;   // its own nodes (not those of its subgraphs)
};

// A quantized weight: one that a dequantize op reads, or a low-precision weight that a plain
// cast widens (torchao's int8 and float8 weight-only).
struct QuantizedWeight {
  std::string weight;           // FQN
  std::vector<int64_t> shape;
  std::string values;           // "int4 (-8..7 in int8)", "int8", "float8_e4m3fn"
  std::string scheme;           // "per tensor", "per channel (axis 0)", "per group of 32 (axis 1)", "cast"
  std::string op;               // the op that reads it
  std::string onnx;             // how the ONNX holds it at the inspected opset, or why it cannot
};

// The quantization scheme of a program (inspect_quantization.cpp): its quantized weights and
// its quantized activations, "<op>: <values>, <scheme>" -> nodes (choose_qparams ops counted as
// dynamic quantization).
struct QuantizationSummary {
  std::vector<QuantizedWeight> weights;  // graph order, each weight once
  std::map<std::string, int64_t> activations;
  bool empty() const { return weights.empty() && activations.empty(); }
};

struct ModelInspection {
  std::string name;   // "model" for torch.export.save
  std::string entry;  // archive entry of its ExportedProgram JSON
  std::string torch_version;  // "" when the file does not say
  int64_t schema_major = 0;
  int64_t schema_minor = 0;

  std::vector<ValueSummary> inputs;
  std::vector<ValueSummary> outputs;
  std::vector<SymbolRange> range_constraints;  // sorted by symbol
  std::vector<StateSummary> state;             // updated weights and inputs, in signature order
  WeightSummary weights;

  std::vector<ModuleSummary> modules;        // depth-first, children in the order the graph calls them
  std::map<std::string, int64_t> module_types;  // type -> instances (distinct paths)
  int64_t nodes_outside_modules = 0;          // nodes with an empty nn_module_stack

  std::vector<SubgraphSummary> subgraphs;

  std::vector<OpSummary> ops;  // sorted by target; nodes inside subgraphs count
  int64_t node_count = 0;      // with the nodes of subgraphs
  int64_t unsupported_nodes = 0;  // nodes whose op blocks conversion
  std::vector<RefusalSummary> refusals;  // in the order convert meets them; convert stops at the first
  // ONNX fused ops a conversion at this opset would emit (none below 23): op type and what it
  // replaces -> nodes, sorted.
  std::map<std::pair<std::string, std::string>, int64_t> fused_ops;
  QuantizationSummary quantization;
};

struct InspectReport {
  std::filesystem::path input;
  std::string layout;  // archive::layout_name()
  int opset = kDefaultOpset;
  std::vector<ModelInspection> models;  // sorted by name
};

// Reads the archive and every model it holds (or options.model). Throws pt2onnx::Error with the
// codes convert() uses (kUsage for a bad --opset or an unknown --model, kArchive for an
// unreadable archive). Unsupported ops are reported, not thrown.
InspectReport inspect(const InspectOptions& options);

// Human-readable report, ending with "N ops, M unsupported" per model (", R refusals" after it
// when convert would refuse other things).
std::string render_inspect_text(const InspectReport& report);
// The same content as one JSON document (keys in a fixed order, lists sorted), newline-terminated.
std::string render_inspect_json(const InspectReport& report);

}  // namespace pt2onnx
