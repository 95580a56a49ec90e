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
  std::vector<int64_t> strides;
};

// Drops dims of size 1 (they move nothing) and merges neighbours that are contiguous in both the
// output and the source, so that a plain transpose is rank 2 whatever the tensor's rank.
Dims simplify(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  Dims out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    if (!out.sizes.empty() && out.strides.back() == strides[i] * sizes[i]) {
      out.sizes.back() *= sizes[i];
      out.strides.back() = strides[i];
      continue;
    }
    out.sizes.push_back(sizes[i]);
    out.strides.push_back(strides[i]);
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

// How the source is cut into blocks: the outer source dims fixed, `dim` (an output dim) taken
// `width` indices at a time, the dims inside it whole.
struct Blocking {
  std::vector<size_t> fixed;  // output dims, outermost in the source first
  size_t dim = 0;
  int64_t width = 1;
};

Blocking choose_blocking(const Dims& dims, int64_t element_size, uint64_t block_bytes) {
  std::vector<size_t> order(dims.sizes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return dims.strides[a] > dims.strides[b]; });
  Blocking blocking;
  for (size_t k = 0; k < order.size(); ++k) {
    const uint64_t slice = static_cast<uint64_t>(dims.strides[order[k]]) * static_cast<uint64_t>(element_size);
    if (slice <= block_bytes || k + 1 == order.size()) {
      blocking.dim = order[k];
      blocking.width = std::clamp<int64_t>(static_cast<int64_t>(block_bytes / slice), 1, dims.sizes[order[k]]);
      return blocking;
    }
    blocking.fixed.push_back(order[k]);
  }
  return blocking;
}

// Elements per output run of a block of `width` along `dim`: the output is contiguous over the
// trailing dims that a block holds whole, and one partial dim before them.
int64_t run_elements(const Dims& dims, const Blocking& blocking) {
  int64_t run = 1;
  for (size_t d = dims.sizes.size(); d-- > 0;) {
    const bool fixed = std::find(blocking.fixed.begin(), blocking.fixed.end(), d) != blocking.fixed.end();
    if (fixed) return run;
    if (d == blocking.dim && blocking.width < dims.sizes[d]) return run * blocking.width;
    run *= dims.sizes[d];
  }
  return run;
}

}  // namespace

bool is_dense_permutation(const TensorLayout& layout) {
  if (layout.element_size <= 0 || layout.numel == 0) return false;
  Dims dims;
  return dense_dims(layout, dims) && layout.span_end - layout.span_begin == layout.nbytes;
}

uint64_t permuted_run_bytes(const TensorLayout& layout, uint64_t block_bytes) {
  Dims dims;
  if (!is_dense_permutation(layout) || !dense_dims(layout, dims)) return 0;
  if (dims.sizes.empty()) return layout.nbytes;
  const Blocking blocking = choose_blocking(dims, layout.element_size, block_bytes);
  // The last block along `dim` may be narrower; the typical run is what the cost is made of.
  return static_cast<uint64_t>(run_elements(dims, blocking)) * static_cast<uint64_t>(layout.element_size);
}

void permute_into(const uint8_t* src, uint8_t* dst, const std::vector<int64_t>& sizes,
                  const std::vector<int64_t>& strides, int64_t element_size) {
  for (int64_t size : sizes)
    if (size == 0) return;
  const Dims dims = simplify(sizes, strides);
  if (dims.sizes.empty()) {
    std::memcpy(dst, src, static_cast<size_t>(element_size));
    return;
  }
  const std::vector<int64_t> dst_strides = dense_strides(dims.sizes);
  const size_t last = dims.sizes.size() - 1;
  if (dims.strides[last] == 1) {  // rows are contiguous on both sides
    const auto row = static_cast<size_t>(dims.sizes[last] * element_size);
    for_each_outer(dims.sizes, dims.strides, dst_strides, last, last, [&](int64_t s, int64_t d) {
      std::memcpy(dst + d * element_size, src + s * element_size, row);
    });
    return;
  }
  // Tile the plane of the output's last dim and the dim that is contiguous in the source.
  const auto inner = static_cast<size_t>(
      std::min_element(dims.strides.begin(), dims.strides.end()) - dims.strides.begin());
  for_each_outer(dims.sizes, dims.strides, dst_strides, inner, last, [&](int64_t s, int64_t d) {
    if (dims.strides[inner] == 1) {
      transpose_plane(src + s * element_size, dst + d * element_size, dims.sizes[inner], dims.sizes[last],
                            dims.strides[last], dst_strides[inner], element_size);
      return;
    }
    // No dim is contiguous in the source (a strided source): element by element.
    for (int64_t r = 0; r < dims.sizes[inner]; ++r)
      for (int64_t c = 0; c < dims.sizes[last]; ++c)
        std::memcpy(dst + (d + r * dst_strides[inner] + c) * element_size,
                    src + (s + r * dims.strides[inner] + c * dims.strides[last]) * element_size,
                    static_cast<size_t>(element_size));
  });
}

void copy_permuted(const TensorLayout& layout, uint64_t block_bytes, const ReadSource& read, const WriteRun& write,
                   PermuteBuffers& buffers) {
  Dims dims;
  if (!is_dense_permutation(layout) || !dense_dims(layout, dims))
    fail(ErrorCode::kInternal, "copy_permuted: the view is not a dense permutation of its storage");
  const int64_t esize = layout.element_size;
  if (dims.sizes.empty()) {  // one element
    write(0, read(0, static_cast<uint64_t>(esize)), static_cast<uint64_t>(esize));
    return;
  }
  const Blocking blocking = choose_blocking(dims, esize, block_bytes);
  const std::vector<int64_t> out_strides = dense_strides(dims.sizes);
  const auto block_capacity = static_cast<size_t>(dims.strides[blocking.dim] * blocking.width * esize);
  for (std::vector<uint8_t>& block : buffers.blocks)
    if (block.size() < block_capacity) block.resize(block_capacity);

  // Block k is permuted into blocks[k % 2] while block k - 1 is written from the other one.
  std::future<void> writing;
  size_t filling = 0;
  std::vector<int64_t> fixed_index(blocking.fixed.size(), 0);
  uint64_t read_offset = 0;  // bytes of the source read so far: blocks come in source order
  while (true) {
    for (int64_t j0 = 0; j0 < dims.sizes[blocking.dim]; j0 += blocking.width) {
      const int64_t width = std::min(blocking.width, dims.sizes[blocking.dim] - j0);
      const auto bytes = static_cast<uint64_t>(dims.strides[blocking.dim] * width * esize);
      const uint8_t* source = read(read_offset, bytes);
      read_offset += bytes;

      // The block as a box of the output: fixed dims one index, `dim` `width` from j0.
      std::vector<int64_t> box = dims.sizes;
      std::vector<int64_t> start(dims.sizes.size(), 0);
      for (size_t k = 0; k < blocking.fixed.size(); ++k) {
        box[blocking.fixed[k]] = 1;
        start[blocking.fixed[k]] = fixed_index[k];
      }
      box[blocking.dim] = width;
      start[blocking.dim] = j0;
      uint8_t* permuted = buffers.blocks[filling].data();
      permute_into(source, permuted, box, dims.strides, esize);

      // The box is whole over its trailing dims up to the first partial one (`split`); each
      // index of the dims before that is one run of the output.
      size_t split = dims.sizes.size();
      int64_t run = 1;
      while (split > 0) {
        --split;
        run *= box[split];
        if (box[split] != dims.sizes[split]) break;
      }
      const int64_t runs = static_cast<int64_t>(bytes / static_cast<uint64_t>(esize)) / run;
      std::vector<uint64_t> run_offsets(static_cast<size_t>(runs));
      std::vector<int64_t> index(split, 0);
      for (int64_t r = 0; r < runs; ++r) {
        int64_t at = start[split] * out_strides[split];
        for (size_t d = 0; d < split; ++d) at += (start[d] + index[d]) * out_strides[d];
        run_offsets[static_cast<size_t>(r)] = static_cast<uint64_t>(at * esize);
        for (size_t d = split; d-- > 0;) {
          if (++index[d] < box[d]) break;
          index[d] = 0;
        }
      }
      const auto run_bytes = static_cast<uint64_t>(run * esize);
      auto write_block = [&write, permuted, run_bytes, offsets = std::move(run_offsets)] {
        for (size_t r = 0; r < offsets.size(); ++r) write(offsets[r], permuted + r * run_bytes, run_bytes);
      };
      // The last block has nothing left to overlap with, and a small one costs less than a thread.
      if (read_offset == layout.nbytes || bytes < kMinOverlapBytes) {
        if (writing.valid()) writing.get();
        write_block();
        if (read_offset == layout.nbytes) return;
        continue;
      }
      if (writing.valid()) writing.get();  // the previous block is out (or its error is thrown)
      writing = std::async(std::launch::async, std::move(write_block));
      filling = 1 - filling;
    }
    size_t k = fixed_index.size();
    while (k > 0) {
      if (++fixed_index[k - 1] < dims.sizes[blocking.fixed[k - 1]]) break;
      fixed_index[k - 1] = 0;
      --k;
    }
    if (k == 0) break;
  }
  fail(ErrorCode::kInternal, "copy_permuted: the blocks did not cover the source");
}

}  // namespace pt2onnx::emit
