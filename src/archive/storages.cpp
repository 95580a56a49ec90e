#include "archive/storages.h"

#include <algorithm>
#include <cstring>
#include <mutex>

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

InflatingStorage::InflatingStorage(std::shared_ptr<LibzipArchive> zip, uint64_t index,
                                   uint64_t size, StorageLabel label,
                                   std::optional<uint32_t> expected_crc)
    : zip_(std::move(zip)), index_(index), size_(size), label_(std::move(label)) {
  if (expected_crc) crc_.emplace(*expected_crc, label_);
}

InflatingStorage::~InflatingStorage() {
  std::lock_guard<std::mutex> lock(zip_->mutex());
  if (file_ != nullptr) zip_fclose(file_);
}

void InflatingStorage::reopen() const {
  if (file_ != nullptr) zip_fclose(file_);
  file_ = zip_fopen_index(zip_->get(), index_, 0);
  cursor_ = 0;
  running_crc_ = 0;
  if (file_ == nullptr) {
    fail(ErrorCode::kArchive, label_.text() + ": cannot inflate: " + zip_strerror(zip_->get()));
  }
}

void InflatingStorage::pull(uint64_t n, uint8_t* dst) const {
  std::vector<uint8_t> scratch(dst || n == 0 ? 0 : std::min<uint64_t>(n, 64 * 1024));
  while (n > 0) {
    const uint64_t want = dst ? n : std::min<uint64_t>(n, scratch.size());
    const zip_int64_t got = zip_fread(file_, dst ? dst : scratch.data(), want);
    if (got <= 0) {
      const std::string reason = got < 0 ? zip_file_strerror(file_) : "entry ends early";
      zip_fclose(file_);
      file_ = nullptr;
      fail(ErrorCode::kArchive,
           label_.text() + ": cannot inflate at byte " + std::to_string(cursor_) + ": " + reason);
    }
    if (crc_ && !crc_->done()) running_crc_ = crc32_update(running_crc_, dst ? dst : scratch.data(), got);
    cursor_ += static_cast<uint64_t>(got);
    n -= static_cast<uint64_t>(got);
    if (dst) dst += got;
    if (cursor_ == size_ && crc_ && !crc_->done()) crc_->check(running_crc_);
  }
}

void InflatingStorage::verify_locked() const {
  if (!crc_ || crc_->done()) return;
  if (file_ == nullptr || cursor_ > 0) reopen();
  pull(size_, nullptr);  // checks at the end
}

void InflatingStorage::verify() const {
  std::lock_guard<std::mutex> lock(zip_->mutex());
  verify_locked();
}

void InflatingStorage::read(uint64_t offset, uint64_t n, void* dst) const {
  check_read_range(offset, n, size_, label_);
  if (n == 0) return;
  std::lock_guard<std::mutex> lock(zip_->mutex());
  // Only a read of the whole entry from its start checksums as it goes; others verify first.
  if (!(offset == 0 && n == size_)) verify_locked();
  if (file_ == nullptr || cursor_ > offset) reopen();
  pull(offset - cursor_, nullptr);
  pull(n, static_cast<uint8_t*>(dst));
}

}  // namespace pt2onnx::archive
