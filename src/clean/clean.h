// Graph clean-up on the translated ONNX: dead nodes and initializers, constant folding of shape
// arithmetic on static dims (and of integers that float arithmetic on constants gives alike in
// every runtime), merging of identical nodes, identity Casts/Reshapes/Identities,
// (unless --no-fold) inference BatchNorm folded into the Conv/Gemm before it, weight norms of
// two weights, Transposes of weights and scalar shifts of weights folded into the weight, Casts
// of int8 weights to INT4/UINT4 packed into the weight, state written back unchanged dropped
// from the signature, and, last, the main graph's Constant nodes as initializers.
// Nothing that depends on a dynamic dim becomes a constant; numbers are unchanged (BatchNorm
// and weight-norm folding change the rounding of the fused weights only).
//
// convert() runs clean_model() on the flat graph, before --hiera (module stacks kept
// parallel, values never made to cross instances of the hiera types), and clean_functions()
// after it, on the main graph and every local function.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/program.h"
#include "model/onnx_model.h"
#include "clean/body.h"
#include "clean/weight_access.h"

namespace pt2onnx::clean {

struct CleanOptions {
  std::vector<std::string> hiera_types;  // --hiera and opaque module types still to be folded
  // Reads the weights and says which derived ones emit can write; null: nothing is derived.
  WeightReader* weights = nullptr;
  bool fold_weights = false;  // BatchNorm, weight norms, weight Transposes and shifts folded into derived weights (not --no-fold)
  bool pack_weights = false;  // 4-bit weights packed (not a fold: --no-fold keeps it); false: Casts stay
  bool matmul_nbits = false;  // --matmul-nbits: Linear layers on 4-bit weights as com.microsoft.MatMulNBits (needs pack_weights)
  TypeOracle types;                      // static types of values the ONNX does not annotate
};

struct CleanReport {
  int dead_nodes = 0;
  int dead_initializers = 0;
  int folded_constants = 0;
  int merged_nodes = 0;
  int identities = 0;
  int batch_norms_folded = 0;
  int weight_norms_folded = 0;  // _weight_norm of two weights made one derived weight
  int transposes_folded = 0;
  int shifts_folded = 0;   // weights shifted by a scalar (Add/Sub) derived from the archive
  int weights_packed = 0;  // int8 weights stored as INT4/UINT4
  int matmul_nbits = 0;    // Linear layers made com.microsoft.MatMulNBits
  int constants_moved = 0;  // Constant nodes that became initializers
  int dead_functions = 0;
  int unchanged_state = 0;  // state pairs written back unchanged, dropped from the signature
};

struct Cleaned {
  model::OnnxModel model;
  // The weights that folding and packing derived, in order, each filling an initializer of
  // model's graph (those whose initializer went dead are dropped); emit writes them.
  std::vector<model::DerivedWeight> derived;
  CleanReport report;
};

// Cleans model.proto's main graph, keeping model.node_modules parallel and dropping the weight
// bindings of initializers that are gone.
Cleaned clean_model(model::OnnxModel&& model, const CleanOptions& options);

// After --hiera: cleans the main graph and each local function's body (a function keeps its
// signature), and drops functions that nothing calls.
CleanReport clean_functions(onnx::ModelProto& model);

// Static types from the export's tensor metadata (translate's Translated::value_types), by FX
// value name (the translator names ONNX values after the FX values they hold). `values` must
// outlive the clean-up.
TypeOracle value_type_oracle(const ir::TensorValues& values);

// Exposed for tests: the BatchNorm folding step alone, and the weight Transpose folding alone.
int fold_batch_norms(Body& body, WeightAccess& weights);
int fold_weight_norms(Body& body, WeightAccess& weights);
int fold_weight_transposes(Body& body, WeightAccess& weights);
int fold_weight_shifts(Body& body, WeightAccess& weights);
int fold_small_weights(Body& body, WeightAccess& weights);
int pack_4bit_weights(Body& body, WeightAccess& weights);
int use_matmul_nbits(Body& body, WeightAccess& weights);

}  // namespace pt2onnx::clean
