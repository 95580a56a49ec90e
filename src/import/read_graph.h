// Graph and Node objects of the export schema -> ir::Graph (recursively for subgraphs).
#pragma once

#include <string>

#include "import/json_node.h"
#include "ir/program.h"

namespace pt2onnx::import {

// A Graph {inputs, outputs, nodes, tensor_values, sym_*_values, is_single_tensor_return}; every
// field may be missing. Nodes get their targets without "torch.ops.", a name, their module stack
// and, for aten/prims targets, every schema argument (fill_schema_defaults).
// With `fast`, the nodes and tensor values the fast readers took (fast_graph.h) are used instead
// of the document's (which stand empty there).
struct FastGraph;
// The name of the first value an argument produces ("" for none): a node's name in files that
// give none (torch <= 2.7).
std::string first_value_name(const ir::Argument& arg);
ir::Graph read_graph(const JsonNode& node, FastGraph* fast = nullptr);

}  // namespace pt2onnx::import
