// SideTask: the result and the errors are the same whether the work ran beside or in get().
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "common/side_task.h"

using pt2onnx::SideTask;
using Run = SideTask<std::string>::Run;

TEST_CASE("SideTask returns the work's result, run beside or in get()") {
  for (Run run : {Run::kBeside, Run::kInGet}) {
    std::atomic<int> calls = 0;
    SideTask<std::string> task([&] { ++calls; return std::string(1000, 'x'); }, run);
    CHECK(task.beside() == (run == Run::kBeside));
    const std::string result = task.get();
    CHECK(result == std::string(1000, 'x'));
    CHECK(calls == 1);
  }
}

TEST_CASE("SideTask rethrows the work's error from get(), with its code and message") {
  for (Run run : {Run::kBeside, Run::kInGet}) {
    SideTask<std::string> task([]() -> std::string { pt2onnx::fail(pt2onnx::ErrorCode::kArchive, "x.pt2: bad config"); }, run);
    try {
      (void)task.get();
      FAIL("get() returned");
    } catch (const pt2onnx::Error& e) {
      CHECK(e.code() == pt2onnx::ErrorCode::kArchive);
      CHECK(std::string(e.what()) == "x.pt2: bad config");
    }
  }
}

TEST_CASE("a SideTask destroyed without get() waits for its work and drops its error") {
  std::atomic<bool> finished = false;
  {
    SideTask<int> task([&]() -> int {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      finished = true;
      throw std::runtime_error("dropped");
    });
    REQUIRE(task.beside());
  }  // no get(): the caller failed first
  CHECK(finished);
}

TEST_CASE("a SideTask kept for get() runs nothing until get()") {
  bool ran = false;
  SideTask<int> task([&] { ran = true; return 7; }, SideTask<int>::Run::kInGet);
  CHECK_FALSE(ran);
  CHECK(task.get() == 7);
  CHECK(ran);
}
