// Tiled plane transposes: a tile's rows stay in L1 while its columns are gathered, and 4x4
// (4-byte) or 8x8 (2-byte) blocks of it move through registers.
#include "emit/transpose_plane.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pt2onnx::emit {

namespace {

// Elements per side of a tile: 64x64 of 4-byte elements is 16 KiB a side, both sides in L1.
constexpr int64_t kTile = 64;

template <int64_t kSize>
struct Element {
  uint8_t bytes[kSize];
};

// The scalar transpose of rows [r0, r1) x cols [c0, c1).
template <typename T>
void transpose_scalar(const T* src, T* dst, int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t src_col,
                      int64_t dst_row) {
  for (int64_t r = r0; r < r1; ++r) {
    T* out = dst + r * dst_row;
    const T* in = src + r;
    for (int64_t c = c0; c < c1; ++c) out[c] = in[c * src_col];
  }
}

#if defined(__SSE2__)
// Register block sides: 4 lanes of 4 bytes, 8 lanes of 2 bytes in one 16-byte register.
template <typename T>
constexpr int64_t kLanes = 16 / static_cast<int64_t>(sizeof(T));

__m128i load(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
void store(void* p, __m128i v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }

// One 4x4 block of 4-byte elements: rows c..c+3 of the source (4 lanes r..r+3 each) become rows
// r..r+3 of the output (lanes c..c+3). Integer shuffles only: the bits move as they are.
void block4(const Element<4>* src, Element<4>* dst, int64_t src_col, int64_t dst_row) {
  const __m128i a = load(src), b = load(src + src_col), c = load(src + 2 * src_col), d = load(src + 3 * src_col);
  const __m128i ab_lo = _mm_unpacklo_epi32(a, b), ab_hi = _mm_unpackhi_epi32(a, b);
  const __m128i cd_lo = _mm_unpacklo_epi32(c, d), cd_hi = _mm_unpackhi_epi32(c, d);
  store(dst, _mm_unpacklo_epi64(ab_lo, cd_lo));
  store(dst + dst_row, _mm_unpackhi_epi64(ab_lo, cd_lo));
  store(dst + 2 * dst_row, _mm_unpacklo_epi64(ab_hi, cd_hi));
  store(dst + 3 * dst_row, _mm_unpackhi_epi64(ab_hi, cd_hi));
}

// One 8x8 block of 2-byte elements, the same way in three rounds of interleaving.
void block8(const Element<2>* src, Element<2>* dst, int64_t src_col, int64_t dst_row) {
  __m128i v[8];
  for (int k = 0; k < 8; ++k) v[k] = load(src + k * src_col);
  __m128i t[8];
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = _mm_unpacklo_epi16(v[2 * k], v[2 * k + 1]);
    t[2 * k + 1] = _mm_unpackhi_epi16(v[2 * k], v[2 * k + 1]);
  }
  __m128i u[8];
  for (int k = 0; k < 2; ++k) {
    u[4 * k] = _mm_unpacklo_epi32(t[4 * k], t[4 * k + 2]);
    u[4 * k + 1] = _mm_unpackhi_epi32(t[4 * k], t[4 * k + 2]);
    u[4 * k + 2] = _mm_unpacklo_epi32(t[4 * k + 1], t[4 * k + 3]);
    u[4 * k + 3] = _mm_unpackhi_epi32(t[4 * k + 1], t[4 * k + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    store(dst + (2 * k) * dst_row, _mm_unpacklo_epi64(u[k], u[k + 4]));
    store(dst + (2 * k + 1) * dst_row, _mm_unpackhi_epi64(u[k], u[k + 4]));
  }
}

void register_block(const Element<4>* src, Element<4>* dst, int64_t src_col, int64_t dst_row) {
  block4(src, dst, src_col, dst_row);
}
void register_block(const Element<2>* src, Element<2>* dst, int64_t src_col, int64_t dst_row) {
  block8(src, dst, src_col, dst_row);
}

// A tile in register blocks, its ragged right and bottom edges element by element.
template <typename T>
void transpose_tile_simd(const T* src, T* dst, int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t src_col,
                         int64_t dst_row) {
  constexpr int64_t n = kLanes<T>;
  const int64_t r_end = r0 + (r1 - r0) / n * n, c_end = c0 + (c1 - c0) / n * n;
  for (int64_t r = r0; r < r_end; r += n)
    for (int64_t c = c0; c < c_end; c += n) register_block(src + r + c * src_col, dst + r * dst_row + c, src_col, dst_row);
  transpose_scalar(src, dst, r0, r_end, c_end, c1, src_col, dst_row);
  transpose_scalar(src, dst, r_end, r1, c0, c1, src_col, dst_row);
}
#endif

template <typename T>
void transpose_tiled(const T* src, T* dst, int64_t rows, int64_t cols, int64_t src_col, int64_t dst_row) {
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
#if defined(__SSE2__)
      if constexpr (sizeof(T) == 2 || sizeof(T) == 4) {
        transpose_tile_simd(src, dst, r0, r1, c0, c1, src_col, dst_row);
        continue;
      }
#endif
      transpose_scalar(src, dst, r0, r1, c0, c1, src_col, dst_row);
    }
  }
}

template <int64_t kSize>
void transpose_as(const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols, int64_t src_col, int64_t dst_row) {
  transpose_tiled(reinterpret_cast<const Element<kSize>*>(src), reinterpret_cast<Element<kSize>*>(dst), rows, cols,
                  src_col, dst_row);
}

}  // namespace

void transpose_plane(const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols, int64_t src_col, int64_t dst_row,
                     int64_t element_size) {
  switch (element_size) {
    case 1: return transpose_tiled(src, dst, rows, cols, src_col, dst_row);
    case 2: return transpose_as<2>(src, dst, rows, cols, src_col, dst_row);
    case 4: return transpose_as<4>(src, dst, rows, cols, src_col, dst_row);
    case 8: return transpose_as<8>(src, dst, rows, cols, src_col, dst_row);
    case 16: return transpose_as<16>(src, dst, rows, cols, src_col, dst_row);
    default: break;
  }
  const auto size = static_cast<size_t>(element_size);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(dst + (r * dst_row + c) * element_size, src + (r + c * src_col) * element_size, size);
}

}  // namespace pt2onnx::emit
