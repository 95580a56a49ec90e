// ir::Program -> the ONNX model (model/onnx_model.h) through the op registry. Weights are not
// touched here: each parameter, buffer or constant becomes an initializer *declaration* (name,
// dtype, dims, no data) plus a binding to its FQN, which emit/ fills from the archive while writing.
#pragma once

#include <cstdint>
#include <vector>

#include "common/opsets.h"
#include "ir/program.h"
#include "model/diagnostics.h"
#include "model/onnx_model.h"
#include "translate/custom_op_rule.h"
#include "translate/refusals.h"

namespace pt2onnx::translate {

struct TranslateOptions {
  int opset = kDefaultOpset;
  // Config rules; they are tried before the built-in rules, in order, first match wins.
  std::vector<CustomOpRule> custom_ops = {};
  // At opset 23+, emit ONNX's fused ops (Attention, RMSNormalization) where they say exactly
  // what the program computes (fuse_patterns.h); false (--no-fuse): always the decomposed forms.
  bool fuse = true;
  // Whether the model's node_modules are filled: only module folding (--hiera, --compile, config
  // module rules) reads them, and they are a module stack copied per ONNX node.
  bool module_stacks = true;
  // Null (convert): the first refusal throws. Given (inspect): every refusal the translation
  // meets is appended here and it carries on past the refused part (a refused node's outputs
  // read as values no node makes), so the caller learns all that convert would refuse, in order;
  // nodes of ops that no rule handles are left out (the caller lists those by op). The model
  // made is then incomplete: most of its nodes are dropped as they are made.
  Refusals* refusals = nullptr;
};

struct Translated {
  model::OnnxModel model;
  // What later stages still ask of the IR: the tensor metadata of the values the ONNX graph
  // names after FX values (a weight's placeholder names none: its initializer is named after its
  // FQN). Empty from translate_with_rules (driver.h), whose caller keeps the program.
  ir::TensorValues value_types;
  // For each of options.custom_ops: how many FX nodes it translated (0: the rule matched nothing).
  std::vector<int64_t> custom_op_hits;
};

// Consumes the program: a translated node's module stack is dropped as it is done, and the rest
// of the IR is freed (but its value types) before the ONNX graph is whole, so that the two never
// stand in memory together at full size. Warnings go to `diagnostics`.
// Throws Error(kUnsupported) listing every unsupported op (with counts and one example node
// each) before translating anything; other failures name the node, its target and module path.
Translated translate_program(ir::Program&& program, const TranslateOptions& options, model::Diagnostics& diagnostics);

}  // namespace pt2onnx::translate
