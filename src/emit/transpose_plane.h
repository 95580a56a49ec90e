// The inner loop of a permuted weight copy: one 2-D plane transposed in cache-sized tiles, with
// SSE2 register transposes for 2- and 4-byte elements (fp16/bf16, fp32/int32: the weights LLMs
// have), where a scalar loop moves one element per load and store.
#pragma once

#include <cstdint>

namespace pt2onnx::emit {

// dst[(r * dst_row + c)] = src[(r + c * src_col)] for r < rows, c < cols, in elements of
// `element_size` bytes (any size; 1, 2, 4, 8 and 16 have typed loops).
void transpose_plane(const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols, int64_t src_col, int64_t dst_row,
                     int64_t element_size);

}  // namespace pt2onnx::emit
