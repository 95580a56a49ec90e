// How a torch tensor appears in the ONNX: the contract translate writes and emit reads.
//
// A complex64 (complex128) tensor of shape S is carried as a float32 (float64) tensor of shape
// S + [2], the last axis holding (real, imaginary), the layout ONNX DFT reads and writes and the
// byte layout torch stores complex tensors in (so a complex weight is copied unchanged). Graph
// inputs, outputs and initializers of complex type are declared that way too, as torch.onnx does.
// complex32 (ComplexHalf) is refused: torch computes it in ways float16 pairs would not match.
// Every other tensor appears as it is, with its dtype's ONNX type (ir/dtype.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/program.h"

namespace pt2onnx::model {

// float32 for complex64, float64 for complex128; throws Error(kUnsupported) for complex32 and for
// types that are not complex.
ir::DType complex_component(ir::DType complex);
// The ONNX-side meta of a value: a complex one becomes its component dtype with a trailing 2;
// others are returned as they are.
ir::TensorMeta lowered_meta(const ir::TensorMeta& meta);
// The dims of a weight of dtype `dtype` and `sizes` as the ONNX declares it (a trailing 2 for complex).
std::vector<int64_t> lowered_dims(ir::DType dtype, const std::vector<int64_t>& sizes);
// The ONNX element type of a value whose export meta is `meta`, where the meta is its ONNX type as
// it stands (its sizes are then the value's dims, static or symbolic): the one reading for stages
// that ask about values the ONNX does not annotate (clean-up's oracle, the kernels' call sites).
// nullopt for a complex value (real pairs, above) and an unknown dtype.
std::optional<int32_t> onnx_elem_type(const ir::TensorMeta& meta);

}  // namespace pt2onnx::model
