// Argument unions of the export schema -> ir::Argument.
#pragma once

#include <string>

#include "import/json_node.h"
#include "ir/program.h"

namespace pt2onnx::import {

// Any member of the Argument union (and of ConstantValue, whose members are a subset). Fails on
// an unknown member: "...arg: unknown argument kind 'as_foo'".
ir::Argument read_argument(const JsonNode& node);

// A TensorArgument: {"name": "x"}, or the bare "x" of the oldest files.
std::string read_tensor_name(const JsonNode& node);

// "torch.ops.aten.add.Tensor" -> "aten.add.Tensor"; other targets unchanged.
std::string strip_torch_ops(std::string target);

}  // namespace pt2onnx::import
