// ProgressLine: see progress_line.h.
#include "cli/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace pt2onnx::cli {

namespace {

std::string gigabytes(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(bytes) / 1e9);
  return buf;
}

}  // namespace

ProgressLine::ProgressLine(bool enabled)
    : enabled_(enabled && ::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}

void ProgressLine::end() {
  if (drawn_) std::fputs("\n", stderr);
  drawn_ = false;
}

void ProgressLine::update(int64_t done, int64_t total) {
  if (!enabled_ || total < kMinBytes) return;
  const auto now = std::chrono::steady_clock::now();
  if (!first_ && done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  char eta[32] = "";
  if (done < total && rate > 0) std::snprintf(eta, sizeof eta, ", ETA %.0f s", static_cast<double>(total - done) / rate);
  // \r and a clear-to-end-of-line: the line is redrawn in place.
  std::fprintf(stderr, "\rpt2onnx: weights %s / %s (%d%%), %.0f MB/s%s\x1b[K", gigabytes(done).c_str(),
               gigabytes(total).c_str(), static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)),
               rate / 1e6, eta);
  std::fflush(stderr);
  drawn_ = true;
  first_ = false;
}

}  // namespace pt2onnx::cli
