#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "emit/parallel_copies.h"
#include "emit/tensor_copier.h"

using namespace pt2onnx;
using namespace pt2onnx::emit;

namespace {

// The copies never touch the archive: the copiers open it only when a tensor is copied.
const char* const kNoArchive = "/nonexistent/never-opened.pt2";

struct Log {
  std::mutex mutex;
  std::vector<size_t> ran;
  std::set<std::thread::id> threads;
  std::set<TensorCopier*> copiers;
  void note(size_t i, TensorCopier& copier) {
    std::lock_guard<std::mutex> lock(mutex);
    ran.push_back(i);
    threads.insert(std::this_thread::get_id());
    copiers.insert(&copier);
  }
};

}  // namespace

TEST_CASE("ParallelCopies: every copy runs once, and the bytes are reported on the caller's thread") {
  TensorCopier caller(kNoArchive);
  ParallelCopies copies(caller, kNoArchive);
  Log log;
  const size_t n = 64;
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t bytes = (i * 7919) % 1000 + 1;
    total += bytes;
    copies.add(bytes, [&log, i](TensorCopier& copier) {
      log.note(i, copier);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    });
  }
  CHECK(copies.size() == n);
  uint64_t reported = 0;
  bool off_thread = false;
  const std::thread::id me = std::this_thread::get_id();
  copies.run([&](uint64_t bytes) {
    reported += bytes;
    off_thread = off_thread || std::this_thread::get_id() != me;
  });
  CHECK(copies.size() == 0);
  CHECK(reported == total);
  CHECK_FALSE(off_thread);
  std::vector<size_t> ran = log.ran;
  std::sort(ran.begin(), ran.end());
  std::vector<size_t> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = i;
  CHECK(ran == want);
  // A second thread with its own copier took part, unless none could be started here.
  if (std::thread::hardware_concurrency() > 1) {
    CHECK(log.threads.size() <= 2);
    CHECK(log.copiers.size() == log.threads.size());
  }
  copies.run();  // nothing left: a no-op
  CHECK(log.ran.size() == n);
}

TEST_CASE("ParallelCopies: the error reported is the first failing copy's in the order they were added") {
  // Copy 3 fails after a delay and copy 7 (larger, so taken earlier) fails at once: copy 3's error
  // must win every time, and every copy before it must have run.
  for (int round = 0; round < 50; ++round) {
    TensorCopier caller(kNoArchive);
    ParallelCopies copies(caller, kNoArchive);
    std::atomic<int> ran_before_three{0};
    for (size_t i = 0; i < 12; ++i) {
      const uint64_t bytes = i == 7 ? 1000 : 10;
      copies.add(bytes, [i, &ran_before_three](TensorCopier&) {
        if (i < 3) ++ran_before_three;
        if (i == 3) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          fail(ErrorCode::kArchive, "copy 3 failed");
        }
        if (i == 7) fail(ErrorCode::kOutput, "copy 7 failed");
      });
    }
    uint64_t reported = 0;
    try {
      copies.run([&](uint64_t bytes) { reported += bytes; });
      FAIL("run() did not throw");
    } catch (const Error& error) {
      CHECK(std::string(error.what()).find("copy 3 failed") != std::string::npos);
    }
    CHECK(ran_before_three == 3);
    CHECK(copies.size() == 0);  // forgotten after a failed run too
  }
}

TEST_CASE("ParallelCopies: one copy runs on the caller's thread and copier") {
  TensorCopier caller(kNoArchive);
  ParallelCopies copies(caller, kNoArchive);
  Log log;
  copies.add(5, [&log](TensorCopier& copier) { log.note(0, copier); });
  copies.run();
  REQUIRE(log.ran.size() == 1);
  CHECK(*log.threads.begin() == std::this_thread::get_id());
  CHECK(*log.copiers.begin() == &caller);
}
