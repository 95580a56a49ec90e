// Helpers shared by convert() and inspect(): the opset check, the choice of models, error context
// per stage, and the weights' index read beside another stage.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

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

// `requested`, when the archive holds a model of that name; else Error(kUsage) listing its models.
inline std::string model_named(const archive::Archive& archive, const std::vector<std::string>& names,
                               const std::string& requested) {
  if (std::find(names.begin(), names.end(), requested) != names.end()) return requested;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  fail(ErrorCode::kUsage, archive.path().string() + ": no model '" + requested + "' (models: " + list + ")");
}

// The models to read (inspect): the one `requested` names, else all of them; Error(kArchive) when
// the archive holds none.
inline std::vector<std::string> choose_models(const archive::Archive& archive, const std::string& requested) {
  std::vector<std::string> names = archive.model_names();
  PT2ONNX_CHECK(!names.empty(), ErrorCode::kArchive, archive.path().string() + ": the archive holds no model");
  if (requested.empty()) return names;
  return {model_named(archive, names, requested)};
}

// The one model a conversion reads: `requested`, or the archive's only one (Error(kUsage) listing
// them when it holds several).
inline std::string choose_model(const archive::Archive& archive, const std::string& requested) {
  if (!requested.empty()) return model_named(archive, archive.model_names(), requested);
  const std::vector<std::string> names = choose_models(archive, requested);
  if (names.size() != 1) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    fail(ErrorCode::kUsage,
         archive.path().string() + ": the archive holds several models (" + list + "); choose one with --model");
  }
  return names.front();
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

// Reads that index beside the caller (a large share of a big conversion's CPU time: the weights
// config and one zip entry per tensor), while stages that need none of it run (inspect's
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
