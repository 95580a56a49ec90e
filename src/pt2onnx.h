// The public API: convert a .pt2 archive to ONNX. The CLI is a thin shell over this.
// Installed as include/pt2onnx.h; PT2ONNX_VERSION_MAJOR/MINOR/PATCH and PT2ONNX_VERSION_STRING
// (pt2onnx_version.h) give the version it belongs to, version() the library's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/function_defaults.h"  // kDefaultFunctionDomain, kDefaultFunctionName
#include "common/limits.h"
#include "common/opsets.h"  // kMinOpset, kMaxOpset, kDefaultOpset
#include "pt2onnx_version.h"

namespace pt2onnx {

namespace config {
struct Config;
}

struct ConvertOptions {
  std::filesystem::path input;
  std::filesystem::path output;  // empty: input with the extension .onnx
  std::string model;             // empty: the only model in the archive
  // --all-models: every model of the archive, each to `<output stem>.<model>.onnx`; with external
  // data they share one data file `<output>.data` (or the archive) where each weight they share
  // is stored once. No weight is derived then (as with `fold` false; weight Transposes stay
  // nodes), so that the models read the same bytes. Excludes `model`.
  bool all_models = false;
  int opset = kDefaultOpset;
  // Where weights from 1 KiB up go: "" embedded in the .onnx (forced to "file" when they would
  // pass the 2 GB protobuf limit); "file": one data file `<output>.data` beside it; "archive":
  // nowhere, the initializers reference their bytes inside the input .pt2 (no weight is derived
  // then: BatchNorm and weight Transposes stay nodes). Any other value is refused (kUsage).
  std::string external_data;
  // At opset 23+, ONNX's fused ops (Attention, RMSNormalization) where they fit; false (--no-fuse):
  // the decomposed forms.
  bool fuse = true;
  // --hiera: module types whose instances become calls of ONNX local functions (class name
  // alone or qualified); empty: a flat graph.
  std::vector<std::string> hiera;
  // Domain and name pattern of --hiera functions ("{class}": the class name, "{qualified}": the
  // qualified class with '_' for '.').
  std::string function_domain = kDefaultFunctionDomain;
  std::string function_name = kDefaultFunctionName;
  // --config: a JSON file (schema/pt2onnx-config.schema.json) whose translation rules apply. Its
  // options are read by options_from_config(); convert() reads only its rules.
  std::filesystem::path config;
  // The config file as options_from_config() read it, so that convert() does not read it again
  // (it reads `config` itself when this is null).
  std::shared_ptr<const config::Config> parsed_config;
  // --compile: module types (implying --hiera) whose functions get a CUDA kernel bundle
  // `<Function>.kernels/` beside the output (or under kernels_dir), for each arch in `archs`.
  std::vector<std::string> compile;
  std::vector<std::string> archs = {"sm_80", "sm_90"};
  std::filesystem::path kernels_dir;  // empty: the output's directory
  // fp32 GEMMs on tensor cores with TF32 operands (rounded to 10 mantissa bits), fp32 accumulation.
  bool kernel_tf32 = false;
  std::string nvrtc;                  // NVRTC library to dlopen; empty: $PT2ONNX_NVRTC, libnvrtc.so.13, libnvrtc.so
  // --dim-name KEY=NAME: the ONNX name of a dynamic dim. KEY is an export symbol ("s72") or
  // INPUT.DIM ("input_ids.0"); unnamed dims keep the export's symbol.
  std::map<std::string, std::string> dim_names;
  // --strict: every warning (a config rule or --hiera type that matches nothing, external data
  // forced by size, ...) fails the conversion with ErrorCode::kStrict, nothing written.
  bool strict = false;
  // Called as weights are written, with the bytes written so far and the total (a progress line).
  std::function<void(int64_t done, int64_t total)> on_weight_progress;
  // false (--no-fold): inference BatchNorm stays a BatchNormalization node instead of being
  // folded into the Conv/Gemm before it (weights then appear exactly as in the archive).
  bool fold = true;
  // --matmul-nbits: Linear layers on int4/uint4 weights (blocked along K) become onnxruntime's
  // com.microsoft.MatMulNBits instead of standard DequantizeLinear + MatMul.
  bool matmul_nbits = false;
};

struct StageTiming {
  std::string stage;  // read, import, translate, clean, hierarchy, emit, kernels
  double seconds = 0;
};

// After one run of a stage (a stage may run more than once): the process's resident memory and
// its high-water mark so far (Linux /proc/self/status VmRSS, VmHWM), i.e. what it left alive.
struct StageMemory {
  std::string stage;
  int64_t rss_bytes = 0;
  int64_t peak_bytes = 0;
};

struct KernelBundleReport {
  std::string function;
  std::filesystem::path dir;
  int kernels = 0;
  int64_t bytes = 0;
};

struct ConvertReport {
  std::string model;  // --all-models: the models' names, comma-separated
  std::filesystem::path output;
  std::filesystem::path external_data;  // empty when weights are embedded
  int64_t nodes_in = 0;    // FX nodes read
  int64_t nodes_out = 0;   // ONNX nodes written (main graph)
  int64_t functions_out = 0;  // local functions written (--hiera)
  int64_t weight_count = 0;
  int64_t weight_bytes = 0;             // written (embedded or into the data file)
  int64_t weight_bytes_referenced = 0;  // --external-data=archive: referenced inside the archive
  std::string archive_location;         // --external-data=archive: the location the ONNX names
  std::vector<std::string> warnings;
  std::vector<KernelBundleReport> kernel_bundles;  // --compile: bundles written
  // --compile: functions refused (an op or dtype without a kernel template), one line each; the
  // ONNX is written all the same and the CLI exits with status 4.
  std::vector<std::string> kernels_refused;
  std::vector<StageTiming> stages;  // in pipeline order
  std::vector<StageMemory> memory;  // after each stage run, in order; empty where /proc is not
  // The files the conversion read (the archive, the config) and wrote (the .onnx, its data
  // file, each kernel bundle's manifest.json), as given or resolved: what --depfile lists.
  std::vector<std::filesystem::path> inputs;
  std::vector<std::filesystem::path> outputs;
  // --all-models: one report per model (the fields above then sum or list them all; `output` is
  // the first model's), and the weights found already stored by an earlier model.
  std::vector<ConvertReport> per_model;
  int64_t shared_weights = 0;
  int64_t shared_bytes = 0;
};

// Converts; throws pt2onnx::Error. On failure nothing is left at the output paths.
ConvertReport convert(const ConvertOptions& options);

// What convert() would write, without writing anything: report.outputs lists every file (the
// .onnx, its data file when one would be written, each kernel bundle's manifest.json, src/*.cu
// and <arch>/*.cubin), report.inputs what it reads. NVRTC is not needed (the archs are then
// checked for their syntax only); bundles of functions that have no kernel are not listed.
ConvertReport list_outputs(const ConvertOptions& options);

// The options a config file sets (defaults for the others), with `config` set to it. The CLI
// starts from these and lets the flags given on the command line override them. Throws
// Error(kUsage) naming the file and the JSON path of a bad field.
ConvertOptions options_from_config(const std::filesystem::path& config);

// A Make-format depfile for a finished conversion, `outputs: inputs` with absolute paths ('$'
// written '$$', spaces, '#' and '\\' escaped with '\\'). Throws Error(kUsage) for a path that
// a depfile cannot hold (a newline, or a ':' that Make would read as a separator).
std::string render_depfile(const ConvertReport& report);

// An op that has a built-in rule and the opsets (within kMinOpset..kMaxOpset) where one applies.
struct OpCoverage {
  std::string target;  // "aten.linear.default"
  std::vector<int> opsets;
  bool decomposed = false;  // rewritten into other aten ops before translation
};
// Every op with a rule or a decomposition, sorted by target; with `opset` > 0 only the ops supported there.
std::vector<OpCoverage> supported_ops(int opset = 0);

// The library's version, PT2ONNX_VERSION_STRING when it was built.
const char* version();

}  // namespace pt2onnx
