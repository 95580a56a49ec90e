// dlopen of the CUDA driver and dlsym of its versioned entry points.
#include "cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>

namespace launcher {

namespace {

template <typename F>
bool resolve(void* h, const char* name, F& fn, std::string& why) {
  fn = reinterpret_cast<F>(dlsym(h, name));
  if (!fn) why = std::string("libcuda lacks ") + name;
  return fn != nullptr;
}

}  // namespace

bool Driver::load(std::string& why) {
  const char* env = std::getenv("PT2ONNX_LIBCUDA");
  const std::string path = env && *env ? env : "libcuda.so.1";
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    why = "no CUDA driver (" + path + ": " + (e ? e : "not found") + ")";
    return false;
  }
  return resolve(h, "cuInit", cuInit, why) && resolve(h, "cuDriverGetVersion", cuDriverGetVersion, why) &&
         resolve(h, "cuDeviceGetCount", cuDeviceGetCount, why) && resolve(h, "cuDeviceGet", cuDeviceGet, why) &&
         resolve(h, "cuDeviceGetName", cuDeviceGetName, why) &&
         resolve(h, "cuDeviceGetAttribute", cuDeviceGetAttribute, why) &&
         resolve(h, "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain, why) &&
         resolve(h, "cuDevicePrimaryCtxRelease_v2", cuDevicePrimaryCtxRelease, why) &&
         resolve(h, "cuCtxSetCurrent", cuCtxSetCurrent, why) && resolve(h, "cuCtxSynchronize", cuCtxSynchronize, why) &&
         resolve(h, "cuModuleLoadData", cuModuleLoadData, why) && resolve(h, "cuModuleUnload", cuModuleUnload, why) &&
         resolve(h, "cuModuleGetFunction", cuModuleGetFunction, why) &&
         resolve(h, "cuFuncGetAttribute", cuFuncGetAttribute, why) && resolve(h, "cuMemAlloc_v2", cuMemAlloc, why) &&
         resolve(h, "cuMemFree_v2", cuMemFree, why) && resolve(h, "cuMemcpyHtoD_v2", cuMemcpyHtoD, why) &&
         resolve(h, "cuMemcpyDtoH_v2", cuMemcpyDtoH, why) && resolve(h, "cuMemsetD8_v2", cuMemsetD8, why) &&
         resolve(h, "cuLaunchKernel", cuLaunchKernel, why) && resolve(h, "cuGetErrorString", cuGetErrorString, why) &&
         resolve(h, "cuEventCreate", cuEventCreate, why) && resolve(h, "cuEventRecord", cuEventRecord, why) &&
         resolve(h, "cuEventSynchronize", cuEventSynchronize, why) &&
         (resolve(h, "cuEventElapsedTime_v2", cuEventElapsedTime, why) ||
          resolve(h, "cuEventElapsedTime", cuEventElapsedTime, why)) &&
         resolve(h, "cuEventDestroy_v2", cuEventDestroy, why);
}

void Driver::check(CUresult r, const std::string& what) const {
  if (r == 0) return;
  const char* msg = nullptr;
  if (cuGetErrorString) cuGetErrorString(r, &msg);
  throw std::runtime_error(what + ": CUDA error " + std::to_string(r) + (msg ? std::string(" (") + msg + ")" : ""));
}

}  // namespace launcher
