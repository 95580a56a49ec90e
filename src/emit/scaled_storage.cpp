// The per-channel scaling of a folded BatchNorm, and reads of it at any offset and length.
#include "emit/scaled_storage.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace pt2onnx::emit {

ScaledStorage::ScaledStorage(archive::TensorData source, std::vector<double> factors, int64_t inner, double offset)
    : source_(std::move(source)), factors_(std::move(factors)), inner_(static_cast<uint64_t>(inner)), offset_(offset) {}

std::string ScaledStorage::entry_name() const {
  return source_.storage->entry_name() + (offset_ == 0 ? " (scaled per channel by folding)" : " (shifted by a folded Add)");
}

void ScaledStorage::scale(const void* src, float* dst, uint64_t first, uint64_t count) const {
  const auto* bytes = static_cast<const uint8_t*>(src);
  // Runs of `inner` elements share a factor; walk them without a division per element.
  const auto channels = static_cast<uint64_t>(factors_.size());
  uint64_t channel = (first / inner_) % channels;
  const uint64_t last = first + count;
  for (uint64_t e = first; e < last;) {
    const uint64_t run_end = std::min(last, (e / inner_ + 1) * inner_);
    const double factor = factors_[channel];
    for (uint64_t i = e - first; i < run_end - first; ++i) {
      float value;  // src may be unaligned: an archive entry starts anywhere
      std::memcpy(&value, bytes + i * sizeof(float), sizeof(float));
      const double scaled = static_cast<double>(value) * factor;
      dst[i] = static_cast<float>(offset_ == 0 ? scaled : scaled + offset_);
    }
    e = run_end;
    if (++channel == channels) channel = 0;
  }
}

void ScaledStorage::read(uint64_t offset, uint64_t n, void* dst) const {
  if (offset > size() || n > size() - offset)
    fail(ErrorCode::kArchive, "folded weight '" + source_.name + "': read past its end");
  if (n == 0) return;
  const uint64_t first = offset / sizeof(float);
  const uint64_t last = (offset + n + sizeof(float) - 1) / sizeof(float);  // exclusive
  const bool aligned = offset % sizeof(float) == 0 && n % sizeof(float) == 0;
  std::vector<float> scratch;
  float* values = static_cast<float*>(dst);
  if (!aligned) {
    scratch.resize(last - first);
    values = scratch.data();
  }
  const uint64_t base = static_cast<uint64_t>(source_.storage_offset) * sizeof(float);
  source_.storage->read(base + first * sizeof(float), (last - first) * sizeof(float), values);
  scale(values, values, first, last - first);
  if (!aligned) std::memcpy(dst, reinterpret_cast<const uint8_t*>(scratch.data()) + offset % sizeof(float), n);
}

}  // namespace pt2onnx::emit
