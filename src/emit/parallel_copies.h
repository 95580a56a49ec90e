// Weights copied into the output files on two threads. Each weight goes to its own range of a
// file whose layout is already fixed, so the order they are copied in does not change a byte;
// what it changes is the time: while one thread is in the kernel writing a weight (the file's
// lock lets one write at a time), the other maps, checks and scales the next one. A third thread
// would only wait for that lock. Before the copies start, the span of each file they write is
// preallocated (output_file.h: preallocate), which makes each write cheaper.
//
// Errors keep the order the copies were added in: run() rethrows the error of the first added
// copy that failed, as copying one weight after another would have. When no second thread can
// be started (RLIMIT_NPROC, an address-space cap) every copy runs on the caller's thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "emit/tensor_copier.h"

namespace pt2onnx::emit {

class ParallelCopies {
 public:
  // A copy, given the copier of the thread that runs it; it throws what TensorCopier::copy throws.
  using Copy = std::function<void(TensorCopier&)>;
  // Told, on the thread that called run(), how many more bytes have been copied.
  using Copied = std::function<void(uint64_t bytes)>;

  // `caller` is the calling thread's copier; the second thread makes its own for `archive_path`.
  ParallelCopies(TensorCopier& caller, std::filesystem::path archive_path);

  // A copy of `bytes` bytes to `offset` of `fd`. The largest copies are taken first, so that
  // neither thread is left with a large one at the end while the other has nothing to do.
  void add(int fd, uint64_t offset, uint64_t bytes, Copy copy);
  size_t size() const { return copies_.size(); }

  // Runs every copy added since the last run() and forgets them; throws the first one's error
  // (in the order they were added). Copies after a failed one may not run. `copied` (may be
  // empty) hears of finished copies after each copy this thread ends and once at the end.
  void run(const Copied& copied = {});

 private:
  struct Pending {
    int fd = -1;
    uint64_t offset = 0, bytes = 0;
    Copy copy;
  };
  // Preallocates, in each file, the span from the first copy's start to the last one's end.
  static void preallocate_spans(const std::vector<Pending>& copies);
  TensorCopier& caller_;
  std::filesystem::path archive_path_;
  std::unique_ptr<TensorCopier> second_;  // made on the first run that starts a thread
  std::vector<Pending> copies_;
};

}  // namespace pt2onnx::emit
