// The ONNX model under construction, as it passes from stage to stage (translate makes it; clean,
// hierarchy and emit take it by move and hand it on). Weights are not in the proto: each
// parameter, buffer or constant is an initializer *declaration* (name, dtype, dims, no data)
// plus a binding to its FQN in the archive, which emit fills while writing.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/module_stack.h"

namespace pt2onnx::model {

struct WeightBinding {
  std::string initializer;  // name of the TensorProto in proto.graph().initializer()
  std::string fqn;          // key in the archive's weights() or constants()
  bool is_constant = false; // true: look it up in constants()
};

struct OnnxModel {
  onnx::ModelProto proto;              // initializers of weights carry dims and dtype, no data
  std::vector<WeightBinding> weights;  // in initializer order
  // For each node of proto.graph(), in order: the module stack of the FX node it was translated
  // from (empty for graph-boundary plumbing). hierarchy/ folds module instances with it; empty
  // when nothing folds modules.
  ir::ModuleStacks node_modules;
};

}  // namespace pt2onnx::model
