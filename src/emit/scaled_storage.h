// A Conv/Gemm weight with a folded BatchNorm's factor applied per output channel
// (clean/fold_batch_norm.cpp), a weight norm's v with g / ||v|| applied per channel
// (clean/fold_weight_norms.cpp), or a weight shifted by a folded Add (clean/fold_weight_shifts.cpp):
// a Storage whose bytes are computed from an archive weight's on
// each read. Emit copies a whole one in tiles from a mapping of the archive
// (emit/scaled_copy.h); read() serves every other reader with the same arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "archive/archive.h"

namespace pt2onnx::emit {

class ScaledStorage final : public archive::Storage {
 public:
  // float32 element i of the contiguous `source` times factors[(i / inner) % factors.size()],
  // plus offset (none added when 0).
  ScaledStorage(archive::TensorData source, std::vector<double> factors, int64_t inner, double offset = 0);

  uint64_t size() const override { return static_cast<uint64_t>(source_.numel()) * sizeof(float); }
  void read(uint64_t offset, uint64_t n, void* dst) const override;
  std::optional<uint64_t> file_offset() const override { return std::nullopt; }  // computed, not copied
  std::string why_not_in_file() const override {
    return "it is computed from an archive weight (a folded BatchNorm, weight norm or Add)";
  }
  std::string entry_name() const override;

  // The archive tensor the elements are computed from.
  const archive::TensorData& source() const { return source_; }
  // Writes elements [first, first + count) into dst from their source values at src (the
  // source's elements [first, first + count), at any alignment); src and dst may be the same.
  void scale(const void* src, float* dst, uint64_t first, uint64_t count) const;

 private:
  archive::TensorData source_;
  std::vector<double> factors_;
  uint64_t inner_;
  double offset_;
};

}  // namespace pt2onnx::emit
