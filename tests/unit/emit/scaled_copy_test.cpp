// The folded-BatchNorm copy: copy_scaled gives what ScaledStorage::read gives, tile by tile, on
// the caller's thread and behind it, for edge sizes of tiles and channels; TensorCopier's path
// for a scaled weight (checksummed as it is read, a damaged entry refused, a part of an entry
// checked first).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include "archive/storages.h"
#include "archive/zip_crc.h"
#include "emit/fake_archive.h"
#include "emit/mapped_windows.h"
#include "emit/scaled_copy.h"
#include "emit/tensor_copier.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {
namespace {

using testing::FileStorage;
using testing::make_tensor;
using testing::read_file;
using testing::TempDir;

// n float32 values, none of them 0, as bytes.
std::vector<uint8_t> float_bytes(uint64_t n) {
  std::vector<uint8_t> bytes(n * sizeof(float));
  for (uint64_t i = 0; i < n; ++i) {
    const float v = 0.25f + static_cast<float>(i % 1009) * 0.001f - static_cast<float>(i % 7);
    std::memcpy(bytes.data() + i * sizeof(float), &v, sizeof(float));
  }
  return bytes;
}

std::shared_ptr<ScaledStorage> scaled_over(const std::vector<uint8_t>& bytes, std::vector<double> factors,
                                           int64_t inner, double offset = 0) {
  auto storage = std::make_shared<archive::MemoryStorage>(bytes, archive::StorageLabel{"a.pt2", "w0"});
  const int64_t numel = static_cast<int64_t>(bytes.size() / sizeof(float));
  return std::make_shared<ScaledStorage>(make_tensor(ir::DType::kFloat32, {numel}, storage), std::move(factors), inner,
                                         offset);
}

// copy_scaled of elements [first, first + count) into a buffer, checking that the source is read
// front to back, each byte once.
std::vector<uint8_t> copy_through(const ScaledStorage& storage, const std::vector<uint8_t>& source, uint64_t first,
                                  uint64_t count, uint64_t tile_bytes, bool write_behind = true) {
  std::vector<uint8_t> out(count * sizeof(float), 0);
  uint64_t next = 0;
  std::mutex mutex;  // write runs on the writer thread
  ScaledBuffers buffers;
  copy_scaled(
      storage, first, count,
      [&](uint64_t offset, uint64_t n) {
        CHECK(offset == next);
        next = offset + n;
        return source.data() + first * sizeof(float) + offset;
      },
      [&](uint64_t offset, const uint8_t* data, uint64_t n) {
        std::lock_guard<std::mutex> lock(mutex);
        REQUIRE(offset + n <= out.size());
        std::memcpy(out.data() + offset, data, n);
      },
      buffers, write_behind, tile_bytes);
  CHECK(next == count * sizeof(float));
  return out;
}

TEST_CASE("copy_scaled: tiles of any size give what a read of the scaled storage gives") {
  const uint64_t big = kMinScaledOverlapBytes / sizeof(float) + 5;  // written behind
  for (const uint64_t numel : {uint64_t{1}, uint64_t{7}, uint64_t{64}, big}) {
    const std::vector<uint8_t> source = float_bytes(numel);
    for (const int64_t inner : {int64_t{1}, int64_t{3}, int64_t{64}}) {
      const auto storage = scaled_over(source, {1.5, -0.25, 3.0, 1e-3}, inner);
      std::vector<uint8_t> want(numel * sizeof(float));
      storage->read(0, want.size(), want.data());
      for (const uint64_t tile : {uint64_t{4}, uint64_t{12}, uint64_t{256}, kScaledTileBytes}) {
        CAPTURE(numel);
        CAPTURE(inner);
        CAPTURE(tile);
        if (numel == big && tile < 256) continue;  // a million one-element tiles say nothing more
        CHECK(copy_through(*storage, source, 0, numel, tile) == want);
        CHECK(copy_through(*storage, source, 0, numel, tile, /*write_behind=*/false) == want);
        if (numel < 3) continue;
        // From an element inside a channel: the factors continue from there.
        const std::vector<uint8_t> tail = copy_through(*storage, source, 2, numel - 3, tile);
        CHECK(std::equal(tail.begin(), tail.end(), want.begin() + 2 * sizeof(float)));
      }
    }
  }
}

TEST_CASE("copy_scaled of a shifted weight (1 + w) writes float32's 1 + w, tile by tile") {
  const uint64_t numel = 77;
  const std::vector<uint8_t> source = float_bytes(numel);
  const auto storage = scaled_over(source, {1.0}, static_cast<int64_t>(numel), 1.0);
  for (const uint64_t tile : {uint64_t{4}, uint64_t{40}, kScaledTileBytes}) {
    const std::vector<uint8_t> out = copy_through(*storage, source, 0, numel, tile);
    for (uint64_t i = 0; i < numel; ++i) {
      float w = 0, got = 0;
      std::memcpy(&w, source.data() + i * sizeof(float), sizeof(float));
      std::memcpy(&got, out.data() + i * sizeof(float), sizeof(float));
      CHECK(got == 1.0f + w);
    }
  }
}

TEST_CASE("copy_scaled: nothing to copy reads and writes nothing; a tile of part of a float is refused") {
  const std::vector<uint8_t> source = float_bytes(4);
  const auto storage = scaled_over(source, {2.0}, 1);
  ScaledBuffers buffers;
  int calls = 0;
  copy_scaled(
      *storage, 0, 0, [&](uint64_t, uint64_t) { ++calls; return source.data(); },
      [&](uint64_t, const uint8_t*, uint64_t) { ++calls; }, buffers);
  CHECK(calls == 0);
  CHECK_THROWS_AS(copy_scaled(
                      *storage, 0, 4, [&](uint64_t, uint64_t) { return source.data(); },
                      [&](uint64_t, const uint8_t*, uint64_t) {}, buffers, true, 6),
                  Error);
}

TEST_CASE("ScaledStorage::scale: a source at any alignment gives the same floats") {
  const std::vector<uint8_t> source = float_bytes(33);
  const auto storage = scaled_over(source, {0.5, 7.0}, 5);
  std::vector<float> want(33), got(33);
  storage->scale(source.data(), want.data(), 4, 33);
  std::vector<uint8_t> shifted(source.size() + 3);
  for (const size_t shift : {size_t{1}, size_t{2}, size_t{3}}) {
    std::memcpy(shifted.data() + shift, source.data(), source.size());
    storage->scale(shifted.data() + shift, got.data(), 4, 33);
    CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
  }
  CHECK(want[0] == 0.125f);  // element 4 is in channel 0 (factor 0.5); its source is 0.25
  float second = 0;
  std::memcpy(&second, source.data() + sizeof(float), sizeof(float));
  CHECK(want[1] == static_cast<float>(static_cast<double>(second) * 7.0));  // element 5: channel 1
}

struct ScaledCopy {
  std::string message;  // the error, if any
  std::string out;      // the output file past its first 100 bytes
  bool verified = false;
  std::vector<uint8_t> want;
};

// A float32 weight of `numel` elements stored 13 bytes into an archive file (off any alignment),
// scaled per channel, its elements [skip, numel) copied by TensorCopier to offset 100 of a file.
ScaledCopy copy_scaled_entry(uint64_t numel, uint64_t skip, bool damaged) {
  TempDir dir;
  const std::vector<uint8_t> bytes = float_bytes(numel);
  std::vector<uint8_t> file(13, 0xEE);
  file.insert(file.end(), bytes.begin(), bytes.end());
  if (damaged) file[13 + bytes.size() / 2] ^= 1;
  {
    std::ofstream out(dir / "model.pt2", std::ios::binary);
    out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  }
  auto entry = std::make_shared<FileStorage>(dir / "model.pt2", 13, bytes.size(), "model/data/weights/w0");
  entry->record_crc(archive::crc32_update(0, bytes.data(), bytes.size()));
  const int64_t rest = static_cast<int64_t>(numel - skip);
  const archive::TensorData source =
      make_tensor(ir::DType::kFloat32, {rest}, entry, {1}, static_cast<int64_t>(skip));
  archive::TensorData tensor = make_tensor(ir::DType::kFloat32, {rest},
                                           std::make_shared<ScaledStorage>(source, std::vector<double>{2.0, -0.5, 0.1}, 7));
  ScaledCopy result;
  const TensorLayout layout = make_layout(tensor, "w0");
  const int fd = ::open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  try {
    TensorCopier copier(dir / "model.pt2");
    copier.copy(tensor, layout, fd, 100, dir / "out");
  } catch (const Error& e) {
    result.message = e.what();
  }
  ::close(fd);
  result.verified = entry->entry_crc()->done();
  if (!result.message.empty()) return result;
  result.out = read_file(dir / "out").substr(100);
  result.want.resize(layout.nbytes);
  tensor.storage->read(0, layout.nbytes, result.want.data());
  return result;
}

TEST_CASE("copier: a scaled whole entry is scaled and checksummed as it is read, across mapping windows") {
  const uint64_t over_windows = (kMapWindowBytes + 4099 * 3) / sizeof(float);
  for (const uint64_t numel : {uint64_t{1}, uint64_t{1000}, over_windows}) {
    CAPTURE(numel);
    const ScaledCopy copied = copy_scaled_entry(numel, 0, false);
    REQUIRE(copied.message.empty());
    CHECK(copied.verified);
    CHECK(copied.out == std::string(copied.want.begin(), copied.want.end()));
  }
}

TEST_CASE("copier: a scaled weight over a damaged entry is refused by name, whole or in part") {
  for (const uint64_t skip : {uint64_t{0}, uint64_t{5}}) {
    CAPTURE(skip);
    const ScaledCopy copied = copy_scaled_entry(300000, skip, true);
    CHECK(copied.message.find("model/data/weights/w0: CRC-32 mismatch") != std::string::npos);
  }
}

TEST_CASE("copier: a scaled weight over part of an entry checks the entry first, then copies its part") {
  const ScaledCopy copied = copy_scaled_entry(300000, 5, false);
  REQUIRE(copied.message.empty());
  CHECK(copied.verified);
  REQUIRE(copied.out.size() == (300000 - 5) * sizeof(float));
  CHECK(copied.out == std::string(copied.want.begin(), copied.want.end()));
}

}  // namespace
}  // namespace pt2onnx::emit
