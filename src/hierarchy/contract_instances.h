// Replaces each instance's nodes by one call node and re-sorts the graph topologically, keeping
// the original order wherever the data allows.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "hierarchy/instance_body.h"
#include "hierarchy/module_instances.h"

namespace pt2onnx::hierarchy {

struct CallNode {
  onnx::NodeProto node;
  ir::ModuleStack stack;  // the module stack above the folded frame
};

// `calls[g]` replaces the members of map.instances[g]. Throws Error(kUnsupported) naming `type`
// and the instance paths when outside nodes both read an instance's outputs and feed its inputs
// (the call would depend on itself).
void contract_instances(Nodes& nodes, ModuleStacks& stacks, const InstanceMap& map,
                        std::vector<CallNode> calls, const std::string& type);

}  // namespace pt2onnx::hierarchy
