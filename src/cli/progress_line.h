// The weight-copy progress line: on a terminal only, for copies big enough to wait for.
#pragma once

#include <chrono>
#include <cstdint>

namespace pt2onnx::cli {

class ProgressLine {
 public:
  // Shown only when `enabled` (not -q) and stderr is a terminal, and only for totals from
  // kMinBytes on: smaller copies end before a line would help.
  static constexpr int64_t kMinBytes = int64_t{256} << 20;
  explicit ProgressLine(bool enabled);
  ~ProgressLine() { end(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // "weights 1.2 GB / 2.0 GB (60%), 410 MB/s, ETA 2 s", redrawn at most 10 times a second.
  void update(int64_t done, int64_t total);
  // Ends the line, if one was drawn, so that later output starts on a line of its own.
  void end();

 private:
  bool enabled_;
  bool drawn_ = false;  // a line is on screen, not yet ended
  bool first_ = true;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace pt2onnx::cli
