// Graph and Node objects of the export schema -> ir::Graph (recursively for subgraphs).
#pragma once

#include "import/json_node.h"
#include "ir/program.h"

namespace pt2onnx::import {

// A Graph {inputs, outputs, nodes, tensor_values, sym_*_values, is_single_tensor_return}; every
// field may be missing. Nodes get their targets without "torch.ops.", a name, their module stack
// and, for aten/prims targets, every schema argument (fill_schema_defaults).
ir::Graph read_graph(const JsonNode& node);

}  // namespace pt2onnx::import
