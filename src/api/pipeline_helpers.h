// Helpers shared by convert() and inspect(): the opset check, error context per stage, and the
// weights' index read beside another stage.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "archive/archive.h"
#include "common/error.h"
#include "common/side_task.h"
#include "pt2onnx.h"

namespace pt2onnx::api {

inline void check_opset(int opset) {
  PT2ONNX_CHECK(opset >= kMinOpset && opset <= kMaxOpset, ErrorCode::kUsage,
                "--opset " + std::to_string(opset) + " is not supported (supported: " + std::to_string(kMinOpset) +
                    " to " + std::to_string(kMaxOpset) + ")");
}

// Runs `stage`, prefixing any pt2onnx::Error with `context` (the archive's path), so messages
// name the file even when the stage itself only knows an entry name.
template <typename Fn>
auto with_context(const std::string& context, Fn&& stage) {
  try {
    return std::forward<Fn>(stage)();
  } catch (const Error& e) {
    throw e.with_context(context);
  }
}

// A model's parameters, buffers and constants as the archive indexes them (no bytes read).
struct ArchiveTensors {
  std::map<std::string, archive::TensorData> weights;
  std::map<std::string, archive::TensorData> constants;
};

// Reads that index beside the caller (a fifth of the CPU time of a 100k-node conversion: the
// weights config and one zip entry per tensor), while stages that need none of it run (inspect's
// import; convert's clean-up, api/weights_beside_clean.h); get() hands it over, or rethrows its
// error at the point where the caller would have read it. `archive` must outlive the task.
class ArchiveTensorsBeside {
 public:
  ArchiveTensorsBeside(const archive::Archive& archive, std::string model)
      : task_([&archive, model = std::move(model)] {
          return ArchiveTensors{archive.weights(model), archive.constants(model)};
        }) {}
  ArchiveTensors get() { return task_.get(); }

 private:
  SideTask<ArchiveTensors> task_;
};

}  // namespace pt2onnx::api
