// NVRTC through dlopen/dlsym: only the dozen entry points pt2onnx uses, with C-compatible
// signatures declared here (no CUDA headers needed at build time).
#include "kernels/nvrtc.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/error.h"

namespace pt2onnx::kernels {

namespace {

using Program = void*;  // nvrtcProgram is an opaque pointer
using Status = int;     // nvrtcResult; 0 = NVRTC_SUCCESS

}  // namespace

struct Nvrtc::Api {
  const char* (*get_error_string)(Status);
  Status (*version)(int*, int*);
  Status (*num_supported_archs)(int*);
  Status (*supported_archs)(int*);
  Status (*create_program)(Program*, const char*, const char*, int, const char* const*, const char* const*);
  Status (*destroy_program)(Program*);
  Status (*compile_program)(Program, int, const char* const*);
  Status (*log_size)(Program, size_t*);
  Status (*log)(Program, char*);
  Status (*cubin_size)(Program, size_t*);
  Status (*cubin)(Program, char*);
  Status (*ptx_size)(Program, size_t*);
  Status (*ptx)(Program, char*);
};

namespace {

template <typename F>
void resolve(void* handle, const char* name, F& fn, const std::string& library) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
  PT2ONNX_CHECK(fn != nullptr, ErrorCode::kCompile, library + " lacks " + name + " (is it NVRTC 12 or newer?)");
}

}  // namespace

Nvrtc Nvrtc::load(const std::string& explicit_path) {
  // A library the user named, by --nvrtc or by $PT2ONNX_NVRTC, is the only one tried: a bad
  // name fails by that name instead of silently falling back to another NVRTC.
  std::vector<std::string> candidates;
  const char* env = std::getenv("PT2ONNX_NVRTC");
  if (!explicit_path.empty()) {
    candidates.push_back(explicit_path);
  } else if (env != nullptr && *env != '\0') {
    candidates.push_back(env);
  } else {
    candidates.push_back("libnvrtc.so.13");
    candidates.push_back("libnvrtc.so");
  }
  void* handle = nullptr;
  std::string tried, library;
  for (const auto& c : candidates) {
    handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      library = c;
      break;
    }
    const char* why = dlerror();
    tried += (tried.empty() ? "" : "; ") + c + (why ? std::string(" (") + why + ")" : std::string());
  }
  PT2ONNX_CHECK(handle != nullptr, ErrorCode::kCompile,
                "--compile needs NVRTC, the CUDA runtime compiler, which could not be loaded (tried " + tried +
                    "). Install the CUDA toolkit's NVRTC (Debian/NVIDIA repo: cuda-nvrtc-13-0, or "
                    "libnvrtc from the toolkit) and put its lib64 on the loader path, or name the library "
                    "with --nvrtc PATH or PT2ONNX_NVRTC");
  auto api = std::make_shared<Api>();
  resolve(handle, "nvrtcGetErrorString", api->get_error_string, library);
  resolve(handle, "nvrtcVersion", api->version, library);
  resolve(handle, "nvrtcGetNumSupportedArchs", api->num_supported_archs, library);
  resolve(handle, "nvrtcGetSupportedArchs", api->supported_archs, library);
  resolve(handle, "nvrtcCreateProgram", api->create_program, library);
  resolve(handle, "nvrtcDestroyProgram", api->destroy_program, library);
  resolve(handle, "nvrtcCompileProgram", api->compile_program, library);
  resolve(handle, "nvrtcGetProgramLogSize", api->log_size, library);
  resolve(handle, "nvrtcGetProgramLog", api->log, library);
  resolve(handle, "nvrtcGetCUBINSize", api->cubin_size, library);
  resolve(handle, "nvrtcGetCUBIN", api->cubin, library);
  resolve(handle, "nvrtcGetPTXSize", api->ptx_size, library);
  resolve(handle, "nvrtcGetPTX", api->ptx, library);

  Nvrtc n;
  n.api_ = api;
  n.library_ = library;
  PT2ONNX_CHECK(api->version(&n.major_, &n.minor_) == 0, ErrorCode::kCompile, library + ": nvrtcVersion failed");
  PT2ONNX_CHECK(n.major_ >= 12, ErrorCode::kCompile,
                library + " is NVRTC " + std::to_string(n.major_) + "." + std::to_string(n.minor_) + "; 12 or newer is needed");
  int count = 0;
  PT2ONNX_CHECK(api->num_supported_archs(&count) == 0 && count > 0, ErrorCode::kCompile,
                library + ": nvrtcGetNumSupportedArchs failed");
  n.archs_.resize(static_cast<size_t>(count));
  PT2ONNX_CHECK(api->supported_archs(n.archs_.data()) == 0, ErrorCode::kCompile, library + ": nvrtcGetSupportedArchs failed");
  return n;
}

NvrtcResult Nvrtc::compile(const std::string& source, const std::string& name,
                           const std::vector<std::string>& options) const {
  PT2ONNX_CHECK(api_ != nullptr, ErrorCode::kInternal, "NVRTC used before load()");
  Program program = nullptr;
  Status s = api_->create_program(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  PT2ONNX_CHECK(s == 0, ErrorCode::kCompile, name + ": nvrtcCreateProgram: " + api_->get_error_string(s));
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  const Status compiled = api_->compile_program(program, static_cast<int>(argv.size()), argv.data());
  NvrtcResult result;
  size_t log_size = 0;
  if (api_->log_size(program, &log_size) == 0 && log_size > 1) {
    result.log.resize(log_size);
    api_->log(program, result.log.data());
    result.log.resize(log_size - 1);  // drop the terminating NUL
  }
  if (compiled == 0) {
    size_t size = 0;
    if (api_->cubin_size(program, &size) == 0 && size > 0) {
      result.cubin.resize(size);
      api_->cubin(program, result.cubin.data());
    }
    // The PTX NVRTC made on the way to the cubin (NUL-terminated).
    if (api_->ptx_size(program, &size) == 0 && size > 1) {
      result.ptx.resize(size);
      api_->ptx(program, result.ptx.data());
      result.ptx.resize(size - 1);
    }
  }
  api_->destroy_program(&program);
  PT2ONNX_CHECK(compiled == 0, ErrorCode::kCompile,
                name + ": NVRTC failed (" + api_->get_error_string(compiled) + "): " + result.log);
  PT2ONNX_CHECK(!result.cubin.empty(), ErrorCode::kCompile, name + ": NVRTC produced no cubin (virtual architecture?)");
  PT2ONNX_CHECK(!result.ptx.empty(), ErrorCode::kCompile, name + ": NVRTC produced no PTX");
  return result;
}

std::vector<std::string> parse_archs(const std::vector<std::string>& items, const std::vector<int>& supported) {
  std::string listed;
  for (int a : supported) listed += (listed.empty() ? "sm_" : ", sm_") + std::to_string(a);
  std::vector<std::string> out;
  for (std::string item : items) {
    if (item.rfind("sm_", 0) == 0) item = item.substr(3);
    size_t digits = 0;
    while (digits < item.size() && std::isdigit(static_cast<unsigned char>(item[digits]))) ++digits;
    const std::string suffix = item.substr(digits);
    PT2ONNX_CHECK(digits >= 2 && digits <= 3 && (suffix.empty() || suffix == "a" || suffix == "f"), ErrorCode::kUsage,
                  "--arch: '" + item + "' is not an architecture like sm_80 or sm_90a (supported: " + listed + ")");
    const int sm = std::stoi(item.substr(0, digits));
    PT2ONNX_CHECK(supported.empty() || std::find(supported.begin(), supported.end(), sm) != supported.end(), ErrorCode::kUsage,
                  "--arch: sm_" + item + " is not supported by this NVRTC (supported: " + listed + ")");
    const std::string name = "sm_" + item;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  PT2ONNX_CHECK(!out.empty(), ErrorCode::kUsage, "--arch: no architecture given (supported: " + listed + ")");
  return out;
}

}  // namespace pt2onnx::kernels
