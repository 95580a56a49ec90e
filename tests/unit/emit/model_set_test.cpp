// ModelSet: weights of different models with the same bytes share one region; a recorded CRC
// that matches over different bytes (a collision, or a forged zip) does not make them shared.
#include <doctest/doctest.h>

#include <cstring>

#include "archive/zip_crc.h"
#include "emit/fake_archive.h"
#include "emit/model_set.h"

namespace pt2onnx::emit {
namespace {

using testing::iota_bytes;
using testing::make_tensor;
using testing::TempDir;

// An entry held in memory that records a CRC-32 of our choosing, as a zip entry does.
class CrcEntry final : public archive::Storage {
 public:
  CrcEntry(std::vector<uint8_t> bytes, uint32_t crc) : bytes_(std::move(bytes)), crc_(crc, label_) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t offset, uint64_t n, void* dst) const override { std::memcpy(dst, bytes_.data() + offset, n); }
  std::optional<uint64_t> file_offset() const override { return std::nullopt; }
  const archive::EntryCrc* entry_crc() const override { return &crc_; }

 private:
  std::vector<uint8_t> bytes_;
  archive::StorageLabel label_{"m.pt2", "m/data/weights/weight_0"};
  archive::EntryCrc crc_;
};

TEST_CASE("the same bytes in two entries share a region; the same CRC over other bytes does not") {
  TempDir dir;
  ModelSet set(dir / "x.onnx.data");
  const std::vector<uint8_t> bytes = iota_bytes(4096);
  std::vector<uint8_t> other = bytes;
  other[100] ^= 1;
  const archive::TensorData first = make_tensor(ir::DType::kFloat32, {32, 32}, std::make_shared<CrcEntry>(bytes, 7));
  const archive::TensorData again = make_tensor(ir::DType::kFloat32, {32, 32}, std::make_shared<CrcEntry>(bytes, 7));
  const archive::TensorData forged = make_tensor(ir::DType::kFloat32, {32, 32}, std::make_shared<CrcEntry>(other, 7));
  const archive::TensorData reshaped = make_tensor(ir::DType::kFloat32, {1024}, std::make_shared<CrcEntry>(bytes, 7));
  const TensorLayout layout = make_layout(first, "first");

  CHECK_FALSE(set.find_same(first, layout, false));
  set.remember(first, layout, false, ExternalRegion{8192, 4096, false});
  const std::optional<ExternalRegion> shared = set.find_same(again, layout, false);
  REQUIRE(shared);
  CHECK(shared->offset == 8192);
  CHECK(shared->reused);
  CHECK_FALSE(set.find_same(forged, layout, false));                                  // bytes compared
  CHECK_FALSE(set.find_same(reshaped, make_layout(reshaped, "reshaped"), false));   // another view
  CHECK_FALSE(set.find_same(again, layout, true));                                   // the archive's regions apart
  CHECK(set.shared_weights() == 1);
  CHECK(set.shared_bytes() == 4096);
}

}  // namespace
}  // namespace pt2onnx::emit
