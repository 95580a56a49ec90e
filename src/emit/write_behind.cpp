// The writer thread and its two-chunk hand-off.
#include "emit/write_behind.h"

#include <new>
#include <system_error>
#include <utility>

namespace pt2onnx::emit {

WriteBehind::WriteBehind(Write write) : write_(std::move(write)) {
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {  // no second thread: submit() writes
  } catch (const std::bad_alloc&) {
  }
}

WriteBehind::~WriteBehind() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WriteBehind::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return stop_ || queued_ > 0; });
    if (stop_) return;
    const Chunk chunk = queue_[0];
    queue_[0] = queue_[1];
    --queued_;
    writing_ = true;
    lock.unlock();
    std::exception_ptr error;
    try {
      write_(chunk.offset, chunk.data, chunk.n);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    writing_ = false;
    if (error && !error_) error_ = error;
    if (error_) queued_ = 0;  // the rest would go after a failed write: drop them
    changed_.notify_all();
  }
}

void WriteBehind::rethrow_locked(std::unique_lock<std::mutex>& lock) {
  if (!error_) return;
  std::exception_ptr error = std::exchange(error_, nullptr);
  lock.unlock();
  std::rethrow_exception(error);
}

void WriteBehind::submit(uint64_t offset, const uint8_t* data, uint64_t n) {
  if (!thread_.joinable()) {
    write_(offset, data, n);
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  rethrow_locked(lock);
  queue_[queued_++] = Chunk{offset, data, n};  // at most one is ahead of it (the wait below)
  changed_.notify_all();
  // This chunk may still be queued or being written; the one before it, whose buffer the
  // caller refills next, must not be.
  changed_.wait(lock, [this] { return error_ || queued_ + (writing_ ? 1 : 0) <= 1; });
  rethrow_locked(lock);
}

void WriteBehind::finish() {
  if (!thread_.joinable()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return error_ || (queued_ == 0 && !writing_); });
  rethrow_locked(lock);
}

}  // namespace pt2onnx::emit
