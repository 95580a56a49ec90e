// A dense tensor with its dims permuted (a weight folded through a Transpose), written front to
// back in chunks that are contiguous in the output: each chunk is gathered in memory from the
// source blocks it needs (cache-sized tiles of each) and written in one call, on a second thread
// while the next chunk is gathered. Memory is three blocks (a source window and two chunks)
// whatever the tensor's size. A chunk needs a slice of every source block when an output row is
// long, so the source may be read more than once (a dozen times for a vocabulary-wide output
// projection), but what the kernel writes is whole chunks: scattered runs of a few kilobytes cost
// it several times as much per byte (partial pages, one call per run).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "emit/tensor_layout.h"

namespace pt2onnx::emit {

// Source bytes read per window, and output bytes permuted per chunk.
struct PermuteSizes {
  uint64_t window_bytes = uint64_t{64} << 20;
  uint64_t chunk_bytes = uint64_t{16} << 20;
};
// Chunks smaller than this are written on the calling thread (a thread costs more than it saves).
inline constexpr uint64_t kMinOverlapBytes = uint64_t{1} << 20;
// Runs shorter than this would cost more in syscalls than in bytes: such a permutation is not
// derived (the Transpose stays in the graph).
inline constexpr uint64_t kMinPermutedRunBytes = 512;

// Whether the (non-contiguous) view is the bytes [span_begin, span_end) of its storage, packed
// with no gaps, in some order of its dims: what a Transpose of a contiguous weight looks like.
bool is_dense_permutation(const TensorLayout& layout);

// The length in bytes of the output runs copy_permuted writes for this view (each run is
// contiguous in the output). 0 when it is not a dense permutation.
uint64_t permuted_run_bytes(const TensorLayout& layout, const PermuteSizes& sizes = PermuteSizes{});

// Returns the n bytes of the source at byte `offset` from span_begin; the pointer stays valid
// until the next call. Called with offsets increasing from 0 to span_end - span_begin, each byte
// once, so a caller can hand out a mapping of the archive instead of reading into a buffer.
using ReadSource = std::function<const uint8_t*(uint64_t offset, uint64_t n)>;
// Receives n bytes that belong at byte `offset` of the tensor's row-major bytes, one call at a
// time; for chunks of kMinOverlapBytes and more from a second thread while the next is permuted
// (unless copy_permuted is told otherwise).
using WriteRun = std::function<void(uint64_t offset, const uint8_t* data, uint64_t n)>;

// The two chunks copy_permuted alternates between (one written while the other fills), kept by
// the caller so that a run of tensors reuses them.
struct PermuteBuffers {
  std::vector<uint8_t> blocks[2];
};

// Writes the view's row-major bytes through `write`, reading the source once through `read`.
// `layout` must satisfy is_dense_permutation. Without `write_behind` every chunk is written on
// the calling thread.
void copy_permuted(const TensorLayout& layout, const PermuteSizes& sizes, const ReadSource& read,
                   const WriteRun& write, PermuteBuffers& buffers, bool write_behind = true);

// Copies a box of `sizes` elements from `src` to `dst`, each side with its own strides (in
// elements of `element_size` bytes), in tiles that keep both sides in cache.
void permute_box(const uint8_t* src, uint8_t* dst, const std::vector<int64_t>& sizes,
                 const std::vector<int64_t>& src_strides, const std::vector<int64_t>& dst_strides,
                 int64_t element_size);

}  // namespace pt2onnx::emit
