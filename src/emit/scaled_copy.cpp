// The tiled, write-behind copy of a per-channel scaled weight.
#include "emit/scaled_copy.h"

#include <algorithm>
#include <optional>

#include "common/error.h"
#include "emit/write_behind.h"

namespace pt2onnx::emit {

void copy_scaled(const ScaledStorage& storage, uint64_t first, uint64_t count, const ScaledSource& read,
                 const ScaledSink& write, ScaledBuffers& buffers, bool write_behind, uint64_t tile_bytes) {
  if (tile_bytes < sizeof(float) || tile_bytes % sizeof(float) != 0)
    fail(ErrorCode::kInternal, "copy_scaled: a tile must hold whole float32 elements");
  const uint64_t tile = tile_bytes / sizeof(float);  // elements
  const uint64_t bytes = count * sizeof(float);
  std::optional<WriteBehind> behind;
  if (write_behind && bytes > kMinScaledOverlapBytes) behind.emplace(write);
  size_t filling = 0;
  for (uint64_t done = 0; done < count;) {
    const uint64_t n = std::min(tile, count - done);
    std::vector<float>& buffer = buffers.tiles[filling];
    // Uninitialised growth would need a custom allocator; resizing once per run of weights costs
    // one zero-fill of two tiles.
    if (buffer.size() < n) buffer.resize(std::max<uint64_t>(n, std::min(tile, count)));
    float* values = buffer.data();
    storage.scale(read(done * sizeof(float), n * sizeof(float)), values, first + done, n);
    if (behind) {
      behind->submit(done * sizeof(float), reinterpret_cast<const uint8_t*>(values), n * sizeof(float));
      filling = 1 - filling;
    } else {
      write(done * sizeof(float), reinterpret_cast<const uint8_t*>(values), n * sizeof(float));
    }
    done += n;
  }
  if (behind) behind->finish();
}

}  // namespace pt2onnx::emit
