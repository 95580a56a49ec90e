// A weight that clean-up derives from another (model/onnx_model.h's weights are read from the
// archive as they are): described here as data, computed by emit from its source's bytes while
// it is written (emit/derived_tensors.h), so it is never held whole in memory.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "model/onnx_model.h"

namespace pt2onnx::model {

struct DerivedWeight {
  // float32 elements of the source, element i times factors[(i / inner) % factors.size()], plus
  // offset (a Conv/Gemm weight scaled per output channel by a folded BatchNorm; a weight norm's v
  // scaled per channel of its dim by g / ||v||; a weight that a folded Add or Sub shifts by a
  // scalar, as Gemma's RMSNorm reads 1 + weight). Computed in double and rounded once to float32:
  // with one factor of 1 or an offset of 0 that is the float32 result of the single operation
  // torch computes.
  struct Scaled {
    std::vector<double> factors;
    int64_t inner = 1;
    double offset = 0;  // 0: none added (x * factor keeps the sign of a zero)
  };
  // Transpose(source, perm): dims[i] = source dims[perm[i]] (a folded weight Transpose).
  struct Permuted {
    std::vector<int64_t> perm;
  };
  // An int8/uint8 source with 4-bit values packed two per byte (emit/packed_4bit.h): declared
  // INT4/UINT4 with the source's dims (row 0, no offset), or uint8 with `dims` (MatMulNBits).
  struct Packed4Bit {
    bool is_signed = true;            // int4 in int8, else uint4 in uint8
    bool offset_to_unsigned = false;  // v + 8
    int64_t row = 0;                  // elements per row, rows padded to whole bytes; 0: one row
    std::vector<int64_t> dims;        // of the uint8 tensor; empty: INT4/UINT4 with source's dims
  };

  using How = std::variant<Scaled, Permuted, Packed4Bit>;

  std::string name;  // the initializer it fills, declared in the graph (type and dims, no data)
  // The initializer it is derived from, with that weight's key in the archive; an empty fqn: a
  // weight derived before this one (source.initializer names it).
  WeightBinding source;
  How how;
};

}  // namespace pt2onnx::model
