// Complex values as real pairs: the one place that says how a complex tensor lives in the ONNX.
//
// A complex64 (complex128) tensor of shape S is carried as a float32 (float64) tensor of shape
// S + [2], the last axis holding (real, imaginary), the layout ONNX DFT reads and writes and the
// byte layout torch stores complex tensors in (so a complex weight is copied unchanged). Graph
// inputs, outputs and initializers of complex type are declared that way too, as torch.onnx does.
// complex32 (ComplexHalf) is refused: torch computes it in ways float16 pairs would not match.
//
// Rules see the logical (complex) shape in the FX metadata; dims of a complex tensor in
// [0, rank) are the same axes of its pair tensor, whose axis `rank` is the pair axis. A node that
// reads or writes a complex tensor is translated only by complex rules (RuleTable::add_complex).
#pragma once

#include <string>

#include "ir/program.h"

namespace pt2onnx::translate {

// float32 for complex64, float64 for complex128; throws Error(kUnsupported) for complex32 and for
// types that are not complex.
ir::DType complex_component(ir::DType complex);
// The real dtype of a complex dtype's pair representation and the complex dtype of a real one:
// complex_of(float32) = complex64, complex_of(float64) = complex128 (other floats: complex64).
ir::DType complex_of(ir::DType real);
// The ONNX-side meta of a value: a complex one becomes its component dtype with a trailing 2;
// others are returned as they are.
ir::TensorMeta lowered_meta(const ir::TensorMeta& meta);
// The dims of a weight of dtype `dtype` and `sizes` as the ONNX declares it (a trailing 2 for complex).
std::vector<int64_t> lowered_dims(ir::DType dtype, const std::vector<int64_t>& sizes);

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
