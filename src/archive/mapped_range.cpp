#include "archive/mapped_range.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace pt2onnx::archive {

MappedRange::MappedRange(int fd, uint64_t offset, uint64_t n, bool populate) {
  page_ = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t begin = offset / page_ * page_;
  length_ = n + (offset - begin);
  void* mapped = ::mmap(nullptr, length_, PROT_READ, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd,
                        static_cast<off_t>(begin));
  if (mapped == MAP_FAILED) return;
  base_ = mapped;
  if (!populate) ::madvise(base_, length_, MADV_SEQUENTIAL);
  data_ = static_cast<const uint8_t*>(base_) + (offset - begin);
}

MappedRange::~MappedRange() {
  if (base_ != nullptr) ::munmap(base_, length_);
}

void MappedRange::release_before(const uint8_t* p) {
  if (base_ == nullptr) return;
  const uint64_t upto = static_cast<uint64_t>(p - static_cast<const uint8_t*>(base_)) / page_ * page_;
  if (upto <= released_) return;
  // Advice: where the kernel refuses, the pages only stay resident longer.
  ::madvise(static_cast<uint8_t*>(base_) + released_, upto - released_, MADV_DONTNEED);
  released_ = upto;
}

void MappedRange::evict() {
  if (base_ != nullptr && released_ < length_)
    ::madvise(static_cast<uint8_t*>(base_) + released_, length_ - released_, MADV_DONTNEED);
}

void MappedRange::release_range(const uint8_t* begin, const uint8_t* end) const {
  if (base_ == nullptr) return;
  const auto* base = static_cast<const uint8_t*>(base_);
  const uint64_t from = (static_cast<uint64_t>(begin - base) + page_ - 1) / page_ * page_;
  const uint64_t to = std::min<uint64_t>(static_cast<uint64_t>(end - base), length_) / page_ * page_;
  if (to > from) ::madvise(static_cast<uint8_t*>(base_) + from, to - from, MADV_DONTNEED);
}

}  // namespace pt2onnx::archive
