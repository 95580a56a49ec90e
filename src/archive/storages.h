// The Storage implementations: the whole archive file, a slice of another storage (a STORED
// entry, also inside a nested zip) and bytes held in memory. A DEFLATE entry: inflating_storage.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "archive/file_handle.h"
#include "archive/storage_label.h"
#include "archive/zip_crc.h"

namespace pt2onnx::archive {

class WholeFileStorage final : public Storage {
 public:
  explicit WholeFileStorage(std::shared_ptr<const FileHandle> file);
  uint64_t size() const override { return file_->size(); }
  void read(uint64_t offset, uint64_t n, void* dst) const override;
  std::optional<uint64_t> file_offset() const override { return 0; }

 private:
  std::shared_ptr<const FileHandle> file_;
};

class MemoryStorage final : public Storage {
 public:
  MemoryStorage(std::vector<uint8_t> bytes, StorageLabel label);
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t offset, uint64_t n, void* dst) const override;
  std::optional<uint64_t> file_offset() const override { return std::nullopt; }
  std::string why_not_in_file() const override { return "it lies in a DEFLATE-compressed nested zip (inflated in memory)"; }
  std::string entry_name() const override { return *label_.entry; }

 private:
  std::vector<uint8_t> bytes_;
  StorageLabel label_;
};

// Bytes [offset, offset + size) of a parent storage: a STORED entry of a zip held in the parent.
// With a CRC check, the first read verifies the whole entry (in the same pass when it reads all
// of it).
class SliceStorage final : public Storage {
 public:
  // `expected_crc`: the entry's recorded CRC-32, when its reads are to be checked.
  SliceStorage(std::shared_ptr<const Storage> parent, uint64_t offset, uint64_t size,
               StorageLabel label, std::optional<uint32_t> expected_crc = std::nullopt);
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, uint64_t n, void* dst) const override;
  std::optional<uint64_t> file_offset() const override;
  std::string why_not_in_file() const override { return parent_->why_not_in_file(); }
  std::string entry_name() const override { return *label_.entry; }
  const EntryCrc* entry_crc() const override { return crc_ ? &*crc_ : nullptr; }
  void verify() const override;

 private:
  std::shared_ptr<const Storage> parent_;
  uint64_t offset_;
  uint64_t size_;
  StorageLabel label_;
  std::optional<EntryCrc> crc_;  // names the entry by label_
};

// Throws the standard "past the end" error for a read outside [0, size).
void check_read_range(uint64_t offset, uint64_t n, uint64_t size, const StorageLabel& label);

}  // namespace pt2onnx::archive
