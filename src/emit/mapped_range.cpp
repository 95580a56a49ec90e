#include "emit/mapped_range.h"

#include <sys/mman.h>
#include <unistd.h>

namespace pt2onnx::emit {

MappedRange::MappedRange(int fd, uint64_t offset, uint64_t n, bool populate) {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t begin = offset / page * page;
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

}  // namespace pt2onnx::emit
