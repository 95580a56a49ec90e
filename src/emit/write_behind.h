// Writes chunks on a second thread while the caller computes the next one, one thread for a
// whole tensor however many chunks it has (a thread per chunk would cost more than small chunks
// take to write). The caller alternates between two buffers: submit() returns once the chunk
// two before is written, so the buffer it is about to refill is free. Where no thread can be
// started the chunks are written in submit() itself.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace pt2onnx::emit {

class WriteBehind {
 public:
  // write(offset, data, n) writes one chunk; what it throws is rethrown by submit() or finish().
  using Write = std::function<void(uint64_t offset, const uint8_t* data, uint64_t n)>;
  explicit WriteBehind(Write write);
  // Stops after the chunk being written (the caller failed; nobody waits for the rest) and joins.
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // Queues n bytes at `data` for `offset`; `data` must stay as it is until the next submit()
  // after this one returns, or finish(). Waits while two chunks are queued or being written.
  void submit(uint64_t offset, const uint8_t* data, uint64_t n);
  // Waits until every chunk is written; rethrows the first error.
  void finish();

 private:
  struct Chunk {
    uint64_t offset = 0;
    const uint8_t* data = nullptr;
    uint64_t n = 0;
  };
  void run();
  void rethrow_locked(std::unique_lock<std::mutex>& lock);

  Write write_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Chunk queue_[2];
  int queued_ = 0;        // chunks in queue_ not yet taken, the oldest at queue_[0]
  bool writing_ = false;  // the thread holds a chunk
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the rest exists
};

}  // namespace pt2onnx::emit
