// What typed emits need to know of a standard ONNX op's schema at an opset: which element types
// its first input's type parameter takes, and which inputs and outputs share that parameter.
// Read from a table generated from libonnx's schemas (onnx_type_table.inc, by
// tools/onnx_type_table), so that no conversion builds libonnx's schema registry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pt2onnx::model {

struct OpTypeFacts {
  const char* op;
  int since_version;
  bool ml;           // domain ai.onnx.ml (else the standard domain)
  bool constrained;  // input 0's type parameter is a constraint (else it says nothing of types)
  uint32_t allowed;  // bit e: the constraint takes tensors of ONNX element type e
  uint32_t inputs;   // formal inputs (a variadic last one repeats)
  uint32_t input_mask;   // bit i: formal input i has input 0's type parameter
  uint32_t outputs;      // formal outputs
  uint32_t output_mask;  // bit i: formal output i has it

  bool takes(int onnx_elem_type) const {
    return !constrained || (onnx_elem_type > 0 && onnx_elem_type < 32 && (allowed >> onnx_elem_type) & 1u);
  }
  // Whether actual input (output) i has input 0's type parameter.
  bool input_shares(size_t i) const { return shares(input_mask, inputs, i); }
  bool output_shares(size_t i) const { return shares(output_mask, outputs, i); }

 private:
  static bool shares(uint32_t mask, uint32_t count, size_t i) {
    if (count == 0) return false;
    const size_t formal = i < count ? i : count - 1;
    return formal < 32 && ((mask >> formal) & 1u);
  }
};

// The schema of standard-domain `op` in force at `opset` (the newest since_version <= opset that
// the table knows), or nullptr for an op it does not know.
const OpTypeFacts* op_type_facts(std::string_view op, int opset);

// Whether `name` is an op of the standard or ai.onnx.ml domain at any version the table knows.
bool is_onnx_op_name(std::string_view name);

}  // namespace pt2onnx::model
