// --hiera: folds every instance of chosen module types of a translated (flat) ONNX graph into a
// call of an ONNX local function. Instances whose canonical bodies are identical share one
// function; parameters and other outside values enter as function inputs (functions cannot hold
// initializers), so weights stay top-level and are never copied.
//
// An instance of a type is the set of nodes whose module stack holds a frame of that type, told
// apart by the keys of the stack down to that frame (a module called twice has two keys, e.g.
// "L__self__blk" and "L__self__blk@1"). Nested types fold innermost first, so an outer function's
// body calls the inner function. Small Constant nodes (the translator's shared constant cache)
// that an instance reads from outside are cloned into it rather than passed in.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "common/function_defaults.h"
#include "ir/program.h"

namespace pt2onnx::hierarchy {

// The domain of the functions made by --hiera (and of their call nodes).
inline constexpr const char* kDefaultDomain = kDefaultFunctionDomain;

// A module type replaced by one custom node per instance (for runtimes that bring a plugin): its
// inputs and outputs are the instance's boundary, in the order a --hiera function would take them.
struct OpaqueModule {
  std::string domain;
  std::string op_type;
  int64_t domain_version = 1;
  std::vector<onnx::AttributeProto> attributes;  // constant attributes of every node
};

struct HierarchyOptions {
  // Module types: a class name alone ("DecoderAttention") or qualified, in whole dotted
  // components ("__main__.DecoderAttention").
  std::vector<std::string> types;
  std::string domain = kDefaultDomain;
  // Function names: "{class}" is the class name, "{qualified}" the qualified one with '_' for '.';
  // the result is reduced to [A-Za-z0-9_] and kept clear of standard op names.
  std::string function_name = kDefaultFunctionName;
  // Types (spelled as in `types`) folded into opaque nodes rather than function calls.
  std::map<std::string, OpaqueModule> opaque;
};

struct FoldedType {
  std::string type;                    // as given
  int instances = 0;                   // instances folded
  int bodies = 0;                      // distinct translated bodies among them
  std::vector<std::string> functions;  // names of its functions, in order of first appearance
  bool opaque = false;                 // folded into opaque nodes (no functions)
};

struct HierarchyReport {
  std::vector<FoldedType> types;  // in the order given
  std::vector<std::string> warnings;
};

// Rewrites `model` in place (its main graph and functions) and `node_modules` (one module stack
// per node of model.graph(), kept parallel). Throws Error(kUsage) when a type matches no module
// (naming the types the model has), Error(kUnsupported) naming the type and instance when an
// instance cannot be folded (folding would create a cycle, or it holds a subgraph).
HierarchyReport fold_hierarchy(onnx::ModelProto& model, ir::ModuleStacks& node_modules,
                               const HierarchyOptions& options);

}  // namespace pt2onnx::hierarchy
