// The two copying threads and the order of their errors.
#include "emit/parallel_copies.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <numeric>
#include <system_error>
#include <thread>
#include <utility>

#include "emit/output_file.h"

namespace pt2onnx::emit {

ParallelCopies::ParallelCopies(TensorCopier& caller, std::filesystem::path archive_path)
    : caller_(caller), archive_path_(std::move(archive_path)) {}

void ParallelCopies::add(int fd, uint64_t offset, uint64_t bytes, Copy copy) {
  copies_.push_back(Pending{fd, offset, bytes, std::move(copy)});
}

void ParallelCopies::preallocate_spans(const std::vector<Pending>& copies) {
  std::map<int, std::pair<uint64_t, uint64_t>> spans;  // fd -> [begin, end)
  for (const Pending& copy : copies) {
    if (copy.bytes == 0) continue;
    const uint64_t end = copy.offset + copy.bytes;
    auto [span, added] = spans.try_emplace(copy.fd, copy.offset, end);
    if (added) continue;
    span->second.first = std::min(span->second.first, copy.offset);
    span->second.second = std::max(span->second.second, end);
  }
  for (const auto& [fd, span] : spans) preallocate(fd, span.first, span.second - span.first);
}

void ParallelCopies::run(const Copied& copied) {
  const std::vector<Pending> copies = std::exchange(copies_, {});
  if (copies.empty()) return;
  preallocate_spans(copies);
  std::vector<size_t> order(copies.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return copies[a].bytes > copies[b].bytes; });

  // A copy is skipped only when one added before it failed, so the first failing copy in the
  // order they were added always runs, and its error is the one reported.
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> finished{0};  // bytes of the copies done, by either thread
  std::mutex mutex;
  size_t failed_at = std::numeric_limits<size_t>::max();  // guarded by mutex
  std::exception_ptr error;                                // of copy failed_at
  uint64_t reported = 0;                                   // the caller's thread only
  auto report = [&] {
    const uint64_t now = finished.load(std::memory_order_relaxed);
    if (copied && now > reported) copied(now - reported);
    reported = now;
  };
  auto work = [&](TensorCopier& copier, bool caller) {
    for (size_t taken; (taken = next.fetch_add(1, std::memory_order_relaxed)) < order.size();) {
      const size_t i = order[taken];
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (i > failed_at) continue;  // a copy added before it failed: that is the error reported
      }
      try {
        copies[i].copy(copier);
        finished.fetch_add(copies[i].bytes, std::memory_order_relaxed);
        if (caller) report();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (i < failed_at) {
          failed_at = i;
          error = std::current_exception();
        }
      }
    }
  };

  std::thread second;
  if (copies.size() > 1) {
    try {
      if (!second_) {
        second_ = std::make_unique<TensorCopier>(archive_path_);
        second_->set_write_behind(false);
      }
      second = std::thread([&] { work(*second_, false); });
    } catch (const std::system_error&) {  // no second thread to be had: all on this one
    } catch (const std::bad_alloc&) {
    }
  }
  // Joined however this thread leaves (work() lets only a failed lock escape).
  struct JoinAtEnd {
    std::thread& thread;
    ~JoinAtEnd() {
      if (thread.joinable()) thread.join();
    }
  } join_at_end{second};
  // With two copiers at work both cores are busy: a write-behind thread of each would only compete.
  const bool caller_writes_behind = caller_.write_behind();
  if (second.joinable()) caller_.set_write_behind(false);
  work(caller_, true);
  caller_.set_write_behind(caller_writes_behind);
  if (second.joinable()) second.join();
  if (error) std::rethrow_exception(error);
  report();
}

}  // namespace pt2onnx::emit
