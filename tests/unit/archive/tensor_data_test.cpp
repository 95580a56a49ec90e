// TensorData helpers: element counts, contiguity, the storage span of a view, and gathering
// strided views, with bounds checked against the storage.
#include <doctest/doctest.h>

#include <cstring>

#include "archive/storages.h"
#include "archive/test_errors.h"
#include "archive/test_zip.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;

std::shared_ptr<const Storage> floats(const std::vector<float>& values) {
  const std::string bytes = testing::float_bytes(values);
  return std::make_shared<MemoryStorage>(std::vector<uint8_t>(bytes.begin(), bytes.end()),
                                         StorageLabel{"t.pt2", "t/data/weights/weight_0"});
}

TensorData view(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset,
                std::shared_ptr<const Storage> storage) {
  TensorData t;
  t.name = "layer.weight";
  t.dtype = ir::DType::kFloat32;
  t.sizes = std::move(sizes);
  t.strides = std::move(strides);
  t.storage_offset = offset;
  t.storage = std::move(storage);
  return t;
}

std::vector<float> gathered(const TensorData& t) {
  const std::vector<uint8_t> bytes = t.read_contiguous();
  std::vector<float> out(bytes.size() / 4);
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

TEST_CASE("numel, nbytes, contiguity and storage span") {
  const auto storage = floats({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const TensorData dense = view({3, 4}, {4, 1}, 0, storage);
  CHECK(dense.numel() == 12);
  CHECK(dense.nbytes() == 48);
  CHECK(dense.is_contiguous());
  CHECK(dense.storage_bytes_needed() == 48);

  CHECK_FALSE(view({4, 3}, {1, 4}, 0, storage).is_contiguous());
  CHECK(view({1, 4}, {99, 1}, 0, storage).is_contiguous());  // a size-1 dim's stride is free
  CHECK(view({0, 4}, {4, 1}, 0, storage).storage_bytes_needed() == 0);
  CHECK(view({}, {}, 5, storage).storage_bytes_needed() == 24);  // scalar at element 5
  CHECK(view({2, 2}, {4, 1}, 2, storage).storage_bytes_needed() == (2 + 4 + 1 + 1) * 4);
}

TEST_CASE("read_contiguous gathers strided views") {
  const auto storage = floats({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(gathered(view({3, 4}, {4, 1}, 0, storage)) ==
        std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(gathered(view({4, 3}, {1, 4}, 0, storage)) ==
        std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  CHECK(gathered(view({2, 2}, {4, 2}, 1, storage)) == std::vector<float>{1, 3, 5, 7});
  CHECK(gathered(view({2, 3}, {0, 1}, 9, storage)) ==
        std::vector<float>{9, 10, 11, 9, 10, 11});  // expanded
  CHECK(gathered(view({}, {}, 7, storage)) == std::vector<float>{7});
  CHECK(gathered(view({3, 0}, {1, 1}, 0, storage)).empty());
}

TEST_CASE("read_contiguous refuses views the storage does not hold") {
  const auto storage = floats({0, 1, 2, 3, 4, 5});
  CHECK(archive_error_of([&] {
          view({2, 3}, {3, 1}, 1, storage).read_contiguous();
        }) ==
        "'layer.weight' (float32 sizes [2, 3] strides [3, 1] offset 1): needs 28 bytes of storage, "
        "but 't/data/weights/weight_0' has 24");
  CHECK(archive_error_of([&] { view({2}, {-1}, 1, storage).read_contiguous(); }) ==
        "'layer.weight' (float32 sizes [2] strides [-1] offset 1): negative stride");
  CHECK(archive_error_of([&] { view({2}, {1}, -1, storage).read_contiguous(); }) ==
        "'layer.weight' (float32 sizes [2] strides [1] offset -1): negative storage offset");
  CHECK(archive_error_of([&] {
          view({int64_t{1} << 62, 8}, {1, 1}, 0, storage).read_contiguous();
        }).find("overflows 64 bits") != std::string::npos);
  CHECK(archive_error_of([&] {
          view({2, 2}, {1}, 0, storage).storage_bytes_needed();
        }) ==
        "'layer.weight' (float32 sizes [2, 2] strides [1] offset 0): sizes and strides differ in "
        "rank");
}

}  // namespace
}  // namespace pt2onnx::archive
