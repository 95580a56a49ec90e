// Test helper: the meta of a tensor of static sizes, as the tests of several stages build them.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace pt2onnx::ir {

inline TensorMeta static_meta(DType dtype, const std::vector<int64_t>& sizes) {
  TensorMeta m;
  m.dtype = dtype;
  for (int64_t s : sizes) m.sizes.push_back(Dim{s});
  return m;
}

}  // namespace pt2onnx::ir
