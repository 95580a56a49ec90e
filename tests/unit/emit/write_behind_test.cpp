// WriteBehind: chunks written in order on its thread, the caller's buffer free again when
// submit() returns, a failed write rethrown with nothing written after it, and a writer dropped
// without finish() joined.
#include <doctest/doctest.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "emit/write_behind.h"

namespace pt2onnx::emit {
namespace {

TEST_CASE("WriteBehind: every chunk is written once, and submit returns once the chunk two before is out") {
  std::mutex mutex;
  std::vector<uint64_t> written;
  WriteBehind behind([&](uint64_t offset, const uint8_t*, uint64_t n) {
    std::lock_guard<std::mutex> lock(mutex);
    written.push_back(offset);
    CHECK(n == 10);
  });
  const uint8_t data[10] = {};
  for (uint64_t k = 0; k < 50; ++k) {
    behind.submit(k * 10, data, 10);
    std::lock_guard<std::mutex> lock(mutex);
    CHECK(written.size() >= k);  // all before this one are out
  }
  behind.finish();
  REQUIRE(written.size() == 50);
  for (uint64_t k = 0; k < 50; ++k) CHECK(written[k] == k * 10);
}

TEST_CASE("WriteBehind: a failed write is rethrown by the next submit or by finish, and no later chunk is written") {
  for (const bool in_finish : {false, true}) {
    CAPTURE(in_finish);
    int writes = 0;
    std::string message;
    try {
      WriteBehind behind([&](uint64_t offset, const uint8_t*, uint64_t) {
        ++writes;
        if (offset == 1) throw std::runtime_error("disk full");
      });
      const uint8_t byte = 0;
      behind.submit(0, &byte, 1);
      behind.submit(1, &byte, 1);
      if (!in_finish) {
        for (uint64_t k = 2; k < 6; ++k) behind.submit(k, &byte, 1);
      }
      behind.finish();
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    CHECK(message == "disk full");
    CHECK(writes == 2);  // what was queued behind the failed chunk is dropped
  }
}

TEST_CASE("WriteBehind: one destroyed without finish (the caller failed) joins its thread") {
  int writes = 0;
  {
    WriteBehind behind([&](uint64_t, const uint8_t*, uint64_t) { ++writes; });
    const uint8_t byte = 0;
    behind.submit(0, &byte, 1);
  }
  CHECK(writes <= 1);
}

}  // namespace
}  // namespace pt2onnx::emit
