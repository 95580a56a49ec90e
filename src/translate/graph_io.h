// The graph's boundary: user inputs become graph inputs, parameters/buffers/constants become
// initializer declarations bound to their FQN, returned outputs become graph outputs.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/program.h"
#include "translate/emit_context.h"
#include "translate/translate.h"

namespace pt2onnx::translate {

// Claims every name the ONNX graph must keep: user inputs and FX value names first, then each
// weight's FQN (suffixed if an FX name holds it already).
void reserve_names(EmitContext& ctx, const ir::Program& program);
// Declares graph inputs and the weight initializers that live nodes read, and binds their FX
// placeholders.
void declare_inputs(EmitContext& ctx, const ir::Program& program, std::vector<WeightBinding>& weights);
// Adds the returned outputs (Identity where an output is an input, a constant or repeated) and
// warns about mutations that the ONNX graph does not carry out.
void declare_outputs(EmitContext& ctx, const ir::Program& program);
// A ValueInfoProto of an FX tensor: element type and dims (dim_param for symbolic ones).
onnx::ValueInfoProto tensor_value_info(const EmitContext& ctx, const std::string& name, const ir::TensorMeta& meta);

}  // namespace pt2onnx::translate
