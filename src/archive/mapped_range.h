// A read-only mapping of some bytes of an open file, for readers that use the archive's page
// cache in place instead of copying through a buffer: emit's weight copies and checksums, and
// the import's program JSON (model_text.h).
#pragma once

#include <cstdint>

namespace pt2onnx::archive {

class MappedRange {
 public:
  // Maps bytes [offset, offset + n) of `fd` (the page they start in and on). data() is null
  // where the kernel refuses (address-space cap, a file system without mmap): callers read
  // through a buffer then. `populate` faults every page in with the mapping (MAP_POPULATE),
  // one call instead of a fault per few pages, for a reader that will touch every byte.
  MappedRange(int fd, uint64_t offset, uint64_t n, bool populate);
  ~MappedRange();
  MappedRange(const MappedRange&) = delete;
  MappedRange& operator=(const MappedRange&) = delete;

  const uint8_t* data() const { return data_; }
  // The whole pages before `p` (within the mapping) leave this process's memory: MADV_DONTNEED
  // drops the page table entries, and a later read refaults them from the page cache.
  void release_before(const uint8_t* p);
  // Every page of the mapping leaves this process's memory the same way, though the caller will
  // read them again (release_before's bound does not move).
  void evict();
  // The whole pages within [begin, end) leave this process's memory the same way; no state is
  // kept, so threads may call it at once for ranges of their own.
  void release_range(const uint8_t* begin, const uint8_t* end) const;

 private:
  void* base_ = nullptr;
  uint64_t length_ = 0;
  uint64_t page_ = 0;
  const uint8_t* data_ = nullptr;
  uint64_t released_ = 0;  // bytes from base_ already given back
};

}  // namespace pt2onnx::archive
