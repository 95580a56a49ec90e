// Puts an operator node's inputs in schema form: every schema argument present, by name, in
// schema order, with omitted ones set to their defaults.
#pragma once

#include "ir/program.h"

namespace pt2onnx::import {

// For a target in the aten/prims schema table: names unnamed positional inputs by position,
// fills each omitted argument that has a default, orders the inputs as the schema does and takes
// the keyword flags from it. Inputs the schema does not know are kept, after the others. Other
// targets (HOPs, _operator.*, custom ops) are left as they are.
void fill_schema_defaults(ir::Node& node);

}  // namespace pt2onnx::import
