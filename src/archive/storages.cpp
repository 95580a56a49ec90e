#include "archive/storages.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace pt2onnx::archive {

namespace {
// Verification reads of entries that are not read whole go through a buffer this large.
constexpr uint64_t kVerifyChunkBytes = uint64_t{1} << 20;
}  // namespace

void check_read_range(uint64_t offset, uint64_t n, uint64_t size, const StorageLabel& label) {
  if (offset > size || n > size - offset) {
    fail(ErrorCode::kArchive, label.text() + ": read of " + std::to_string(n) +
                                  " bytes at offset " + std::to_string(offset) +
                                  " is past the end (" + std::to_string(size) + " bytes)");
  }
}

WholeFileStorage::WholeFileStorage(std::shared_ptr<const FileHandle> file)
    : file_(std::move(file)) {}

void WholeFileStorage::read(uint64_t offset, uint64_t n, void* dst) const {
  file_->read_exact(offset, n, dst, file_->path().string());
}

MemoryStorage::MemoryStorage(std::vector<uint8_t> bytes, StorageLabel label)
    : bytes_(std::move(bytes)), label_(std::move(label)) {}

void MemoryStorage::read(uint64_t offset, uint64_t n, void* dst) const {
  check_read_range(offset, n, bytes_.size(), label_);
  if (n > 0) std::memcpy(dst, bytes_.data() + offset, n);
}

SliceStorage::SliceStorage(std::shared_ptr<const Storage> parent, uint64_t offset, uint64_t size,
                           StorageLabel label, std::optional<uint32_t> expected_crc)
    : parent_(std::move(parent)), offset_(offset), size_(size), label_(std::move(label)) {
  if (expected_crc) crc_.emplace(*expected_crc, label_);
  // The zip directory reader checked this already; a slice must never widen its parent.
  if (offset_ > parent_->size() || size_ > parent_->size() - offset_) {
    fail(ErrorCode::kInternal, label_.text() + ": slice lies outside its zip");
  }
}

void SliceStorage::read(uint64_t offset, uint64_t n, void* dst) const {
  check_read_range(offset, n, size_, label_);
  if (crc_ && !crc_->done() && offset == 0 && n == size_) {
    parent_->read(offset_, n, dst);  // the whole entry: checksum what was read
    crc_->check(crc32_update(0, dst, n));
    return;
  }
  verify();
  parent_->read(offset_ + offset, n, dst);
}

void SliceStorage::verify() const {
  if (!crc_ || crc_->done()) return;
  std::vector<uint8_t> chunk(std::min<uint64_t>(size_, kVerifyChunkBytes));
  uint32_t crc = 0;
  for (uint64_t done = 0; done < size_;) {
    const uint64_t n = std::min<uint64_t>(chunk.size(), size_ - done);
    parent_->read(offset_ + done, n, chunk.data());
    crc = crc32_update(crc, chunk.data(), n);
    done += n;
  }
  crc_->check(crc);
}

std::optional<uint64_t> SliceStorage::file_offset() const {
  const std::optional<uint64_t> parent = parent_->file_offset();
  if (!parent) return std::nullopt;
  return *parent + offset_;
}

}  // namespace pt2onnx::archive
