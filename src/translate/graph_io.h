// The graph's boundary: user inputs become graph inputs, parameters/buffers/constants become
// initializer declarations bound to their FQN, returned outputs become graph outputs. State (an
// updated parameter, buffer or user input, program_state.h) is a graph input (a parameter's or
// buffer's also keeps its initializer of the same name, the input's default) paired with a graph
// output `<input>.new` holding the new value; the pairs go to model metadata `pkg.pt2onnx.state`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/program.h"
#include "translate/program_state.h"
#include "translate/refusals.h"
#include "translate/emit_context.h"
#include "translate/translate.h"

namespace pt2onnx::translate {

// Claims every name the ONNX graph must keep: user inputs and FX value names first, then each
// weight's FQN (suffixed if an FX name holds it already).
void reserve_names(EmitContext& ctx, const ir::Program& program);
struct StateInput {
  StateUpdate update;
  std::string input;  // the ONNX graph input holding the value before the call
};

// Declares graph inputs and the weight initializers that live nodes read, and binds their FX
// placeholders. Updated parameters and buffers become graph inputs too; returns the state inputs.
// State convert refuses throws, or, with `refused`, is appended there and left out.
std::vector<StateInput> declare_inputs(EmitContext& ctx, const ir::Program& program, std::vector<model::WeightBinding>& weights,
                                       Refusals* refused = nullptr);
// Adds the returned outputs (Identity where an output is an input, a constant or repeated), then
// one output per state input with its new value. Returns the {state input, state output} pairs.
// What convert refuses throws, or, with `refused`, is appended there and left out.
std::vector<std::pair<std::string, std::string>> declare_outputs(EmitContext& ctx, const ir::Program& program,
                                                                 const std::vector<StateInput>& state,
                                                                 Refusals* refused = nullptr);
// Model metadata `pkg.pt2onnx.state`: {"<state input>": "<state output>", ...}; none without state.
void add_state_metadata(onnx::ModelProto& model, const std::vector<std::pair<std::string, std::string>>& pairs);
// A ValueInfoProto of an FX tensor: element type and dims (dim_param for symbolic ones).
onnx::ValueInfoProto tensor_value_info(const EmitContext& ctx, const std::string& name, const ir::TensorMeta& meta);

}  // namespace pt2onnx::translate
