// The CRC-32 of a range of the archive, computed on a second thread while the caller copies the
// same bytes in-kernel (copy_file_range never shows them to user space). The checksummed copy of
// a 1 GB archive in the page cache then takes as long as copy_file_range alone (0.96x of it,
// scripts/bench_weights.sh on the 2-core CI machine), where checksumming each chunk and then
// writing it from a mapping on one thread took 1.2-1.9x as long.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "common/side_task.h"

namespace pt2onnx::emit {

class RangeChecksum {
 public:
  // Reads bytes [offset, offset + n) of `fd` through read-only mappings, or, where the kernel
  // will not map them, through a buffer filled by `read(offset, n, dst)` (which throws
  // pt2onnx::Error for a read error or a short file). The caller has checked that the file
  // holds the range. Where no thread can be started, or without `beside`, the whole work is
  // done in wait().
  using ReadFn = std::function<void(uint64_t offset, uint64_t n, uint8_t* dst)>;
  RangeChecksum(int fd, uint64_t offset, uint64_t n, ReadFn read, bool beside = true);
  // Stops early (the copy failed, nobody waits for the result); task_ then joins.
  ~RangeChecksum();
  RangeChecksum(const RangeChecksum&) = delete;
  RangeChecksum& operator=(const RangeChecksum&) = delete;

  // The CRC of the whole range; rethrows what reading it threw.
  uint32_t wait();

 private:
  std::atomic<bool> stop_{false};
  SideTask<uint32_t> task_;  // last: started once stop_ exists, joined before it goes
};

}  // namespace pt2onnx::emit
