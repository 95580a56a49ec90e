// Complex values as real pairs, on the rules' side: how a complex tensor lives in the ONNX is
// model/lowering.h's contract; here is which FX nodes touch complex values.
//
// Rules see the logical (complex) shape in the FX metadata; dims of a complex tensor in
// [0, rank) are the same axes of its pair tensor, whose axis `rank` is the pair axis. A node that
// reads or writes a complex tensor is translated only by complex rules (RuleTable::add_complex).
#pragma once

#include <string>

#include "ir/program.h"
#include "model/lowering.h"

namespace pt2onnx::translate {

using model::complex_component;
using model::lowered_dims;
using model::lowered_meta;

// The real dtype of a complex dtype's pair representation and the complex dtype of a real one:
// complex_of(float32) = complex64, complex_of(float64) = complex128 (other floats: complex64).
ir::DType complex_of(ir::DType real);

// Whether `node` reads or writes a complex tensor (tensor_values of its graph say which), or takes
// a complex Scalar.
bool touches_complex(const ir::TensorValues& tensor_values, const ir::Node& node);

// touches_complex for every node of one graph, with one scan of its tensor_values up front: in a
// graph without complex tensors (most), a node is complex only by a complex Scalar argument.
class ComplexNodes {
 public:
  explicit ComplexNodes(const ir::TensorValues& tensor_values);
  bool touches(const ir::Node& node) const;

 private:
  const ir::TensorValues& tensor_values_;
  bool any_complex_tensor_ = false;
};

}  // namespace pt2onnx::translate
