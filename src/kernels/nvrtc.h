// NVRTC, loaded with dlopen at run time so that pt2onnx has no link-time CUDA dependency.
//
// Search order: the explicit path (--nvrtc), else $PT2ONNX_NVRTC (either, when given, is the only
// one tried), else libnvrtc.so.13, libnvrtc.so. A failed load throws Error(kCompile) saying what
// to install. Distinct compile() calls may run on
// different threads at once (each uses its own nvrtcProgram).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace pt2onnx::kernels {

struct NvrtcResult {
  std::vector<char> cubin;
  std::string ptx;  // the PTX the cubin was assembled from
  std::string log;
};

class Nvrtc {
 public:
  // Loads the library and resolves its entry points.
  static Nvrtc load(const std::string& explicit_path = {});

  int version_major() const { return major_; }
  int version_minor() const { return minor_; }
  const std::string& library() const { return library_; }
  // SM numbers NVRTC can compile for, e.g. {75, 80, 86, ..., 121}.
  const std::vector<int>& supported_archs() const { return archs_; }

  // Compiles `source` (named `name` in messages) with `options` to a cubin (and its PTX). Throws Error(kCompile)
  // holding the program log when compilation fails or yields no cubin.
  NvrtcResult compile(const std::string& source, const std::string& name, const std::vector<std::string>& options) const;

 private:
  struct Api;
  std::shared_ptr<const Api> api_;  // entry points; the library itself is never unloaded
  std::string library_;
  int major_ = 0, minor_ = 0;
  std::vector<int> archs_;
};

// Parses "sm_80,sm_90" (also "80", "sm_90a"); throws Error(kUsage) for malformed items or ones
// NVRTC does not support, listing the supported ones. Keeps the given order, drops duplicates.
// An empty `supported` checks the syntax only (--list-outputs without NVRTC to ask).
std::vector<std::string> parse_archs(const std::vector<std::string>& items, const std::vector<int>& supported);

}  // namespace pt2onnx::kernels
