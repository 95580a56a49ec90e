// Windows of read-only mappings of the archive (archive/mapped_range.h), for copies and checksums
// that read its page cache in place instead of through a buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "archive/mapped_range.h"

namespace pt2onnx::emit {

// How much of the archive one mapping covers: bounded address space (the hostile-input suite
// runs under ulimit -v), large enough that mmap/munmap cost little next to reading the bytes.
inline constexpr uint64_t kMapWindowBytes = uint64_t{16} << 20;

using archive::MappedRange;

// Walks bytes [offset, offset + n) of `fd` in windows of kMapWindowBytes, handing each piece to
// use(bytes, length) in order: from a mapping where the kernel grants one, else read into
// buffer() (a caller's reused vector, non-empty) by read(offset, length, dst). Stops early when
// use() returns false.
template <typename Buffer, typename Read, typename Use>
void for_each_window(int fd, uint64_t offset, uint64_t n, bool populate, Buffer&& buffer, Read&& read, Use&& use) {
  for (uint64_t done = 0; done < n;) {
    const uint64_t length = std::min(n - done, kMapWindowBytes);
    const MappedRange window(fd, offset + done, length, populate);
    if (window.data() != nullptr) {
      if (!use(window.data(), length)) return;
      done += length;
      continue;
    }
    std::vector<uint8_t>& bytes = buffer();
    const uint64_t got = std::min<uint64_t>(length, bytes.size());
    read(offset + done, got, bytes.data());
    if (!use(bytes.data(), got)) return;
    done += got;
  }
}

}  // namespace pt2onnx::emit
