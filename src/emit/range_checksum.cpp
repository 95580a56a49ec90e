#include "emit/range_checksum.h"

#include <algorithm>
#include <system_error>
#include <vector>

#include "archive/zip_crc.h"
#include "emit/mapped_range.h"

namespace pt2onnx::emit {

namespace {
// The buffer of the unmapped path: the CRC runs at memory speed on it, syscalls cost little.
constexpr uint64_t kReadChunkBytes = uint64_t{1} << 20;
}  // namespace

RangeChecksum::RangeChecksum(int fd, uint64_t offset, uint64_t n, ReadFn read)
    : fd_(fd), offset_(offset), n_(n), read_(std::move(read)) {
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // No thread (RLIMIT_NPROC, no address space for its stack): wait() does the work.
  }
}

RangeChecksum::~RangeChecksum() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

uint32_t RangeChecksum::wait() {
  if (thread_.joinable())
    thread_.join();
  else
    run();
  if (error_) std::rethrow_exception(error_);
  return crc_;
}

void RangeChecksum::run() noexcept {
  try {
    std::vector<uint8_t> buffer;
    for (uint64_t done = 0; done < n_ && !stop_.load(std::memory_order_relaxed);) {
      const uint64_t length = std::min(n_ - done, kMapWindowBytes);
      const MappedRange window(fd_, offset_ + done, length, /*populate=*/true);
      if (window.data() != nullptr) {
        crc_ = archive::crc32_update(crc_, window.data(), length);
        done += length;
        continue;
      }
      if (buffer.empty()) buffer.resize(kReadChunkBytes);
      const uint64_t got = std::min<uint64_t>(length, buffer.size());
      read_(offset_ + done, got, buffer.data());
      crc_ = archive::crc32_update(crc_, buffer.data(), got);
      done += got;
    }
  } catch (...) {
    error_ = std::current_exception();
  }
}

}  // namespace pt2onnx::emit
