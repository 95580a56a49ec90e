// --compile inside convert(): see compile_kernels.h.
#include "api/compile_kernels.h"

#include <algorithm>
#include <filesystem>

#include "common/error.h"

namespace pt2onnx::api {

KernelStage::KernelStage(const ConvertOptions& options) : options_(options) {
  if (options.compile.empty()) return;
  nvrtc_ = kernels::Nvrtc::load(options.nvrtc);
  archs_ = kernels::parse_archs(options.archs, nvrtc_->supported_archs());
}

void KernelStage::add_hiera_types(std::vector<std::string>& types) const {
  for (const auto& t : options_.compile)
    if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
}

void KernelStage::prepare(const onnx::ModelProto& model, const ir::Program& program,
                          const hierarchy::HierarchyReport& folded, const std::string& domain) {
  if (!active()) return;
  std::vector<std::string> functions;
  for (const auto& type : options_.compile)
    for (const auto& f : folded.types)
      if (f.type == type)
        for (const auto& name : f.functions)
          if (std::find(functions.begin(), functions.end(), name) == functions.end()) functions.push_back(name);
  plans_ = kernels::plan_bundles(model, program, functions, domain);
  compiled_ = kernels::compile_bundles(*nvrtc_, plans_.bundles, archs_);
}

void KernelStage::write(ConvertReport& report) {
  if (!active()) return;
  for (const auto& r : plans_.refused) report.kernels_refused.push_back(r.reason);
  try {
    const std::filesystem::path dir =
        options_.kernels_dir.empty() ? report.output.parent_path() : options_.kernels_dir;
    for (const auto& w : kernels::write_bundles(compiled_, nvrtc_->version_major(), nvrtc_->version_minor(), dir, report.output.filename().string()))
      report.kernel_bundles.push_back({w.function, w.dir, w.kernels, w.bytes});
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(report.output, ec);
    if (!report.external_data.empty()) std::filesystem::remove(report.external_data, ec);
    throw;
  }
}

}  // namespace pt2onnx::api
