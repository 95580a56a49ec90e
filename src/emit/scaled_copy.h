// A folded BatchNorm's weight (emit/scaled_storage.h) written front to back in cache-sized
// tiles: each tile of source elements is handed to a checksum, scaled into one of two buffers
// and written on a second thread (emit/write_behind.h) while the next tile is scaled. The source
// is read once, through the caller's view of it (a mapping of the archive), and memory is two
// tiles whatever the weight's size.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "emit/scaled_storage.h"

namespace pt2onnx::emit {

// Bytes scaled per tile: a source tile and its buffer stay in the core's L2 cache between the
// checksum and the scaling, and the writes come in 128 KiB spans (kWriteSpanBytes).
inline constexpr uint64_t kScaledTileBytes = uint64_t{512} << 10;
// Weights up to this size are written on the calling thread (a thread costs more than it saves).
inline constexpr uint64_t kMinScaledOverlapBytes = uint64_t{1} << 20;

// Returns the source's n bytes at byte `offset` from the first element copied; the pointer stays
// valid until the next call. Called with offsets increasing from 0, each byte once, so the
// caller can checksum what it hands out.
using ScaledSource = std::function<const uint8_t*(uint64_t offset, uint64_t n)>;
// Receives n bytes of the result at byte `offset` from the first element copied.
using ScaledSink = std::function<void(uint64_t offset, const uint8_t* data, uint64_t n)>;

// The two tiles copy_scaled alternates between, kept by the caller so that a run of weights
// reuses them.
struct ScaledBuffers {
  std::vector<float> tiles[2];
};

// Writes elements [first, first + count) of `storage` through `write`, their source values read
// once through `read`. With `write_behind`, a weight over kMinScaledOverlapBytes is written on a
// second thread. `tile_bytes` is a multiple of sizeof(float).
void copy_scaled(const ScaledStorage& storage, uint64_t first, uint64_t count, const ScaledSource& read,
                 const ScaledSink& write, ScaledBuffers& buffers, bool write_behind = true,
                 uint64_t tile_bytes = kScaledTileBytes);

}  // namespace pt2onnx::emit
