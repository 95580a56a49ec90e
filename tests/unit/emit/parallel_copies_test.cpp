#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "emit/fake_archive.h"
#include "emit/output_file.h"
#include "emit/parallel_copies.h"
#include "emit/tensor_copier.h"

using namespace pt2onnx;
using namespace pt2onnx::emit;
using pt2onnx::emit::testing::read_file;
using pt2onnx::emit::testing::TempDir;

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
    copies.add(-1, i * 1000, bytes, [&log, i](TensorCopier& copier) {
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
      copies.add(-1, i * 1000, bytes, [i, &ran_before_three](TensorCopier&) {
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
  copies.add(-1, 0, 5, [&log](TensorCopier& copier) { log.note(0, copier); });
  copies.run();
  REQUIRE(log.ran.size() == 1);
  CHECK(*log.threads.begin() == std::this_thread::get_id());
  CHECK(*log.copiers.begin() == &caller);
}

TEST_CASE("ParallelCopies: each file's span is preallocated; gaps between the copies read as zeros") {
  TempDir dir;
  const std::filesystem::path path = dir / "out.data";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  TensorCopier caller(kNoArchive);
  ParallelCopies copies(caller, kNoArchive);
  const std::vector<uint8_t> a(3000, 0xAA), b(5000, 0xBB);
  // The copies write nothing before run() lets them: the file's size and blocks come from the
  // preallocation, then the bytes from the copies.
  struct stat before_copy {};
  bool seen = false;
  copies.add(fd, 8192, b.size(), [&](TensorCopier&) {
    REQUIRE(::fstat(fd, &before_copy) == 0);
    seen = true;
    write_all_at(fd, b.data(), b.size(), 8192, path);
  });
  copies.add(fd, 0, a.size(), [&](TensorCopier&) { write_all_at(fd, a.data(), a.size(), 0, path); });
  copies.run();
  REQUIRE(seen);
  struct stat after {};
  REQUIRE(::fstat(fd, &after) == 0);
  ::close(fd);
  CHECK(after.st_size == 8192 + 5000);
  const std::string bytes = read_file(path);
  CHECK(bytes.substr(0, 3000) == std::string(3000, '\xAA'));
  CHECK(bytes.substr(3000, 8192 - 3000) == std::string(8192 - 3000, '\0'));
  CHECK(bytes.substr(8192) == std::string(5000, '\xBB'));
  // Where the file system takes fallocate, the whole span had its size and blocks before the
  // larger copy (taken first) wrote anything.
  const int probe = ::open((dir / "probe").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(probe >= 0);
  const bool supported = ::fallocate(probe, 0, 0, 4096) == 0;
  ::close(probe);
  if (!supported) {
    MESSAGE("fallocate is not supported here: the preallocation itself is not checked");
    return;
  }
  CHECK(before_copy.st_size == 8192 + 5000);
  CHECK(static_cast<uint64_t>(before_copy.st_blocks) * 512 >= 8192 + 5000);
}

TEST_CASE("ParallelCopies: the copiers write behind only when they work alone; the caller's setting is kept") {
  for (const bool before : {true, false}) {
    CAPTURE(before);
    TensorCopier caller(kNoArchive);
    caller.set_write_behind(before);
    ParallelCopies copies(caller, kNoArchive);
    std::mutex mutex;
    std::vector<std::pair<TensorCopier*, bool>> seen;  // copier, its write-behind during the copy
    for (size_t i = 0; i < 8; ++i)
      copies.add(-1, i * 100, 100, [&](TensorCopier& copier) {
        std::lock_guard<std::mutex> lock(mutex);
        seen.emplace_back(&copier, copier.write_behind());
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      });
    copies.run();
    CHECK(caller.write_behind() == before);
    std::set<TensorCopier*> copiers;
    for (const auto& [copier, behind] : seen) copiers.insert(copier);
    if (copiers.size() == 2) {
      for (const auto& entry : seen) CHECK_FALSE(entry.second);  // two at work: neither writes behind
    } else {
      MESSAGE("no second thread was started here: only the caller's copier ran");
    }
  }
}
