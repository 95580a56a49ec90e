// The packing Storage: reads the int8/uint8 source a block at a time and packs each pair.
#include "emit/packed_4bit.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"

namespace pt2onnx::emit {

namespace {

// Packed bytes made per source read: the scratch holds about twice this of the source.
constexpr uint64_t kPackBlockBytes = uint64_t{1} << 20;

class Packed4BitStorage final : public archive::Storage {
 public:
  Packed4BitStorage(archive::TensorData source, const FourBitPacking& how)
      : source_(std::move(source)),
        numel_(static_cast<uint64_t>(source_.numel())),
        row_(how.row > 0 ? static_cast<uint64_t>(how.row) : std::max<uint64_t>(numel_, 1)),
        row_bytes_((row_ + 1) / 2),
        signed_(how.is_signed),
        offset_(how.offset_to_unsigned) {}

  uint64_t size() const override { return numel_ / row_ * row_bytes_ + (numel_ % row_ ? row_bytes_ : 0); }
  uint64_t numel() const { return numel_; }
  bool one_plain_run() const { return row_ >= numel_ && !offset_; }

  void read(uint64_t offset, uint64_t n, void* dst) const override {
    if (offset > size() || n > size() - offset)
      fail(ErrorCode::kArchive, "packed 4-bit weight '" + source_.name + "': read past its end");
    auto* out = static_cast<uint8_t*>(dst);
    std::vector<uint8_t> scratch;
    const auto base = static_cast<uint64_t>(source_.storage_offset);  // one byte per element
    for (uint64_t done = 0; done < n;) {
      const uint64_t bytes = std::min(n - done, kPackBlockBytes);
      const uint64_t first = element_of(offset + done);
      const uint64_t end = std::min(numel_, element_of(offset + done + bytes - 1) + 2);
      scratch.resize(static_cast<size_t>(end - first));
      source_.storage->read(base + first, end - first, scratch.data());  // checks the entry's CRC
      for (uint64_t b = offset + done; b < offset + done + bytes; ++b) {
        const uint64_t e = element_of(b);
        const bool pair = (b % row_bytes_) * 2 + 1 < row_;  // the row has an element after e
        const uint8_t lo = nibble(scratch[e - first], e);
        const uint8_t hi = pair ? nibble(scratch[e + 1 - first], e + 1) : 0;
        out[done + (b - offset - done)] = static_cast<uint8_t>(lo | (hi << 4));
      }
      done += bytes;
    }
  }

  std::optional<uint64_t> file_offset() const override { return std::nullopt; }  // computed, not copied
  std::string entry_name() const override { return source_.storage->entry_name() + " (packed to 4 bits)"; }

 private:
  // The source element in the low nibble of packed byte `b`.
  uint64_t element_of(uint64_t b) const { return b / row_bytes_ * row_ + (b % row_bytes_) * 2; }

  // The 4 bits of an element, after checking that it is in int4's (or uint4's) range.
  uint8_t nibble(uint8_t byte, uint64_t index) const {
    const int value = signed_ ? static_cast<int>(static_cast<int8_t>(byte)) : static_cast<int>(byte);
    const int lo = signed_ ? -8 : 0, hi = signed_ ? 7 : 15;
    if (value < lo || value > hi)
      fail(ErrorCode::kUnsupported, "weight '" + source_.name + "' holds " + std::to_string(value) + " at element " +
                                        std::to_string(index) + ", outside " + (signed_ ? "int4" : "uint4") +
                                        "'s range " + std::to_string(lo) + ".." + std::to_string(hi) +
                                        " that its quantization declares; it cannot be stored in 4 bits");
    return static_cast<uint8_t>((offset_ ? value + 8 : value) & 0x0F);
  }

  archive::TensorData source_;
  uint64_t numel_, row_, row_bytes_;
  bool signed_, offset_;
};

}  // namespace

std::optional<archive::TensorData> packed_4bit(const archive::TensorData& source, const FourBitPacking& how) {
  const ir::DType expected = how.is_signed ? ir::DType::kInt8 : ir::DType::kUInt8;
  if (!source.storage || source.dtype != expected || !source.is_contiguous() || how.row < 0) return std::nullopt;
  if (how.row > 0 && source.numel() % how.row != 0) return std::nullopt;
  const auto storage = std::make_shared<Packed4BitStorage>(source, how);
  archive::TensorData packed;
  packed.name = source.name + " (packed to 4 bits)";
  packed.dtype = ir::DType::kUInt8;
  packed.sizes = how.dims.empty() ? std::vector<int64_t>{static_cast<int64_t>(storage->size())} : how.dims;
  int64_t count = 1;
  for (int64_t d : packed.sizes) count *= d;
  if (count != static_cast<int64_t>(storage->size())) return std::nullopt;
  packed.strides.assign(packed.sizes.size(), 1);  // row-major
  for (size_t d = packed.sizes.size(); d-- > 1;) packed.strides[d - 1] = packed.strides[d] * packed.sizes[d];
  packed.storage = storage;
  return packed;
}

bool is_packed_4bit_of(const archive::TensorData& tensor, int32_t data_type, const std::vector<int64_t>& dims) {
  if (data_type != ir::kOnnxInt4 && data_type != ir::kOnnxUInt4) return false;
  const auto* packed = dynamic_cast<const Packed4BitStorage*>(tensor.storage.get());
  if (!packed || !packed->one_plain_run()) return false;
  uint64_t numel = 1;
  for (int64_t d : dims) numel *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
  return tensor.dtype == ir::DType::kUInt8 && packed->numel() == numel &&
         tensor.sizes == std::vector<int64_t>{static_cast<int64_t>(packed->size())};
}

}  // namespace pt2onnx::emit
