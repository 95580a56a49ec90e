// The CRC-32 check of one zip entry, shared by every storage and copy that reads it and done once,
// by whichever reader first sees all of the entry's bytes (a copy checksums while it copies).
//
// An entry whose recorded CRC is 0 although it holds bytes is taken as written without CRCs
// (torch.save under torch.utils.serialization.config.save.compute_crc32 = False, whose zips can
// sit inside a torch 2.8 archive as data/weights/<model>.pt) and is not verified. torch.export.save
// itself always records CRCs. A true CRC of 0 is a 1 in 2^32 event.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "archive/storage_label.h"

namespace pt2onnx::archive {

// CRC-32 (the zip polynomial) of n more bytes after `crc` (0 to start); libdeflate's.
uint32_t crc32_update(uint32_t crc, const void* data, size_t n);

// Held by the storage of the entry (one per entry: no allocation of its own), which lends it to
// readers that bypass the storage's read().
class EntryCrc {
 public:
  // `label` names the entry in the mismatch message ("model.pt2: model/data/weights/weight_0");
  // it must outlive the check (the storage holds both).
  EntryCrc(uint32_t expected, const StorageLabel& label);
  EntryCrc(const EntryCrc&) = delete;
  EntryCrc& operator=(const EntryCrc&) = delete;

  bool done() const { return done_.load(std::memory_order_acquire); }
  uint32_t expected() const { return expected_; }  // as the zip records it (0: not recorded)
  // Compares the CRC of all the entry's bytes with the recorded one; throws Error(kArchive)
  // naming the entry and both values on a mismatch.
  void check(uint32_t actual) const;

 private:
  uint32_t expected_;
  const StorageLabel* label_;
  mutable std::atomic<bool> done_;
};

}  // namespace pt2onnx::archive
