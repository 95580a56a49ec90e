// --compile inside convert(): see compile_kernels.h.
#include "api/compile_kernels.h"

#include <algorithm>
#include <filesystem>

#include "common/error.h"

namespace pt2onnx::api {

KernelStage::KernelStage(const ConvertOptions& options, bool plan_only) : options_(options), plan_only_(plan_only) {
  if (options.compile.empty()) return;
  try {
    nvrtc_ = kernels::Nvrtc::load(options.nvrtc);
  } catch (const Error&) {
    if (!plan_only) throw;  // a listing names the files all the same; the conversion will exit 6
  }
  archs_ = kernels::parse_archs(options.archs, nvrtc_ ? nvrtc_->supported_archs() : std::vector<int>{});
}

void KernelStage::prepare(const onnx::ModelProto& model, const ir::TensorValues& value_types,
                          const hierarchy::HierarchyReport& folded, const std::string& domain) {
  if (!active()) return;
  std::vector<std::string> functions;
  for (const auto& type : options_.compile)
    for (const auto& f : folded.types)
      if (f.type == type)
        for (const auto& name : f.functions)
          if (std::find(functions.begin(), functions.end(), name) == functions.end()) functions.push_back(name);
  kernels::GenerateOptions generate;
  generate.tf32 = options_.kernel_tf32;
  plans_ = kernels::plan_bundles(model, value_types, functions, domain, generate);
  if (!plan_only_) compiled_ = kernels::compile_bundles(*nvrtc_, plans_.bundles, archs_);
}

std::vector<std::filesystem::path> KernelStage::planned_files(const std::filesystem::path& output) const {
  const std::filesystem::path dir = options_.kernels_dir.empty() ? output.parent_path() : options_.kernels_dir;
  std::vector<std::filesystem::path> files;
  for (const kernels::PlannedBundle& bundle : plans_.bundles) {
    const std::filesystem::path root = dir / kernels::BundleLayout::dir_name(bundle.plan.bundle);
    for (const auto& rel : kernels::BundleLayout::files(bundle.plan.bundle, archs_)) files.push_back(root / rel);
  }
  return files;
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
