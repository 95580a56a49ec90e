// SideTask: work that runs beside the caller on a second thread, for a stage whose result is
// wanted only later (the weights' index while the graph is imported and translated). When no
// thread can be started (RLIMIT_NPROC, a sandbox) the work runs on the caller's thread in get(),
// so the result and the errors are the same either way.
//
// Errors keep their order: what the work throws is rethrown by get(), at the point where the
// caller would have run the work itself. A task destroyed without get() (the caller failed first)
// waits for the work to end and drops its result and its error: the caller's error is the one
// reported, as when the work had not run yet.
#pragma once

#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

namespace pt2onnx {

template <typename T>
class SideTask {
 public:
  enum class Run { kBeside, kInGet };
  // Starts `work` on a second thread, or keeps it for get() (kInGet, or no thread to be had).
  // What it reads must outlive the task.
  explicit SideTask(std::function<T()> work, Run mode = Run::kBeside) : work_(std::move(work)) {
    if (mode == Run::kInGet) return;
    try {
      thread_ = std::thread([this] { run(); });
      beside_ = true;
    } catch (const std::system_error&) {  // no second thread to be had: get() runs the work
    } catch (const std::bad_alloc&) {
    }
  }
  ~SideTask() {
    if (thread_.joinable()) thread_.join();
  }
  SideTask(const SideTask&) = delete;
  SideTask& operator=(const SideTask&) = delete;

  // Whether the work runs (or ran) on a thread of its own.
  bool beside() const { return beside_; }

  // The work's result, waiting for it or running it now; rethrows what it threw. Call once.
  T get() {
    if (thread_.joinable()) thread_.join();
    else if (!ran_) run();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return std::move(*result_);
  }

 private:
  void run() {
    ran_ = true;
    try {
      result_.emplace(work_());
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  std::function<T()> work_;
  std::optional<T> result_;
  std::exception_ptr error_;
  bool ran_ = false;  // written by the work's thread, read after join()
  bool beside_ = false;
  std::thread thread_;
};

}  // namespace pt2onnx
