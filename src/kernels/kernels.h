// --compile: kernel bundles for the ONNX local functions of chosen module types.
//
// For each function, pt2onnx generates CUDA C from the function body (codegen.h), compiles it
// with NVRTC (nvrtc.h) for every requested architecture, checks every cubin with its own ELF
// reader (cubin.h), and writes `<Function>.kernels/` with manifest.json, src/<Function>.cu and
// sm_XX/<Function>.cubin. The ONNX model is never changed.
//
// The work is split so that convert() can refuse early and write atomically:
//   plan_bundles()    types + code generation; refusals are collected, not thrown;
//   compile_bundles() NVRTC, in parallel over (function, arch); throws Error(kCompile);
//   write_bundles()   each directory written to a temporary name, then renamed into place.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/program.h"
#include "kernels/codegen.h"
#include "kernels/nvrtc.h"

namespace pt2onnx::kernels {

struct CallSite {
  std::string node;
  std::vector<std::string> inputs, outputs;
};

struct PlannedBundle {
  KernelPlan plan;
  std::vector<CallSite> call_sites;
};

struct Refusal {
  std::string function;
  std::string reason;
};

struct BundlePlans {
  std::vector<PlannedBundle> bundles;
  std::vector<Refusal> refused;
};

// `functions`: names of local functions (in `domain`) to compile. Input types come from the call
// sites in the main graph: graph inputs, initializers, or the tensor metadata of the FX value of
// the same name (`value_types`, translate's). Call sites that disagree on a dimension make it a fresh symbol
// named <input>_d<axis>. A type called only inside other functions gets one bundle per distinct
// input signature of those calls (<Function>_s<i> when there are several; codegen.h).
BundlePlans plan_bundles(const onnx::ModelProto& model, const ir::TensorValues& value_types,
                         const std::vector<std::string>& functions, const std::string& domain,
                         const GenerateOptions& options = {});

struct CompiledImage {
  std::string arch;  // "sm_80"
  std::vector<char> cubin;
  std::string ptx;  // written as src/<name>.<arch>.ptx beside the source
  std::vector<std::string> options;
  std::string log;
  std::map<std::string, std::pair<int, uint64_t>> resources;  // symbol -> (registers, .nv.shared bytes)
};

struct CompiledBundle {
  const PlannedBundle* planned = nullptr;
  std::vector<CompiledImage> images;  // in --arch order
};

// Compiles every (bundle, arch) on up to `threads` threads (0: hardware concurrency) and checks
// each cubin (architecture, entry symbols, parameter sizes). Throws Error(kCompile).
std::vector<CompiledBundle> compile_bundles(const Nvrtc& nvrtc, const std::vector<PlannedBundle>& bundles,
                                            const std::vector<std::string>& archs, unsigned threads = 0);

// The manifest JSON text (ends with a newline). `model_file` is the ONNX file name it refers to.
std::string manifest_json(const CompiledBundle& bundle, int nvrtc_major, int nvrtc_minor, const std::string& model_file);

// The files of `<Function>.kernels/`, relative to it: one place that names them, for the writer
// and for --list-outputs. Every image has its cubin and the PTX of the same compile.
struct BundleLayout {
  static std::filesystem::path dir_name(const std::string& function) { return function + ".kernels"; }
  static std::filesystem::path manifest() { return "manifest.json"; }
  static std::filesystem::path source(const std::string& function) { return std::filesystem::path("src") / (function + ".cu"); }
  static std::filesystem::path cubin(const std::string& function, const std::string& arch) {
    return std::filesystem::path(arch) / (function + ".cubin");
  }
  static std::filesystem::path ptx(const std::string& function, const std::string& arch) {
    return std::filesystem::path("src") / (function + "." + arch + ".ptx");
  }
  static std::vector<std::filesystem::path> files(const std::string& function, const std::vector<std::string>& archs) {
    std::vector<std::filesystem::path> out{manifest(), source(function)};
    for (const std::string& arch : archs) {
      out.push_back(cubin(function, arch));
      out.push_back(ptx(function, arch));
    }
    return out;
  }
};

struct WrittenBundle {
  std::string function;
  std::filesystem::path dir;
  int kernels = 0;
  int64_t bytes = 0;  // all files
};

// Writes `<dir>/<Function>.kernels/` for each bundle, replacing an older one. A failure removes
// what this call wrote. Throws Error(kOutput).
std::vector<WrittenBundle> write_bundles(const std::vector<CompiledBundle>& bundles, int nvrtc_major, int nvrtc_minor,
                                         const std::filesystem::path& dir, const std::string& model_file);

}  // namespace pt2onnx::kernels
