// option_table(): see option_table.h.
#include "config/option_table.h"

#include <cctype>
#include <sstream>

namespace pt2onnx::config {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string function_name_error(const std::string& pattern) {
  if (pattern.find("{class}") == std::string::npos && pattern.find("{qualified}") == std::string::npos)
    return "'" + pattern + "' must contain {class} or {qualified}, or every type would get the same name";
  return "";
}

using K = OptionKind;

std::vector<OptionSpec> make_table() {
  const std::string opsets = std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset);
  // clang-format off
  return {
    OptionSpec{"input", "input", K::kValue, "FILE", "the .pt2 archive to convert",
     [](RunOptions& o) -> OptionField { return &o.convert.input; }},
    OptionSpec{"-o,--output", "output", K::kValue, "FILE", "output .onnx (default: the input with the extension .onnx)",
     [](RunOptions& o) -> OptionField { return &o.convert.output; }},
    OptionSpec{"--opset", "opset", K::kValue, "N", "ONNX opset (" + opsets + ")",
     [](RunOptions& o) -> OptionField { return &o.convert.opset; }}.with_default().range(kMinOpset, kMaxOpset),
    OptionSpec{"--external-data", "external_data", K::kFlagValue, "[=archive]",
     "store weights in one file beside the .onnx (automatic above 2 GB); =archive: copy none, the .onnx references "
     "them inside the .pt2 (STORED entries; BatchNorm, weight transposes and weight shifts then stay nodes)",
     [](RunOptions& o) -> OptionField { return &o.convert.external_data; }}.valued("file").checked(external_data_error),
    OptionSpec{"--model", "model", K::kValue, "NAME", "which model of an archive that holds several",
     [](RunOptions& o) -> OptionField { return &o.convert.model; }},
    OptionSpec{"--all-models", "all_models", K::kSwitch, "",
     "convert every model of the archive, each to OUT-stem.<model>.onnx; with --external-data they share one "
     "data file OUT.data (or the archive) holding each shared weight once",
     [](RunOptions& o) -> OptionField { return &o.convert.all_models; }}.excluding("--model"),
    OptionSpec{"--hiera", "hiera", K::kRepeated, "TYPE",
     "module type (class name, or qualified) whose instances become ONNX local functions; repeatable",
     [](RunOptions& o) -> OptionField { return &o.convert.hiera; }},
    OptionSpec{"--function-domain", "functions.domain", K::kValue, "DOMAIN", "domain of --hiera functions",
     [](RunOptions& o) -> OptionField { return &o.convert.function_domain; }}.with_default().checked(domain_error),
    OptionSpec{"--function-name", "functions.name", K::kValue, "PATTERN",
     "name pattern of --hiera functions: {class} (class name) or {qualified} (qualified class, '_' for '.')",
     [](RunOptions& o) -> OptionField { return &o.convert.function_name; }}.with_default().checked(function_name_error),
    OptionSpec{"--compile", "compile", K::kRepeated, "TYPE",
     "module type whose functions also get a CUDA kernel bundle <Function>.kernels/ (implies --hiera); "
     "repeatable; needs NVRTC",
     [](RunOptions& o) -> OptionField { return &o.convert.compile; }},
    OptionSpec{"--arch", "arch", K::kCommaList, "ARCHS", "--compile: GPU architectures, comma-separated",
     [](RunOptions& o) -> OptionField { return &o.convert.archs; }}.with_default(),
    OptionSpec{"--kernels-dir", "kernels_dir", K::kValue, "DIR", "--compile: where bundles go (default: beside the .onnx)",
     [](RunOptions& o) -> OptionField { return &o.convert.kernels_dir; }},
    OptionSpec{"--kernel-tf32", "kernel_tf32", K::kSwitch, "",
     "--compile: fp32 GEMMs on tensor cores with TF32 operands (10-bit mantissa, fp32 accumulation; sm_80+); off by default",
     [](RunOptions& o) -> OptionField { return &o.convert.kernel_tf32; }},
    OptionSpec{"--nvrtc", "nvrtc", K::kValue, "LIB", "--compile: the NVRTC library to load (default: $PT2ONNX_NVRTC, libnvrtc.so.13)",
     [](RunOptions& o) -> OptionField { return &o.convert.nvrtc; }},
    OptionSpec{"--dim-name", "dim_names", K::kKeyValue, "KEY=NAME",
     "name a dynamic dim in the ONNX; KEY is an export symbol (s72, see inspect) or INPUT.DIM (input_ids.0); repeatable",
     [](RunOptions& o) -> OptionField { return &o.convert.dim_names; }},
    OptionSpec{"--config", "", K::kValue, "FILE",
     "JSON config (schema/pt2onnx-config.schema.json): options and translation rules; flags given here override "
     "its options, --hiera adds to its types",
     [](RunOptions& o) -> OptionField { return &o.convert.config; }},
    OptionSpec{"--strict", "strict", K::kSwitch, "",
     "treat every warning (a config rule or --hiera type that matches nothing, ...) as an error, exit 8",
     [](RunOptions& o) -> OptionField { return &o.convert.strict; }},
    OptionSpec{"--depfile", "", K::kValue, "FILE",
     "also write a Make-format depfile: the files written, depending on the archive and the config",
     [](RunOptions& o) -> OptionField { return &o.depfile; }},
    OptionSpec{"--report", "", K::kValue, "FILE",
     "also write a JSON record of the run (schema/pt2onnx-report.schema.json), on failure too",
     [](RunOptions& o) -> OptionField { return &o.report; }},
    OptionSpec{"--list-outputs", "", K::kSwitch, "",
     "print the files the conversion would write (the .onnx, its data file, every kernel bundle file), one a "
     "line, and write nothing; NVRTC is not needed (pt2onnx_convert declares its outputs with this)",
     [](RunOptions& o) -> OptionField { return &o.list_outputs; }},
    OptionSpec{"-v,--verbose", "", K::kSwitch, "", "print details of the conversion: stage timings, counts",
     [](RunOptions& o) -> OptionField { return &o.verbose; }},
    OptionSpec{"-q,--quiet", "", K::kSwitch, "", "print nothing on success, no progress line",
     [](RunOptions& o) -> OptionField { return &o.quiet; }}.excluding("--verbose"),
    OptionSpec{"--no-fuse", "", K::kSwitchOff, "",
     "at opset 23+, keep attention and RMS norm decomposed instead of ONNX Attention/RMSNormalization",
     [](RunOptions& o) -> OptionField { return &o.convert.fuse; }},
    OptionSpec{"--matmul-nbits", "matmul_nbits", K::kSwitch, "",
     "Linear layers on int4/uint4 weights in blocks along K become onnxruntime's com.microsoft.MatMulNBits "
     "(what onnxruntime-genai runs); default: standard DequantizeLinear + MatMul",
     [](RunOptions& o) -> OptionField { return &o.convert.matmul_nbits; }},
    OptionSpec{"--no-fold", "", K::kSwitchOff, "",
     "keep weights as in the archive: inference BatchNorm stays its own node instead of folding into the "
     "Conv/Gemm before it, and weight norms, weight Transposes and scalar shifts of weights (1 + weight) stay nodes",
     [](RunOptions& o) -> OptionField { return &o.convert.fold; }},
  };
  // clang-format on
}

}  // namespace

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = make_table();
  return table;
}

const OptionSpec* option_by_config_key(std::string_view key) {
  for (const OptionSpec& spec : option_table())
    if (!spec.config_key.empty() && spec.config_key == key) return &spec;
  return nullptr;
}

OptionField field_of(const OptionSpec& spec, RunOptions& options) { return spec.field(options); }

OptionField field_of(const OptionSpec& spec, const RunOptions& options) {
  return spec.field(const_cast<RunOptions&>(options));  // only read through by the callers
}

void merge_option(const OptionSpec& spec, const RunOptions& from, RunOptions& to) {
  const OptionField source = field_of(spec, from);
  const OptionField target = field_of(spec, to);
  std::visit(
      [&](auto* dst) {
        using T = std::remove_pointer_t<decltype(dst)>;
        const T& src = *std::get<T*>(source);
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          if (spec.kind == OptionKind::kRepeated) dst->insert(dst->end(), src.begin(), src.end());
          else *dst = src;
        } else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>) {
          for (const auto& [key, value] : src) (*dst)[key] = value;
        } else {
          *dst = src;
        }
      },
      target);
}

std::string external_data_error(const std::string& mode) {
  if (mode == "file" || mode == "archive") return "";
  return "'" + mode + "' is not a kind of external data (file, or archive: the weights' bytes inside the .pt2)";
}

std::string domain_error(const std::string& domain) {
  if (domain.empty()) return "must not be empty";
  if (domain == "ai.onnx" || domain == "ai.onnx.ml" || domain == "ai.onnx.preview.training")
    return "'" + domain + "' is a standard ONNX domain; use a domain of your own";
  std::stringstream parts(domain);
  bool ok = domain.back() != '.';
  for (std::string part; std::getline(parts, part, '.');) ok = ok && is_identifier(part);
  return ok ? "" : "'" + domain + "' is not a domain (dot-separated identifiers, e.g. com.example.ops)";
}

}  // namespace pt2onnx::config
