// Half-precision operands computed in float, as torch's kernels compute them. A kernel of a
// composite op (lerp, the norms, interpolation, the losses) loads float16/bfloat16 values into
// float, computes there, scalars included, and rounds its result once; a rule that emits several
// ONNX nodes in the half type rounds after each of them and holds its scalars in half (lerp's
// weight 0.4 becomes 0.39990). For a rule marked so in the table (Rule::half_in_float), the
// node's half tensors are cast to float before the rule runs and read as float values, and its
// half results are cast back.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/dtype.h"

namespace pt2onnx::ir {
struct Node;
}

namespace pt2onnx::translate {

class EmitContext;

class HalfInFloat {
 public:
  // Casts the node's float16/bfloat16 tensor operands to float and binds their FX names to the
  // casts; does nothing when the node reads and writes no such tensor.
  HalfInFloat(EmitContext& ctx, const ir::Node& node);
  // Restores the operands' values and metadata.
  ~HalfInFloat();
  HalfInFloat(const HalfInFloat&) = delete;
  HalfInFloat& operator=(const HalfInFloat&) = delete;

  // After the rule emitted: its results of a half type, computed in float, are cast back.
  void round_results();

 private:
  void operand(const std::string& fx_name);

  EmitContext& ctx_;
  std::vector<std::pair<std::string, std::string>> rebound_;  // FX name, its value before
  std::vector<std::pair<size_t, ir::DType>> results_;         // output index, declared type
};

}  // namespace pt2onnx::translate
