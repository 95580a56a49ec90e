// The windowed permuted copy (issue 31): every permutation of ranks 1-4, element sizes 1-16 and
// window and chunk sizes from one element to the whole tensor give the row-major bytes a naive
// gather gives; the source is read once in order; the copier checksums a permuted whole entry and refuses a
// damaged one; and views that are not dense permutations are told apart.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>
#include <thread>

#include "archive/zip_crc.h"
#include "emit/fake_archive.h"
#include "emit/permuted_copy.h"
#include "emit/tensor_copier.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {
namespace {

using testing::FileStorage;
using testing::make_tensor;
using testing::MemoryStorage;
using testing::pattern_byte;
using testing::pattern_bytes;
using testing::read_file;
using testing::TempDir;

// The view of a row-major `sizes` source with its dims permuted: sizes[perm[i]], strides[perm[i]].
archive::TensorData permuted_view(ir::DType dtype, const std::vector<int64_t>& sizes, const std::vector<int64_t>& perm,
                                  std::shared_ptr<const archive::Storage> storage) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * sizes[d];
  std::vector<int64_t> view_sizes, view_strides;
  for (int64_t p : perm) {
    view_sizes.push_back(sizes[static_cast<size_t>(p)]);
    view_strides.push_back(strides[static_cast<size_t>(p)]);
  }
  return make_tensor(dtype, view_sizes, std::move(storage), view_strides);
}

// Row-major bytes of the view, one element at a time.
std::vector<uint8_t> naive_gather(const std::vector<uint8_t>& source, const TensorLayout& layout) {
  std::vector<uint8_t> out;
  std::vector<int64_t> index(layout.sizes.size(), 0);
  for (uint64_t e = 0; e < layout.numel; ++e) {
    int64_t element = layout.storage_offset;
    for (size_t d = 0; d < index.size(); ++d) element += index[d] * layout.strides[d];
    const auto* at = source.data() + element * layout.element_size;
    out.insert(out.end(), at, at + layout.element_size);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < layout.sizes[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

struct Copied {
  std::vector<uint8_t> bytes;
  bool read_in_order = true;
  uint64_t largest_read = 0;
  bool written_twice = false;
  bool written_outside = false;
  bool written_elsewhere = false;  // some write came from a thread other than the caller's
};

Copied run_copy(const std::vector<uint8_t>& source, const TensorLayout& layout, const PermuteSizes& sizes,
                bool write_behind = true) {
  Copied copied;
  copied.bytes.assign(layout.nbytes, 0xCD);
  std::vector<bool> written(layout.nbytes, false);
  uint64_t next = 0;
  PermuteBuffers buffers;
  bool wrote_in_order = true;  // no two write calls at once (they come from a second thread)
  std::atomic<int> writers{0};
  const std::thread::id caller = std::this_thread::get_id();
  copy_permuted(
      layout, sizes,
      [&](uint64_t offset, uint64_t n) -> const uint8_t* {
        copied.read_in_order = copied.read_in_order && offset == next;
        next = offset + n;
        copied.largest_read = std::max(copied.largest_read, n);
        return source.data() + layout.span_begin + offset;
      },
      [&](uint64_t offset, const uint8_t* data, uint64_t n) {
        if (writers.fetch_add(1) != 0) wrote_in_order = false;
        if (std::this_thread::get_id() != caller) copied.written_elsewhere = true;
        if (offset + n <= layout.nbytes) {
          for (uint64_t i = 0; i < n; ++i) {
            if (written[offset + i]) copied.written_twice = true;  // each output byte once
            written[offset + i] = true;
          }
          std::memcpy(copied.bytes.data() + offset, data, n);
        } else {
          copied.written_outside = true;
        }
        writers.fetch_sub(1);
      },
      buffers, write_behind);
  CHECK(wrote_in_order);
  CHECK_FALSE(copied.written_twice);
  CHECK_FALSE(copied.written_outside);
  CHECK(next == layout.nbytes);  // the whole source, once
  CHECK(std::all_of(written.begin(), written.end(), [](bool w) { return w; }));
  return copied;
}

TEST_CASE("permuted copy: every permutation, element size, window and chunk size matches a naive gather") {
  // {130, 67} and {2, 70, 129}: planes over one 64-element tile, with ragged register blocks.
  const std::vector<std::vector<int64_t>> shapes = {{7},          {5, 9},        {3, 1, 4},   {4, 6, 5},
                                                    {2, 3, 5, 7}, {1, 33, 1, 65}, {130, 67}, {2, 70, 129}};
  const std::vector<ir::DType> dtypes = {ir::DType::kUInt8, ir::DType::kFloat16, ir::DType::kFloat32,
                                         ir::DType::kFloat64, ir::DType::kComplex128};
  for (const std::vector<int64_t>& shape : shapes) {
    for (const ir::DType dtype : dtypes) {
      const int64_t numel = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
      const std::vector<uint8_t> source = pattern_bytes(static_cast<uint64_t>(numel * ir::dtype_size(dtype)));
      auto storage = std::make_shared<MemoryStorage>(source, "w");
      std::vector<int64_t> perm(shape.size());
      std::iota(perm.begin(), perm.end(), int64_t{0});
      do {
        const archive::TensorData view = permuted_view(dtype, shape, perm, storage);
        const TensorLayout layout = make_layout(view, "w");
        const std::vector<uint8_t> expected = naive_gather(source, layout);
        const bool dense = is_dense_permutation(layout);
        CHECK((dense || layout.contiguous));
        if (!dense) continue;  // contiguous with no dim above size 1 moved: a plain copy
        for (const PermuteSizes sizes : {PermuteSizes{1, 1}, PermuteSizes{40, 16}, PermuteSizes{1000, 1000},
                                         PermuteSizes{1000, 300}, PermuteSizes{1 << 20, 1 << 18}}) {
          CAPTURE(format_dims(shape));
          CAPTURE(format_dims(perm));
          CAPTURE(ir::dtype_name(dtype));
          CAPTURE(sizes.window_bytes);
          CAPTURE(sizes.chunk_bytes);
          const Copied copied = run_copy(source, layout, sizes);
          CHECK(copied.read_in_order);
          CHECK(copied.largest_read <= std::max<uint64_t>(sizes.window_bytes, static_cast<uint64_t>(layout.element_size)));
          CHECK(copied.bytes == expected);
        }
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
}

TEST_CASE("permuted copy: chunks written on a second thread while the next is permuted match a naive gather") {
  // 3 MiB of fp16 and of fp32 in one window and 1 MiB chunks (512 output rows of 2 KiB): every
  // chunk but the last is written by the writer thread.
  for (const ir::DType dtype : {ir::DType::kFloat16, ir::DType::kFloat32}) {
    const std::vector<int64_t> shape = dtype == ir::DType::kFloat16 ? std::vector<int64_t>{1024, 1536}
                                                                     : std::vector<int64_t>{512, 1536};
    const std::vector<uint8_t> source = pattern_bytes(uint64_t{3} << 20);
    auto storage = std::make_shared<MemoryStorage>(source, "w");
    const archive::TensorData view = permuted_view(dtype, shape, {1, 0}, storage);
    const TensorLayout layout = make_layout(view, "w");
    CAPTURE(ir::dtype_name(dtype));
    const Copied copied = run_copy(source, layout, PermuteSizes{uint64_t{3} << 20, kMinOverlapBytes});
    CHECK(copied.read_in_order);
    CHECK(copied.bytes == naive_gather(source, layout));
  }
}

TEST_CASE("permuted copy: an LLM-shaped transpose writes whole chunks, or runs of tens of kilobytes") {
  auto storage = std::make_shared<testing::PatternStorage>(uint64_t{128256} * 4096 * 4);
  // A Linear weight [out=2048, in=8192] (an MLP's down projection) read as [in, out]: 64 MiB, one
  // window, written in contiguous 16 MiB chunks.
  const archive::TensorData view = permuted_view(ir::DType::kFloat32, {2048, 8192}, {1, 0}, storage);
  CHECK(permuted_run_bytes(make_layout(view, "w")) == uint64_t{16} << 20);
  // The output projection of the 1.7 GB Llama of scripts/bench_models.py: a window is 8192 source
  // rows, so each output row is written in runs of 8192 floats.
  const archive::TensorData llama = permuted_view(ir::DType::kFloat32, {32000, 2048}, {1, 0}, storage);
  CHECK(permuted_run_bytes(make_layout(llama, "lm_head")) == 8192 * 4);
  // A vocabulary-wide output projection of an 8B model: 4096 rows per window, 16 KiB runs.
  const archive::TensorData lm_head = permuted_view(ir::DType::kFloat32, {128256, 4096}, {1, 0}, storage);
  CHECK(permuted_run_bytes(make_layout(lm_head, "lm_head")) == 4096 * 4);
  // One chunk holds all of a small weight: one run.
  const archive::TensorData small = permuted_view(ir::DType::kFloat32, {30, 20}, {1, 0}, storage);
  CHECK(permuted_run_bytes(make_layout(small, "small")) == 30 * 20 * 4);
}

TEST_CASE("permuted copy: views that are not a dense permutation are told apart") {
  auto storage = std::make_shared<MemoryStorage>(pattern_bytes(4 * 64), "w");
  // Every other column: gaps in the span.
  CHECK_FALSE(is_dense_permutation(make_layout(make_tensor(ir::DType::kFloat32, {4, 4}, storage, {8, 2}), "w")));
  // Overlapping (a broadcast row).
  CHECK_FALSE(is_dense_permutation(make_layout(make_tensor(ir::DType::kFloat32, {4, 4}, storage, {0, 1}), "w")));
  // A transposed slice with an offset is dense over its own span.
  CHECK(is_dense_permutation(make_layout(make_tensor(ir::DType::kFloat32, {4, 3}, storage, {1, 4}, 5), "w")));
}

TEST_CASE("copier: a permuted whole entry is checksummed as it is read, and a damaged one refused") {
  const int64_t rows = 300, cols = 70;  // float32 [300, 70] read as [70, 300]
  std::vector<uint8_t> bytes = pattern_bytes(static_cast<uint64_t>(rows * cols * 4));
  const uint32_t crc = archive::crc32_update(0, bytes.data(), bytes.size());
  for (const bool damaged : {false, true}) {
    CAPTURE(damaged);
    TempDir dir;
    std::vector<uint8_t> file(13, 0xEE);
    file.insert(file.end(), bytes.begin(), bytes.end());
    if (damaged) file[13 + 5000] ^= 1;
    {
      std::ofstream out(dir / "model.pt2", std::ios::binary);
      out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    }
    auto storage = std::make_shared<FileStorage>(dir / "model.pt2", 13, bytes.size(), "model/data/weights/w0");
    storage->record_crc(crc);
    const archive::TensorData view = permuted_view(ir::DType::kFloat32, {rows, cols}, {1, 0}, storage);
    const TensorLayout layout = make_layout(view, "w0");
    const int fd = ::open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    std::string message;
    try {
      TensorCopier copier(dir / "model.pt2");
      copier.copy(view, layout, fd, 100, dir / "out");
    } catch (const Error& e) {
      message = e.what();
    }
    ::close(fd);
    if (damaged) {
      CHECK(message.find("model/data/weights/w0: CRC-32 mismatch") != std::string::npos);
      continue;
    }
    CHECK(message.empty());
    CHECK(storage->entry_crc()->done());
    const std::string out = read_file(dir / "out");
    const std::vector<uint8_t> expected = naive_gather(bytes, layout);
    REQUIRE(out.size() == 100 + expected.size());
    CHECK(out.substr(100) == std::string(expected.begin(), expected.end()));
  }
}


TEST_CASE("permuted copy: without write-behind every chunk is written on the calling thread") {
  // 2048 x 1024 float32 transposed: 8 MiB in chunks of 1 MiB, each large enough to go to a writer
  // thread when write-behind is on.
  const std::vector<int64_t> shape = {2048, 1024};
  const std::vector<uint8_t> source = pattern_bytes(2048 * 1024 * 4);
  auto storage = std::make_shared<MemoryStorage>(source, "w");
  const archive::TensorData view = permuted_view(ir::DType::kFloat32, shape, {1, 0}, storage);
  const TensorLayout layout = make_layout(view, "w");
  REQUIRE(is_dense_permutation(layout));
  const std::vector<uint8_t> expected = naive_gather(source, layout);
  const PermuteSizes sizes{uint64_t{4} << 20, kMinOverlapBytes};
  const Copied inline_copy = run_copy(source, layout, sizes, /*write_behind=*/false);
  CHECK(inline_copy.bytes == expected);
  CHECK_FALSE(inline_copy.written_elsewhere);
  const Copied behind_copy = run_copy(source, layout, sizes, /*write_behind=*/true);
  CHECK(behind_copy.bytes == expected);
  CHECK(behind_copy.written_elsewhere);
}

}  // namespace
}  // namespace pt2onnx::emit
