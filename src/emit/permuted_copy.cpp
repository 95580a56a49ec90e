// The blocked permuted copy and the tiled in-memory permutation it runs on each block.
#include "emit/permuted_copy.h"

#include <algorithm>
#include <cstring>
#include <future>
#include <numeric>

#include "common/error.h"
#include "emit/transpose_plane.h"

namespace pt2onnx::emit {

namespace {

struct Dims {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;      // the source's
  std::vector<int64_t> dst_strides;  // the destination's (permute_box only)
};

// Drops dims of size 1 (they move nothing) and merges neighbours that are contiguous in both the
// destination and the source, so that a plain transpose is rank 2 whatever the tensor's rank.
Dims simplify(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
              const std::vector<int64_t>& dst_strides) {
  Dims out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    if (!out.sizes.empty() && out.strides.back() == strides[i] * sizes[i] &&
        out.dst_strides.back() == dst_strides[i] * sizes[i]) {
      out.sizes.back() *= sizes[i];
      out.strides.back() = strides[i];
      out.dst_strides.back() = dst_strides[i];
      continue;
    }
    out.sizes.push_back(sizes[i]);
    out.strides.push_back(strides[i]);
    out.dst_strides.push_back(dst_strides[i]);
  }
  return out;
}

// Row-major strides of `sizes`.
std::vector<int64_t> dense_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> out(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) out[d - 1] = out[d] * sizes[d];
  return out;
}

// Calls visit(src_offset, dst_offset) for every index of the dims other than `skip_a` and
// `skip_b`, in row-major order; offsets are in elements.
template <typename Visit>
void for_each_outer(const std::vector<int64_t>& sizes, const std::vector<int64_t>& src_strides,
                    const std::vector<int64_t>& dst_strides, size_t skip_a, size_t skip_b, Visit&& visit) {
  std::vector<size_t> dims;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (d != skip_a && d != skip_b) dims.push_back(d);
  std::vector<int64_t> index(dims.size(), 0);
  int64_t src = 0, dst = 0;
  while (true) {
    visit(src, dst);
    size_t k = dims.size();
    while (k > 0) {
      const size_t d = dims[k - 1];
      src += src_strides[d];
      dst += dst_strides[d];
      if (++index[k - 1] < sizes[d]) break;
      src -= src_strides[d] * sizes[d];
      dst -= dst_strides[d] * sizes[d];
      index[k - 1] = 0;
      --k;
    }
    if (k == 0) return;
  }
}

// The view's dims with size-1 ones dropped and strides checked dense; empty sizes for a scalar.
bool dense_dims(const TensorLayout& layout, Dims& dims) {
  dims = Dims{};
  for (size_t i = 0; i < layout.sizes.size(); ++i) {
    if (layout.sizes[i] == 1) continue;
    dims.sizes.push_back(layout.sizes[i]);
    dims.strides.push_back(layout.strides[i]);
  }
  std::vector<size_t> order(dims.sizes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return dims.strides[a] > dims.strides[b]; });
  int64_t expected = 1;
  for (size_t k = order.size(); k-- > 0;) {
    if (dims.strides[order[k]] != expected) return false;
    expected *= dims.sizes[order[k]];
  }
  return true;
}

// How a dense tensor is cut into pieces that are contiguous in one order of its dims (the
// source's or the output's): the outer dims of that order fixed, `dim` taken `width` indices at a
// time, the dims inside it whole.
struct Blocking {
  std::vector<size_t> fixed;  // dims, outermost in the order first
  size_t dim = 0;
  int64_t width = 1;
};

// `strides` gives the order (the largest outermost); a piece is at most `block_bytes` unless one
// element of the innermost dim is larger.
Blocking choose_blocking(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t element_size,
                         uint64_t block_bytes) {
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  // Ties come from dims of size 1; the earlier one is the outer one.
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return strides[a] > strides[b] || (strides[a] == strides[b] && a < b); });
  Blocking blocking;
  for (size_t k = 0; k < order.size(); ++k) {
    const uint64_t slice = static_cast<uint64_t>(strides[order[k]]) * static_cast<uint64_t>(element_size);
    if (slice <= block_bytes || k + 1 == order.size()) {
      blocking.dim = order[k];
      blocking.width = std::clamp<int64_t>(static_cast<int64_t>(block_bytes / slice), 1, sizes[order[k]]);
      return blocking;
    }
    blocking.fixed.push_back(order[k]);
  }
  return blocking;
}

// One piece: a box of the tensor's index space, contiguous in the order it was cut in.
struct Piece {
  std::vector<int64_t> start;
  std::vector<int64_t> size;
  uint64_t offset = 0;  // bytes, in that order
  uint64_t bytes = 0;
};

// The pieces of `blocking` over a box of `sizes`, in the order's front-to-back sequence; starts
// and offsets are the box's own.
std::vector<Piece> cut(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t element_size,
                       const Blocking& blocking) {
  std::vector<Piece> pieces;
  std::vector<int64_t> fixed_index(blocking.fixed.size(), 0);
  while (true) {
    for (int64_t j0 = 0; j0 < sizes[blocking.dim]; j0 += blocking.width) {
      Piece piece;
      piece.start.assign(sizes.size(), 0);
      piece.size = sizes;
      for (size_t k = 0; k < blocking.fixed.size(); ++k) {
        piece.start[blocking.fixed[k]] = fixed_index[k];
        piece.size[blocking.fixed[k]] = 1;
      }
      piece.start[blocking.dim] = j0;
      piece.size[blocking.dim] = std::min(blocking.width, sizes[blocking.dim] - j0);
      int64_t at = 0, count = 1;
      for (size_t d = 0; d < sizes.size(); ++d) {
        at += piece.start[d] * strides[d];
        count *= piece.size[d];
      }
      piece.offset = static_cast<uint64_t>(at * element_size);
      piece.bytes = static_cast<uint64_t>(count * element_size);
      pieces.push_back(std::move(piece));
    }
    size_t k = fixed_index.size();
    while (k > 0) {
      if (++fixed_index[k - 1] < sizes[blocking.fixed[k - 1]]) break;
      fixed_index[k - 1] = 0;
      --k;
    }
    if (k == 0) return pieces;
  }
}

// A typical piece's sizes: the first one.
std::vector<int64_t> first_piece(std::vector<int64_t> sizes, const Blocking& blocking) {
  for (size_t d : blocking.fixed) sizes[d] = 1;
  sizes[blocking.dim] = std::min(sizes[blocking.dim], blocking.width);
  return sizes;
}

// Elements per output run of a box (dims `box`, of a tensor of dims `sizes`): the output is
// contiguous over the trailing dims the box holds whole and one partial dim before them.
int64_t run_elements(const std::vector<int64_t>& sizes, const std::vector<int64_t>& box, size_t* split = nullptr) {
  size_t d = sizes.size();
  int64_t run = 1;
  while (d > 0) {
    --d;
    run *= box[d];
    if (box[d] != sizes[d]) break;
  }
  if (split) *split = d;
  return run;
}

}  // namespace

bool is_dense_permutation(const TensorLayout& layout) {
  if (layout.element_size <= 0 || layout.numel == 0) return false;
  Dims dims;
  return dense_dims(layout, dims) && layout.span_end - layout.span_begin == layout.nbytes;
}

uint64_t permuted_run_bytes(const TensorLayout& layout, const PermuteSizes& sizes) {
  Dims dims;
  if (!is_dense_permutation(layout) || !dense_dims(layout, dims)) return 0;
  if (dims.sizes.empty()) return layout.nbytes;
  const int64_t esize = layout.element_size;
  const std::vector<int64_t> window =
      first_piece(dims.sizes, choose_blocking(dims.sizes, dims.strides, esize, sizes.window_bytes));
  const std::vector<int64_t> chunk =
      first_piece(window, choose_blocking(window, dense_strides(window), esize, sizes.chunk_bytes));
  return static_cast<uint64_t>(run_elements(dims.sizes, chunk) * esize);
}

void permute_box(const uint8_t* src, uint8_t* dst, const std::vector<int64_t>& sizes,
                 const std::vector<int64_t>& src_strides, const std::vector<int64_t>& dst_strides,
                 int64_t element_size) {
  for (int64_t size : sizes)
    if (size == 0) return;
  const Dims dims = simplify(sizes, src_strides, dst_strides);
  if (dims.sizes.empty()) {
    std::memcpy(dst, src, static_cast<size_t>(element_size));
    return;
  }
  // The plane of the dim contiguous in the source (`inner`) and the one contiguous in the
  // destination (`last`); every other dim is a loop around it.
  auto smallest = [](const std::vector<int64_t>& v) {
    return static_cast<size_t>(std::min_element(v.begin(), v.end()) - v.begin());
  };
  const size_t inner = smallest(dims.strides), last = smallest(dims.dst_strides);
  const bool src_unit = dims.strides[inner] == 1, dst_unit = dims.dst_strides[last] == 1;
  if (src_unit && dst_unit && inner == last) {  // rows are contiguous on both sides
    const auto row = static_cast<size_t>(dims.sizes[last] * element_size);
    for_each_outer(dims.sizes, dims.strides, dims.dst_strides, last, last, [&](int64_t s, int64_t d) {
      std::memcpy(dst + d * element_size, src + s * element_size, row);
    });
    return;
  }
  if (src_unit && dst_unit) {
    for_each_outer(dims.sizes, dims.strides, dims.dst_strides, inner, last, [&](int64_t s, int64_t d) {
      transpose_plane(src + s * element_size, dst + d * element_size, dims.sizes[inner], dims.sizes[last],
                      dims.strides[last], dims.dst_strides[inner], element_size);
    });
    return;
  }
  // A box one element wide in a contiguous dim: element by element.
  const auto size = static_cast<size_t>(element_size);
  for_each_outer(dims.sizes, dims.strides, dims.dst_strides, last, last, [&](int64_t s, int64_t d) {
    for (int64_t c = 0; c < dims.sizes[last]; ++c)
      std::memcpy(dst + (d + c * dims.dst_strides[last]) * element_size,
                  src + (s + c * dims.strides[last]) * element_size, size);
  });
}

void copy_permuted(const TensorLayout& layout, const PermuteSizes& sizes, const ReadSource& read,
                   const WriteRun& write, PermuteBuffers& buffers, bool write_behind) {
  Dims dims;
  if (!is_dense_permutation(layout) || !dense_dims(layout, dims))
    fail(ErrorCode::kInternal, "copy_permuted: the view is not a dense permutation of its storage");
  const int64_t esize = layout.element_size;
  if (dims.sizes.empty()) {  // one element
    write(0, read(0, static_cast<uint64_t>(esize)), static_cast<uint64_t>(esize));
    return;
  }
  const std::vector<int64_t> out_strides = dense_strides(dims.sizes);
  const std::vector<Piece> windows =
      cut(dims.sizes, dims.strides, esize, choose_blocking(dims.sizes, dims.strides, esize, sizes.window_bytes));

  // Chunk k is filled in buffers[k % 2] while chunk k - 1 is written from the other one.
  std::future<void> writing;
  size_t filling = 0;
  std::vector<int64_t> start(dims.sizes.size());
  for (size_t w = 0; w < windows.size(); ++w) {
    const Piece& window = windows[w];
    const uint8_t* source = read(window.offset, window.bytes);
    const std::vector<int64_t> window_strides = dense_strides(window.size);
    const std::vector<Piece> chunks =
        cut(window.size, window_strides, esize, choose_blocking(window.size, window_strides, esize, sizes.chunk_bytes));
    for (size_t k = 0; k < chunks.size(); ++k) {
      const Piece& chunk = chunks[k];
      int64_t at_source = 0;
      for (size_t d = 0; d < start.size(); ++d) {
        start[d] = window.start[d] + chunk.start[d];
        at_source += start[d] * dims.strides[d];
      }
      std::vector<uint8_t>& buffer = buffers.blocks[filling];
      if (buffer.size() < chunk.bytes) buffer.resize(chunk.bytes);
      permute_box(source + (static_cast<uint64_t>(at_source * esize) - window.offset), buffer.data(), chunk.size,
                  dims.strides, dense_strides(chunk.size), esize);

      // Each index of the dims before `split` is one run of the output.
      size_t split = 0;
      const int64_t run = run_elements(dims.sizes, chunk.size, &split);
      const auto runs = static_cast<size_t>(static_cast<int64_t>(chunk.bytes) / esize / run);
      std::vector<uint64_t> run_offsets(runs);
      std::vector<int64_t> index(split, 0);
      for (size_t r = 0; r < runs; ++r) {
        int64_t at = start[split] * out_strides[split];
        for (size_t d = 0; d < split; ++d) at += (start[d] + index[d]) * out_strides[d];
        run_offsets[r] = static_cast<uint64_t>(at * esize);
        for (size_t d = split; d-- > 0;) {
          if (++index[d] < chunk.size[d]) break;
          index[d] = 0;
        }
      }
      const auto run_bytes = static_cast<uint64_t>(run * esize);
      auto write_chunk = [&write, data = buffer.data(), run_bytes, offsets = std::move(run_offsets)] {
        for (size_t r = 0; r < offsets.size(); ++r) write(offsets[r], data + r * run_bytes, run_bytes);
      };
      if (writing.valid()) writing.get();  // the previous chunk is out (or its error is thrown)
      // The last chunk has nothing left to overlap with, and a small one costs less than a thread.
      if (!write_behind || (w + 1 == windows.size() && k + 1 == chunks.size()) || chunk.bytes < kMinOverlapBytes) {
        write_chunk();
        continue;
      }
      writing = std::async(std::launch::async, std::move(write_chunk));
      filling = 1 - filling;
    }
  }
}

}  // namespace pt2onnx::emit
