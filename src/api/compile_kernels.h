// The --compile step of convert(): NVRTC is loaded and --arch checked before any work, bundles
// are planned and compiled after --hiera folding, and written after the ONNX model.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "hierarchy/hierarchy.h"
#include "ir/program.h"
#include "kernels/kernels.h"
#include "pt2onnx.h"

namespace pt2onnx::api {

class KernelStage {
 public:
  // No-op when options.compile is empty; else loads NVRTC (Error(kCompile) saying what to
  // install) and validates options.archs (Error(kUsage) listing the supported ones).
  // `plan_only` (list_outputs()): nothing is compiled, and without NVRTC the archs are checked
  // for their syntax only.
  explicit KernelStage(const ConvertOptions& options, bool plan_only = false);
  bool active() const { return !options_.compile.empty(); }
  // Generates and compiles the bundles of the folded functions of the compile types. Refusals
  // are kept for the report; NVRTC failures throw Error(kCompile).
  // `value_types`: translate's (kernels/kernels.h plan_bundles).
  void prepare(const onnx::ModelProto& model, const ir::TensorValues& value_types, const hierarchy::HierarchyReport& folded,
               const std::string& domain);
  // Writes the bundles (after the ONNX) and fills the report. On failure removes the ONNX files
  // named in `report` too, then rethrows.
  void write(ConvertReport& report);
  // After prepare(): the files write() would write for the ONNX at `output` (plan_only too).
  std::vector<std::filesystem::path> planned_files(const std::filesystem::path& output) const;

 private:
  const ConvertOptions& options_;
  bool plan_only_ = false;
  std::optional<kernels::Nvrtc> nvrtc_;
  std::vector<std::string> archs_;
  kernels::BundlePlans plans_;
  std::vector<kernels::CompiledBundle> compiled_;
};

}  // namespace pt2onnx::api
