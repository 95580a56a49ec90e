// The FX bodies of higher-order ops as ONNX subgraphs (If branches, Loop and Scan bodies) and as
// local functions (invoke_subgraph). A body is translated by a child EmitContext; its FX inputs
// read values given by the caller: outer values (ONNX subgraphs read outer scopes by name) or
// formal inputs declared in the body graph.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/program.h"
#include "translate/emit_context.h"

namespace pt2onnx::translate {

// The domain of the local functions that invoke_subgraph bodies become.
inline constexpr const char* kSubgraphDomain = "pt2onnx.subgraph";

// Translates FX graph `fx` into `graph` through a child of `ctx` (isolated: reading nothing of
// ctx): FX input i reads ONNX value inputs[i]. Returns the ONNX values of fx's outputs, which
// may be inputs or outer values (set_body_outputs adds the Identity nodes they then need).
std::vector<std::string> translate_body(EmitContext& ctx, onnx::GraphProto& graph, const ir::Graph& fx,
                                        const std::vector<std::string>& inputs, bool isolated = false);

// Declares a formal input of `graph` for FX input `fx_input` of `fx`, typed from its metadata.
// Returns its name, unique in the model.
std::string add_body_input(EmitContext& ctx, onnx::GraphProto& graph, const ir::Graph& fx, const ir::Argument& fx_input);
// A formal 0-D input of `graph` of `dtype` named after `base`.
std::string add_scalar_input(EmitContext& ctx, onnx::GraphProto& graph, const std::string& base, ir::DType dtype);

// A formal input of `graph` of `dtype` and unknown shape, named after `base` (bodies a rule builds
// by hand, e.g. a Loop's carried values).
std::string add_typed_input(EmitContext& ctx, onnx::GraphProto& graph, const std::string& base, ir::DType dtype);
// Declares body value `value` (made by a node of `graph`) an output of `dtype`, 0-D when `scalar`.
void add_typed_output(onnx::GraphProto& graph, const std::string& value, ir::DType dtype, bool scalar = false);

// One output of a body: its ONNX value and the FX argument whose metadata types it (nullptr:
// a 0-D bool, the loop condition).
struct BodyOutput {
  std::string value;
  const ir::Argument* fx = nullptr;
};
// Makes `outputs` the outputs of `graph` (whose FX graph is `fx`), each typed; a value that is
// not made by a node of `graph` (an input, an outer value) or is listed twice goes through an
// Identity first.
void set_body_outputs(EmitContext& ctx, onnx::GraphProto& graph, const ir::Graph& fx, const std::vector<BodyOutput>& outputs);

// Appends `op_type(inputs) -> one fresh output` to `graph` (for the few nodes a rule adds to a
// body after its child context is gone).
std::string append_body_node(EmitContext& ctx, onnx::GraphProto& graph, const std::string& op_type,
                             const std::vector<std::string>& inputs, const std::vector<Attr>& attrs = {});

// Bytes equal exactly when two function bodies are equal up to the names of their values and
// nodes (nested subgraphs included).
std::string structural_key(const onnx::FunctionProto& function);

}  // namespace pt2onnx::translate
