// ir::Program -> ONNX graph through the op registry. Weights are not touched here: each
// parameter, buffer or constant becomes an initializer *declaration* (name, dtype, dims, no
// data) plus a binding to its FQN, which emit/ fills from the archive while writing.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/program.h"
#include "model/onnx_model.h"
#include "translate/custom_op_rule.h"
#include "translate/packed_nodes.h"
#include "translate/refusals.h"

namespace pt2onnx::translate {

struct TranslateOptions {
  int opset = 18;
  // Config rules; they are tried before the built-in rules, in order, first match wins.
  std::vector<CustomOpRule> custom_ops = {};
  // At opset 23+, emit ONNX's fused ops (Attention, RMSNormalization) where they say exactly
  // what the program computes (fuse_patterns.h); false (--no-fuse): always the decomposed forms.
  bool fuse = true;
  // Whether Translation::node_modules is filled: only module folding (--hiera, --compile, config
  // module rules) reads it, and at 100k nodes it is a module stack copied per ONNX node.
  bool module_stacks = true;
  // Whether Translation::packed_nodes keeps the graph's nodes serialized (the caller unpacks them
  // with unpack_nodes once it has released the IR: at 100k nodes the two do not fit in 200 MB
  // together); false: model.graph() holds every node.
  bool keep_nodes_packed = false;
  // Called with the index of each node of the program's graph once it is translated (nothing in
  // translate reads a finished node's module stack again: convert() frees them there).
  std::function<void(size_t)> after_node = {};
  // Null (convert): the first refusal throws. Given (inspect): every refusal the translation
  // meets is appended here and it carries on past the refused part (a refused node's outputs
  // read as values no node makes), so the caller learns all that convert would refuse, in order;
  // nodes of ops that no rule handles are left out (the caller lists those by op). The model
  // made is then incomplete: most of its nodes are dropped as they are made.
  Refusals* refusals = nullptr;
};

using model::WeightBinding;

struct Translation {
  onnx::ModelProto model;              // initializers of weights carry dims and dtype, no data
  std::vector<WeightBinding> weights;  // in initializer order
  std::vector<std::string> warnings;
  // For each node of model.graph(), in order: the module stack of the FX node it was translated
  // from (empty for graph-boundary plumbing). hierarchy/ folds module instances with it. Empty
  // when TranslateOptions::module_stacks is false.
  ir::ModuleStacks node_modules;
  // For each of options.custom_ops: how many FX nodes it translated (0: the rule matched nothing).
  std::vector<int64_t> custom_op_hits;
  // With TranslateOptions::keep_nodes_packed: the first nodes of model.graph(), serialized.
  PackedNodes packed_nodes;
};

// Puts the packed nodes back in front of model.graph()'s own.
void unpack_nodes(Translation& translation);

// Throws Error(kUnsupported) listing every unsupported op (with counts and one example node
// each) before translating anything; other failures name the node, its target and module path.
Translation translate_program(const ir::Program& program, const TranslateOptions& options);

}  // namespace pt2onnx::translate
