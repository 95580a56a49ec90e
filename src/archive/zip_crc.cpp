// CRC-32 through libdeflate (PCLMUL/AVX: several GB/s, far above disk and page-cache copies).
#include "archive/zip_crc.h"

#include <libdeflate.h>

#include <cstdio>

#include "common/error.h"

namespace pt2onnx::archive {

uint32_t crc32_update(uint32_t crc, const void* data, size_t n) { return libdeflate_crc32(crc, data, n); }

// A recorded 0 is "no CRC" (see the header); an empty entry's CRC is 0 as well.
EntryCrc::EntryCrc(uint32_t expected, const StorageLabel& label)
    : expected_(expected), label_(&label), done_(expected == 0) {}

void EntryCrc::check(uint32_t actual) const {
  if (actual != expected_) {
    char values[64];
    std::snprintf(values, sizeof values, "0x%08x, the zip records 0x%08x", actual, expected_);
    fail(ErrorCode::kArchive, label_->text() + ": CRC-32 mismatch (damaged entry): its bytes give " + values);
  }
  done_.store(true, std::memory_order_release);
}

}  // namespace pt2onnx::archive
