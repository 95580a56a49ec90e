// The pieces inspect() assembles, each from one part of an ir::Program (and, for weights, the
// archive's tensors). Separate from inspect.h so that the public header stays free of IR types,
// and so that tests can run them on hand-built programs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/inspect.h"
#include "archive/archive.h"
#include "ir/program.h"
#include "translate/custom_op_rule.h"
#include "translate/rule_table.h"

namespace pt2onnx::inspection {

// Module tree from the nodes' nn_module_stack (inspect_modules.cpp).
struct ModuleTree {
  std::vector<ModuleSummary> modules;
  std::map<std::string, int64_t> module_types;
  int64_t nodes_outside_modules = 0;
};
ModuleTree summarize_modules(const ir::Graph& graph);

// User inputs and outputs of the signature, and the range constraints (inspect_signature.cpp).
std::vector<ValueSummary> summarize_user_inputs(const ir::Program& program);
std::vector<ValueSummary> summarize_user_outputs(const ir::Program& program);
std::vector<SymbolRange> summarize_range_constraints(const ir::Program& program);
// The buffers and user inputs the program updates (translate/program_state.h).
std::vector<StateSummary> summarize_state(const ir::Program& program);

// Parameters, buffers and constants the signature lifts, sized from the archive's tensors
// (inspect_weights.cpp).
WeightSummary summarize_weights(const ir::GraphSignature& signature,
                                const std::map<std::string, archive::TensorData>& weights,
                                const std::map<std::string, archive::TensorData>& constants);

// The subgraphs of higher-order ops, depth-first, and the count of every node of the program
// (inside subgraphs too) (inspect_subgraphs.cpp).
std::vector<SubgraphSummary> summarize_subgraphs(const ir::Graph& graph);
int64_t count_nodes(const ir::Graph& graph);
// A graph holding `graph`'s nodes, each followed by the nodes of its subgraphs (depth-first).
ir::Graph with_subgraph_nodes(const ir::Graph& graph);

// Op histogram of the graph and of its subgraphs, each target checked against the config's op rules
// (`custom`, first match wins, as in convert) and then `rules` at `opset` (inspect_ops.cpp).
// Sorted by target.
std::vector<OpSummary> summarize_ops(const ir::Program& program, const translate::RuleTable& rules, int opset,
                                     const std::vector<translate::CustomOpRule>& custom = {});

// Quantized weights and activations (inspect_quantization.cpp); `opset` decides how the ONNX
// can hold each weight.
QuantizationSummary summarize_quantization(const ir::Program& program, int opset);

// Everything but the archive-level fields (name, entry, weights) of one model.
ModelInspection summarize_program(const ir::Program& program, const translate::RuleTable& rules, int opset,
                                  const std::vector<translate::CustomOpRule>& custom = {});

}  // namespace pt2onnx::inspection
