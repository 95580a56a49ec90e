#include "emit/range_checksum.h"

#include <algorithm>
#include <vector>

#include "archive/zip_crc.h"
#include "emit/mapped_windows.h"

namespace pt2onnx::emit {

namespace {
// The buffer of the unmapped path: the CRC runs at memory speed on it, syscalls cost little.
constexpr uint64_t kReadChunkBytes = uint64_t{1} << 20;
}  // namespace

RangeChecksum::RangeChecksum(int fd, uint64_t offset, uint64_t n, ReadFn read, bool beside)
    : task_([this, fd, offset, n, read = std::move(read)] {
        // The buffer of the unmapped path, made only if the kernel refuses a mapping.
        std::vector<uint8_t> buffer;
        uint32_t crc = 0;
        if (stop_.load(std::memory_order_relaxed)) return crc;
        for_each_window(
            fd, offset, n, /*populate=*/true,
            [&]() -> std::vector<uint8_t>& {
              if (buffer.empty()) buffer.resize(kReadChunkBytes);
              return buffer;
            },
            read,
            [&](const uint8_t* bytes, uint64_t length) {
              crc = archive::crc32_update(crc, bytes, length);
              return !stop_.load(std::memory_order_relaxed);
            });
        return crc;
      },
      beside ? SideTask<uint32_t>::Run::kBeside : SideTask<uint32_t>::Run::kInGet) {}

RangeChecksum::~RangeChecksum() { stop_.store(true, std::memory_order_relaxed); }

uint32_t RangeChecksum::wait() { return task_.get(); }

}  // namespace pt2onnx::emit
