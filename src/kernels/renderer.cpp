#include "kernels/renderer.h"

#include <bit>
#include <cstdio>

#include "kernels/kernel_template.h"

namespace pt2onnx::kernels::detail {

int Renderer::add_kernel(const std::string& computes, const std::string& dest_pointer, const Scope& scope,
                         const std::string& body_code, int smem_bytes, std::vector<std::string> grid) {
  Kernel k;
  const int index = static_cast<int>(kernels_.size());
  k.symbol = "pt2o_" + name_ + "_k" + std::to_string(index);
  k.computes = computes;
  k.block = kBlock;
  k.static_smem_hint = smem_bytes;
  Launch launch;
  launch.kernel = index;
  launch.grid = std::move(grid);
  std::string signature;
  auto add_pointer = [&](const std::string& p, bool is_const) {
    signature += std::string(signature.empty() ? "" : ", ") + (is_const ? "const " : "") + buffers_.c_type(p) +
                 "* __restrict__ " + p;
    k.params.push_back({p, ParamType::kPointer, 8});
    launch.args.push_back(buffers_.binding(p));
  };
  add_pointer(dest_pointer, false);
  for (const auto& p : buffers_.pointers())
    if (p != dest_pointer && scope.pointers.count(p)) add_pointer(p, true);
  for (const auto& s : symbols_) {
    signature += ", long long " + s;
    k.params.push_back({s, ParamType::kInt64, 8});
    launch.args.push_back({BindingKind::kInt64, s});
  }
  kernel_code_ += "\n// " + computes + "\nextern \"C\" __global__ void __launch_bounds__(" + std::to_string(kBlock) + ") " +
                  k.symbol + "(" + signature + ") {\n" + body_code + "}\n";
  kernels_.push_back(std::move(k));
  launches_.push_back(std::move(launch));
  return index;
}

std::string Renderer::constant_array(const std::vector<double>& data, bool integral) {
  const std::string name = "p2_c" + std::to_string(next_constant_++);
  // Floats are stored as their bit patterns (read with __uint_as_float): a __device__ array needs
  // constant initialisers, and NVRTC without headers has no constant spelling of inf or NaN.
  std::string text = std::string("__device__ const ") + (integral ? "long long " : "unsigned int ") + name + "[" +
                     std::to_string(data.size()) + "] = {";
  for (size_t i = 0; i < data.size(); ++i) {
    if (i) text += ", ";
    if (integral) {
      text += std::to_string(static_cast<int64_t>(data[i])) + "LL";
    } else {
      char bits[16];
      std::snprintf(bits, sizeof bits, "0x%08xu", std::bit_cast<uint32_t>(static_cast<float>(data[i])));
      text += bits;
    }
  }
  constants_ += text + "};\n";
  return name;
}

std::string Renderer::source() const {
  // The tensor-core helpers only where a kernel uses them (other bundles keep their text).
  const bool mma = kernel_code_.find("p2_mma_") != std::string::npos;
  const bool tf32 = kernel_code_.find("p2_mma_tf32") != std::string::npos;
  return render_template("prelude", {}) + (mma ? render_template("mma_prelude", {}) : std::string()) +
         (tf32 ? render_template("tf32_prelude", {}) : std::string()) + (constants_.empty() ? "" : "\n" + constants_) +
         kernel_code_;
}

}  // namespace pt2onnx::kernels::detail
