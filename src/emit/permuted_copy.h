// A dense tensor with its dims permuted (a weight folded through a Transpose), written from its
// source bytes read once, front to back, in blocks: each block is permuted in memory in
// cache-sized tiles and written as the runs it makes in the output, on a second thread while the
// next block is permuted. Memory is three blocks (the source window and two permuted) whatever
// the tensor's size, and every syscall moves at least a run (kilobytes for LLM shapes), where a
// strided gather reads one element per call.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "emit/tensor_layout.h"

namespace pt2onnx::emit {

// Source bytes read per block.
inline constexpr uint64_t kPermuteBlockBytes = uint64_t{16} << 20;
// Blocks smaller than this are written on the calling thread (a thread costs more than it saves).
inline constexpr uint64_t kMinOverlapBytes = uint64_t{1} << 20;
// Runs shorter than this would cost more in syscalls than in bytes: such a permutation is not
// derived (the Transpose stays in the graph).
inline constexpr uint64_t kMinPermutedRunBytes = 512;

// Whether the (non-contiguous) view is the bytes [span_begin, span_end) of its storage, packed
// with no gaps, in some order of its dims: what a Transpose of a contiguous weight looks like.
bool is_dense_permutation(const TensorLayout& layout);

// The length in bytes of the output runs copy_permuted writes for this view (each run is
// contiguous in the output), given blocks of `block_bytes`. 0 when it is not a dense permutation.
uint64_t permuted_run_bytes(const TensorLayout& layout, uint64_t block_bytes = kPermuteBlockBytes);

// Returns the n bytes of the source at byte `offset` from span_begin; the pointer stays valid
// until the next call. Called with offsets increasing from 0 to span_end - span_begin, each byte
// once, so a caller can hand out a mapping of the archive instead of reading into a buffer.
using ReadSource = std::function<const uint8_t*(uint64_t offset, uint64_t n)>;
// Receives n bytes that belong at byte `offset` of the tensor's row-major bytes, one call at a
// time; for blocks of kMinOverlapBytes and more from a second thread while the next is permuted.
using WriteRun = std::function<void(uint64_t offset, const uint8_t* data, uint64_t n)>;

// The two permuted blocks copy_permuted alternates between (one written while the other fills),
// kept by the caller so that a run of tensors reuses them.
struct PermuteBuffers {
  std::vector<uint8_t> blocks[2];
};

// Writes the view's row-major bytes through `write`, reading the source once through `read`.
// `layout` must satisfy is_dense_permutation.
void copy_permuted(const TensorLayout& layout, uint64_t block_bytes, const ReadSource& read, const WriteRun& write,
                   PermuteBuffers& buffers);

// Writes a strided view of `src` into `dst` in row-major order: dst[i0, i1, ...] =
// src[i0 * strides[0] + i1 * strides[1] + ...], `element_size` bytes each, in tiles that keep
// both sides in cache.
void permute_into(const uint8_t* src, uint8_t* dst, const std::vector<int64_t>& sizes,
                  const std::vector<int64_t>& strides, int64_t element_size);

}  // namespace pt2onnx::emit
