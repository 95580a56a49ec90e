// What weight folding needs from whoever holds the weights (emit/folded_weights.h reads them
// from the archive): the values of small initializers, and new initializers derived from an
// existing one (scaled per channel for BatchNorm, dims permuted for a Transpose), computed later
// while they are streamed out (never held whole in memory).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pt2onnx::clean {

class WeightAccess {
 public:
  virtual ~WeightAccess() = default;
  // The float32 elements of an initializer (row-major), or nullopt when it is not float32, not
  // known, or not small enough to read here.
  virtual std::optional<std::vector<float>> read_floats(const std::string& initializer) = 0;
  // Declares that initializer `name` (already declared in the graph with the dims and type of
  // `source`) holds `source`'s elements, element i multiplied by factors[(i / inner) %
  // factors.size()]. False when `source` cannot be streamed that way (then nothing is declared).
  virtual bool add_scaled(const std::string& source, const std::string& name, std::vector<double> factors,
                          int64_t inner) = 0;
  // Declares that initializer `name` (already declared with `source`'s type and dims permuted:
  // dims[i] = source dims[perm[i]]) holds Transpose(source, perm). False when `source` is not an
  // archive tensor (then nothing is declared).
  virtual bool add_permuted(const std::string& source, const std::string& name, const std::vector<int64_t>& perm) = 0;
  // Declares that initializer `name` holds the elements of `source` (an int8/uint8 weight with
  // 4-bit values) packed two per byte as `how` says (emit/packed_4bit.h): declared INT4/UINT4 with
  // `source`'s dims (how.row 0, no offset), or uint8 with how.dims (MatMulNBits' layout). False
  // when `source` cannot be packed so (then nothing is declared).
  struct Packing {
    bool is_signed = true;            // int4 in int8, else uint4 in uint8
    bool offset_to_unsigned = false;  // v + 8
    int64_t row = 0;                  // elements per row, rows padded to whole bytes; 0: one row
    std::vector<int64_t> dims;        // of the uint8 tensor; empty: INT4/UINT4 with source's dims
  };
  virtual bool add_packed_4bit(const std::string& /*source*/, const std::string& /*name*/, const Packing& /*how*/) {
    return false;
  }
};

}  // namespace pt2onnx::clean
