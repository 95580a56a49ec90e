// The packing Storage: reads the int8/uint8 source a block at a time and packs each pair.
#include "emit/packed_4bit.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"

namespace pt2onnx::emit {

namespace {

// Packed bytes made per source read: the scratch holds twice this of the source.
constexpr uint64_t kPackBlockBytes = uint64_t{1} << 20;

class Packed4BitStorage final : public archive::Storage {
 public:
  Packed4BitStorage(archive::TensorData source, bool is_signed)
      : source_(std::move(source)), numel_(static_cast<uint64_t>(source_.numel())), signed_(is_signed) {}

  uint64_t size() const override { return (numel_ + 1) / 2; }

  void read(uint64_t offset, uint64_t n, void* dst) const override {
    if (offset > size() || n > size() - offset)
      fail(ErrorCode::kArchive, "packed 4-bit weight '" + source_.name + "': read past its end");
    auto* out = static_cast<uint8_t*>(dst);
    std::vector<uint8_t> scratch;
    const auto base = static_cast<uint64_t>(source_.storage_offset);  // one byte per element
    for (uint64_t done = 0; done < n;) {
      const uint64_t bytes = std::min(n - done, kPackBlockBytes);
      const uint64_t first = 2 * (offset + done);                  // source element
      const uint64_t count = std::min(2 * bytes, numel_ - first);  // the last byte may hold one
      scratch.resize(static_cast<size_t>(count));
      source_.storage->read(base + first, count, scratch.data());  // checks the entry's CRC
      for (uint64_t i = 0; i < bytes; ++i) {
        const uint8_t lo = nibble(scratch[2 * i], first + 2 * i);
        const uint8_t hi = 2 * i + 1 < count ? nibble(scratch[2 * i + 1], first + 2 * i + 1) : 0;
        out[done + i] = static_cast<uint8_t>(lo | (hi << 4));
      }
      done += bytes;
    }
  }

  std::optional<uint64_t> file_offset() const override { return std::nullopt; }  // computed, not copied
  std::string entry_name() const override { return source_.storage->entry_name() + " (packed to 4 bits)"; }
  uint64_t numel() const { return numel_; }

 private:
  // The low 4 bits of an element, after checking that it is in int4's (or uint4's) range.
  uint8_t nibble(uint8_t byte, uint64_t index) const {
    const int value = signed_ ? static_cast<int>(static_cast<int8_t>(byte)) : static_cast<int>(byte);
    const int lo = signed_ ? -8 : 0, hi = signed_ ? 7 : 15;
    if (value < lo || value > hi)
      fail(ErrorCode::kUnsupported, "weight '" + source_.name + "' holds " + std::to_string(value) + " at element " +
                                        std::to_string(index) + ", outside " + (signed_ ? "int4" : "uint4") +
                                        "'s range " + std::to_string(lo) + ".." + std::to_string(hi) +
                                        " that its quantization declares; it cannot be stored in 4 bits");
    return static_cast<uint8_t>(byte & 0x0F);
  }

  archive::TensorData source_;
  uint64_t numel_;
  bool signed_;
};

}  // namespace

std::optional<archive::TensorData> packed_4bit(const archive::TensorData& source, bool is_signed) {
  const ir::DType expected = is_signed ? ir::DType::kInt8 : ir::DType::kUInt8;
  if (!source.storage || source.dtype != expected || !source.is_contiguous()) return std::nullopt;
  archive::TensorData packed;
  packed.name = source.name + " (packed to 4 bits)";
  packed.dtype = ir::DType::kUInt8;
  const auto storage = std::make_shared<Packed4BitStorage>(source, is_signed);
  packed.sizes = {static_cast<int64_t>(storage->size())};
  packed.strides = {1};
  packed.storage = storage;
  return packed;
}

bool is_packed_4bit_of(const archive::TensorData& tensor, int32_t data_type, const std::vector<int64_t>& dims) {
  if (data_type != translate::kOnnxInt4 && data_type != translate::kOnnxUInt4) return false;
  const auto* packed = dynamic_cast<const Packed4BitStorage*>(tensor.storage.get());
  if (!packed) return false;
  uint64_t numel = 1;
  for (int64_t d : dims) numel *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
  return tensor.dtype == ir::DType::kUInt8 && packed->numel() == numel &&
         tensor.sizes == std::vector<int64_t>{static_cast<int64_t>(packed->size())};
}

}  // namespace pt2onnx::emit
