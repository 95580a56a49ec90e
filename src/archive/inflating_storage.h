// A DEFLATE entry of a zip, inflated with zlib from the entry's compressed bytes in the storage
// that holds the zip. DEFLATE cannot seek: reads stream forward from a cursor, and a read behind
// it starts the stream again.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "archive/archive.h"
#include "archive/storage_label.h"
#include "archive/zip_crc.h"

namespace pt2onnx::archive {

class InflatingStorage final : public Storage {
 public:
  // Bytes [data_offset, data_offset + compressed_size) of `zip` hold the raw DEFLATE stream of
  // `size` bytes. The CRC is accumulated while the stream is read from its start and checked at
  // its end; a read that starts elsewhere first verifies the whole entry in one pass.
  InflatingStorage(std::shared_ptr<const Storage> zip, uint64_t data_offset, uint64_t compressed_size,
                   uint64_t size, StorageLabel label, std::optional<uint32_t> expected_crc);
  ~InflatingStorage() override;
  InflatingStorage(const InflatingStorage&) = delete;
  InflatingStorage& operator=(const InflatingStorage&) = delete;

  uint64_t size() const override { return size_; }
  void read(uint64_t offset, uint64_t n, void* dst) const override;
  std::optional<uint64_t> file_offset() const override { return std::nullopt; }
  std::string why_not_in_file() const override { return "the entry is DEFLATE-compressed"; }
  std::string entry_name() const override { return *label_.entry; }
  const EntryCrc* entry_crc() const override { return crc_ ? &*crc_ : nullptr; }
  void verify() const override;

 private:
  struct Stream;  // zlib's state and the compressed bytes read ahead

  void restart() const;
  void pull(uint64_t n, uint8_t* dst) const;  // inflates n bytes at the cursor; dst may be null
  void finish() const;      // at the entry's end: the stream ends there, the CRC matches
  void end_stream() const;  // inflates on to the stream's end, refusing any byte found
  void verify_locked() const;
  [[noreturn]] void refuse(const std::string& reason) const;

  std::shared_ptr<const Storage> zip_;
  uint64_t data_offset_;
  uint64_t compressed_size_;
  uint64_t size_;
  StorageLabel label_;
  std::optional<EntryCrc> crc_;  // names the entry by label_
  mutable std::mutex mutex_;     // guards what follows
  mutable std::unique_ptr<Stream> stream_;
  mutable uint64_t cursor_ = 0;
  mutable uint32_t running_crc_ = 0;  // of bytes [0, cursor_)
};

}  // namespace pt2onnx::archive
