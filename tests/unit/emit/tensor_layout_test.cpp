// make_layout's checks and gather_tensor's row-major order for contiguous and strided views.
#include <doctest/doctest.h>

#include "emit/fake_archive.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {
namespace {

using testing::iota_bytes;
using testing::make_tensor;
using testing::MemoryStorage;
using testing::PatternStorage;

std::vector<uint8_t> gather_all(const TensorLayout& layout, const archive::Storage& storage, size_t chunk,
                                size_t* largest_piece = nullptr) {
  std::vector<uint8_t> out;
  gather_tensor(layout, storage, chunk, [&](const uint8_t* data, size_t n) {
    CHECK(n > 0);
    CHECK(n <= chunk);
    if (largest_piece) *largest_piece = std::max(*largest_piece, n);
    out.insert(out.end(), data, data + n);
  });
  return out;
}

// Row-major gather done the slow obvious way, for int32 elements of a 2-D or 3-D view.
std::vector<uint8_t> reference_gather(const std::vector<uint8_t>& storage, const std::vector<int64_t>& sizes,
                                      const std::vector<int64_t>& strides, int64_t offset, int64_t element_size) {
  std::vector<uint8_t> out;
  std::vector<int64_t> index(sizes.size(), 0);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  for (int64_t e = 0; e < numel; ++e) {
    int64_t element = offset;
    for (size_t d = 0; d < sizes.size(); ++d) element += index[d] * strides[d];
    for (int64_t b = 0; b < element_size; ++b) out.push_back(storage[element * element_size + b]);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

TEST_CASE("make_layout: contiguous tensor, with and without recorded strides") {
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(96), "w0");
  for (const std::vector<int64_t>& strides : {std::vector<int64_t>{}, std::vector<int64_t>{12, 4, 1}}) {
    TensorLayout layout = make_layout(make_tensor(ir::DType::kFloat32, {2, 3, 4}, storage, strides), "w");
    CHECK(layout.contiguous);
    CHECK(layout.numel == 24);
    CHECK(layout.nbytes == 96);
    CHECK(layout.span_begin == 0);
    CHECK(layout.span_end == 96);
    CHECK(layout.strides == std::vector<int64_t>{12, 4, 1});
  }
}

TEST_CASE("make_layout: size-1 dims ignore their stride; transposes and slices are not contiguous") {
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(96), "w0");
  CHECK(make_layout(make_tensor(ir::DType::kFloat32, {1, 6}, storage, {99, 1}), "w").contiguous);
  CHECK_FALSE(make_layout(make_tensor(ir::DType::kFloat32, {3, 2}, storage, {1, 3}), "w").contiguous);
  TensorLayout slice = make_layout(make_tensor(ir::DType::kFloat32, {2, 2}, storage, {4, 1}, 1), "w");
  CHECK_FALSE(slice.contiguous);
  CHECK(slice.span_begin == 4);
  CHECK(slice.span_end == (1 + 4 + 1 + 1) * 4);
  TensorLayout offset_dense = make_layout(make_tensor(ir::DType::kInt64, {3}, storage, {1}, 2), "w");
  CHECK(offset_dense.contiguous);
  CHECK(offset_dense.span_begin == 16);
}

TEST_CASE("make_layout: empty and 0-d tensors") {
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(4), "w0");
  TensorLayout empty = make_layout(make_tensor(ir::DType::kFloat32, {0, 5}, storage, {5, 1}, 100), "w");
  CHECK(empty.numel == 0);
  CHECK(empty.nbytes == 0);
  CHECK(empty.contiguous);
  TensorLayout scalar = make_layout(make_tensor(ir::DType::kFloat32, {}, storage), "w");
  CHECK(scalar.numel == 1);
  CHECK(scalar.nbytes == 4);
  CHECK(scalar.contiguous);
}

TEST_CASE("make_layout: a view past the end of its storage names the tensor and the entry") {
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(20), "archive/data/weights/weight_7");
  try {
    make_layout(make_tensor(ir::DType::kFloat32, {2, 3}, storage), "weight 'fc.weight'");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kArchive);
    const std::string message = e.what();
    CHECK(message.find("weight 'fc.weight'") != std::string::npos);
    CHECK(message.find("archive/data/weights/weight_7") != std::string::npos);
    CHECK(message.find("20 bytes") != std::string::npos);
  }
}

TEST_CASE("make_layout: rejects negative, mismatched and overflowing layouts") {
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(64), "w0");
  auto rejects = [&](archive::TensorData tensor) {
    CHECK_THROWS_AS(make_layout(tensor, "w"), Error);
  };
  rejects(make_tensor(ir::DType::kFloat32, {-1}, storage, {1}));
  rejects(make_tensor(ir::DType::kFloat32, {2}, storage, {-1}, 1));
  rejects(make_tensor(ir::DType::kFloat32, {2}, storage, {1}, -1));
  rejects(make_tensor(ir::DType::kFloat32, {2, 2}, storage, {1}));
  rejects(make_tensor(ir::DType::kFloat32, {int64_t{1} << 40, int64_t{1} << 40}, storage));
  rejects(make_tensor(ir::DType::kFloat32, {2}, storage, {int64_t{1} << 62}));
  rejects(make_tensor(ir::DType::kUnknown, {2}, storage));
  archive::TensorData no_storage = make_tensor(ir::DType::kFloat32, {2}, nullptr);
  rejects(no_storage);
}

TEST_CASE("gather_tensor: contiguous views arrive in order, in pieces no larger than the chunk") {
  const std::vector<uint8_t> bytes = iota_bytes(64);
  auto storage = std::make_shared<MemoryStorage>(bytes, "w0");
  TensorLayout layout = make_layout(make_tensor(ir::DType::kInt32, {3, 4}, storage, {}, 2), "w");
  size_t largest = 0;
  CHECK(gather_all(layout, *storage, 5, &largest) == std::vector<uint8_t>(bytes.begin() + 8, bytes.begin() + 56));
  CHECK(largest == 5);
  CHECK(gather_all(layout, *storage, 1 << 20).size() == 48);
}

TEST_CASE("gather_tensor: strided views match an element-by-element gather") {
  const std::vector<uint8_t> bytes = iota_bytes(4 * 60);
  auto storage = std::make_shared<MemoryStorage>(bytes, "w0");
  struct Case {
    std::vector<int64_t> sizes, strides;
    int64_t offset;
  };
  const Case cases[] = {
      {{3, 2}, {1, 3}, 0},            // transpose of a [2,3]
      {{2, 3}, {6, 1}, 2},            // rows of a wider matrix (runs of 3)
      {{2, 2, 3}, {24, 3, 1}, 1},     // inner dims dense, outer strided
      {{4, 3}, {0, 1}, 5},            // expanded (stride 0)
      {{2, 1, 3}, {3, 77, 1}, 0},     // size-1 dim with an odd stride: still dense
      {{3, 4, 2}, {1, 6, 3}, 0},      // fully permuted
  };
  for (const Case& c : cases) {
    TensorLayout layout = make_layout(make_tensor(ir::DType::kInt32, c.sizes, storage, c.strides, c.offset), "w");
    const std::vector<uint8_t> expected = reference_gather(bytes, c.sizes, c.strides, c.offset, 4);
    for (size_t chunk : {size_t{3}, size_t{8}, size_t{1} << 20}) CHECK(gather_all(layout, *storage, chunk) == expected);
  }
}

TEST_CASE("gather_tensor: a strided view over a wide span is read run by run") {
  // Two rows of 1024 int32, 32 Mi elements apart: a 128 MiB span, above the in-memory limit.
  const int64_t row_stride = int64_t{32} << 20;
  auto storage = std::make_shared<PatternStorage>(static_cast<uint64_t>(row_stride + 1024) * 4);
  TensorLayout layout = make_layout(make_tensor(ir::DType::kInt32, {2, 1024}, storage, {row_stride, 1}), "w");
  CHECK_FALSE(layout.contiguous);
  const std::vector<uint8_t> out = gather_all(layout, *storage, 1000);
  REQUIRE(out.size() == 2 * 1024 * 4);
  for (uint64_t i = 0; i < 4096; ++i) {
    CHECK(out[i] == testing::pattern_byte(i));
    CHECK(out[4096 + i] == testing::pattern_byte(static_cast<uint64_t>(row_stride) * 4 + i));
  }
  CHECK(storage->reads > 2);  // per-run reads, not one 128 MiB span read
}

TEST_CASE("gather_tensor: a narrow strided span is read once") {
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(4 * 6), "w0");
  TensorLayout layout = make_layout(make_tensor(ir::DType::kInt32, {3, 2}, storage, {1, 3}), "w");
  gather_all(layout, *storage, 2);
  CHECK(storage->reads == 1);
}

}  // namespace
}  // namespace pt2onnx::emit
