// GraphSignature -> ir::GraphSignature: the input/output specs (2.2+) or the 2.1 dicts.
#pragma once

#include "import/json_node.h"
#include "ir/program.h"

namespace pt2onnx::import {

// `graph` supplies the input and output order that the 2.1 dict form does not carry.
ir::GraphSignature read_signature(const JsonNode& node, const ir::Graph& graph);

}  // namespace pt2onnx::import
