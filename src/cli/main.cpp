// pt2onnx command line: parses flags, calls pt2onnx::convert (or, for `pt2onnx inspect`,
// pt2onnx::inspect), maps errors to exit codes.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <utility>

#include "api/inspect.h"
#include "cli/limit_flags.h"
#include "common/error.h"
#include "pt2onnx.h"

namespace {

// Error messages are printed on one line: embedded newlines (e.g. from stack traces in the
// archive) would split them.
// Length of the well-formed UTF-8 sequence starting at text[i] (1 for ASCII), or 0 if none.
size_t utf8_length(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  const size_t n = lead >= 0xc2 && lead <= 0xdf ? 2 : (lead & 0xf0) == 0xe0 ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  if (n == 3 && ((lead == 0xe0 && byte(i + 1) < 0xa0) || (lead == 0xed && byte(i + 1) >= 0xa0))) return 0;  // overlong, surrogate
  if (n == 4 && ((lead == 0xf0 && byte(i + 1) < 0x90) || (lead == 0xf4 && byte(i + 1) >= 0x90))) return 0;  // overlong, > U+10FFFF
  return n;
}

// A message as one printable line: newlines become spaces; other control bytes and bytes that
// are not UTF-8 (names from a corrupted file end up in messages) become \xNN.
std::string one_line(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t n = utf8_length(text, i);
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (n == 0 || c < 0x20 || c == 0x7f) {
      static const char* const kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out.append(text, i, n);
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

std::string human_bytes(int64_t bytes) {
  char buf[32];
  if (bytes >= (int64_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f kB", static_cast<double>(bytes) / 1024);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pt2onnx: convert a PyTorch .pt2 archive (torch.export.save) to ONNX, without Python."};
  app.set_version_flag("--version", std::string("pt2onnx ") + pt2onnx::version());

  pt2onnx::ConvertOptions options;
  std::string input, output;
  bool verbose = false, quiet = false;
  // Not ->required(): `pt2onnx inspect X.pt2` leaves it empty; checked after parsing instead.
  app.add_option("input", input, "the .pt2 archive to convert");
  app.add_option("-o,--output", output, "output .onnx (default: the input with the extension .onnx)");
  app.add_option("--opset", options.opset,
                 "ONNX opset (" + std::to_string(pt2onnx::kMinOpset) + " to " +
                     std::to_string(pt2onnx::kMaxOpset) + ")")
      ->default_val(options.opset);
  app.add_flag("--external-data", options.external_data,
               "store weights in one file beside the .onnx (automatic above 2 GB)");
  app.add_option("--model", options.model, "which model of an archive that holds several");
  app.add_option("--hiera", options.hiera,
                 "module type (class name, or qualified) whose instances become ONNX local functions; repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--function-domain", options.function_domain, "domain of --hiera functions")
      ->default_val(options.function_domain);
  app.add_option("--function-name", options.function_name,
                 "name pattern of --hiera functions: {class} (class name) or {qualified} (qualified class, '_' for '.')")
      ->default_val(options.function_name);
  app.add_option("--compile", options.compile,
                 "module type whose functions also get a CUDA kernel bundle <Function>.kernels/ (implies --hiera); "
                 "repeatable; needs NVRTC")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--arch", options.archs, "--compile: GPU architectures, comma-separated (default sm_80,sm_90)")
      ->delimiter(',')
      ->take_last();
  std::string kernels_dir;
  app.add_option("--kernels-dir", kernels_dir, "--compile: where bundles go (default: beside the .onnx)");
  app.add_option("--nvrtc", options.nvrtc, "--compile: the NVRTC library to load (default: $PT2ONNX_NVRTC, libnvrtc.so.13)");
  std::vector<std::string> dim_name_flags;
  app.add_option("--dim-name", dim_name_flags,
                 "KEY=NAME: name a dynamic dim in the ONNX; KEY is an export symbol (s72, see inspect) or "
                 "INPUT.DIM (input_ids.0); repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  std::string config_path;
  app.add_option("--config", config_path,
                 "JSON config (schema/pt2onnx-config.schema.json): options and translation rules; flags given "
                 "here override its options, --hiera adds to its types");
  app.add_flag("-v,--verbose", verbose, "print details of the conversion");
  app.add_flag("-q,--quiet", quiet, "print nothing on success");

  CLI::App* inspect_command = app.add_subcommand(
      "inspect", "describe a .pt2 archive: versions, modules, inputs and outputs, weights, ops (unsupported marked)");
  pt2onnx::InspectOptions inspect_options;
  std::string inspect_input;
  bool inspect_json = false;
  inspect_command->add_option("input", inspect_input, "the .pt2 archive")->required();
  inspect_command->add_option("--model", inspect_options.model, "only this model (default: every model)");
  inspect_command->add_option("--opset", inspect_options.opset, "check ops against this ONNX opset")
      ->default_val(inspect_options.opset);
  inspect_command->add_flag("--json", inspect_json, "print one JSON document instead of text");
  inspect_command->add_option("--config", inspect_options.config,
                              "count ops that this config's op rules translate as handled");
  // --limit NAME=N (common/limits.h), for conversion and inspect alike.
  std::vector<std::string> limit_flags;
  pt2onnx::cli::add_limit_option(app, limit_flags);
  pt2onnx::cli::add_limit_option(*inspect_command, limit_flags);

  try {
    app.parse(argc, argv);
    if (!inspect_command->parsed() && input.empty() && config_path.empty()) throw CLI::RequiredError("input");
    // Whatever the top-level app parsed belongs to conversion (inspect's own options follow it).
    if (inspect_command->parsed())
      for (const CLI::Option* given : app.get_options())
        if (given->count() > 0 && given->get_name() != "--limit")
          throw CLI::ValidationError(given->get_name() + " is for conversion, not for inspect");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "pt2onnx: error: " << one_line(e.what()) << " (see --help)\n";
    return static_cast<int>(pt2onnx::ErrorCode::kUsage);
  }
  if (std::string bad_limit = pt2onnx::cli::apply_limit_flags(limit_flags); !bad_limit.empty()) {
    std::cerr << "pt2onnx: error: " << one_line(bad_limit) << "\n";
    return static_cast<int>(pt2onnx::ErrorCode::kUsage);
  }
  options.input = input;
  options.output = output;
  for (const std::string& flag : dim_name_flags) {
    const size_t eq = flag.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == flag.size()) {
      std::cerr << "pt2onnx: error: --dim-name " << one_line(flag) << ": expected KEY=NAME, e.g. --dim-name input_ids.0=batch\n";
      return static_cast<int>(pt2onnx::ErrorCode::kUsage);
    }
    options.dim_names[flag.substr(0, eq)] = flag.substr(eq + 1);
  }
  inspect_options.input = inspect_input;

  try {
    if (!config_path.empty()) {
      // The config's options, then whatever the command line gave explicitly.
      pt2onnx::ConvertOptions merged = pt2onnx::options_from_config(config_path);
      auto given = [&](const char* flag) { return app.count(flag) > 0; };
      if (!input.empty()) merged.input = options.input;
      if (given("--output")) merged.output = options.output;
      if (given("--opset")) merged.opset = options.opset;
      if (given("--external-data")) merged.external_data = options.external_data;
      if (given("--model")) merged.model = options.model;
      if (given("--function-domain")) merged.function_domain = options.function_domain;
      if (given("--function-name")) merged.function_name = options.function_name;
      merged.hiera.insert(merged.hiera.end(), options.hiera.begin(), options.hiera.end());
      merged.compile.insert(merged.compile.end(), options.compile.begin(), options.compile.end());
      if (given("--arch")) merged.archs = options.archs;
      if (given("--nvrtc")) merged.nvrtc = options.nvrtc;
      if (!kernels_dir.empty()) merged.kernels_dir = kernels_dir;
      for (const auto& [key, name] : options.dim_names) merged.dim_names[key] = name;
      options = std::move(merged);
      if (options.input.empty())
        throw pt2onnx::Error(pt2onnx::ErrorCode::kUsage, config_path + ": no input: give the .pt2 on the command line or as \"input\"");
    }
    if (inspect_command->parsed()) {
      const pt2onnx::InspectReport report = pt2onnx::inspect(inspect_options);
      std::cout << (inspect_json ? pt2onnx::render_inspect_json(report) : pt2onnx::render_inspect_text(report));
      return 0;
    }
    if (!kernels_dir.empty()) options.kernels_dir = kernels_dir;
    const pt2onnx::ConvertReport report = pt2onnx::convert(options);
    for (const auto& r : report.kernels_refused) std::cerr << "pt2onnx: error: no kernel bundle: " << one_line(r) << "\n";
    if (!quiet) {
      for (const auto& w : report.warnings) std::cerr << "pt2onnx: warning: " << one_line(w) << "\n";
      std::cout << "wrote " << report.output.string() << " (" << report.nodes_out << " nodes, "
                << report.weight_count << " weights, " << human_bytes(report.weight_bytes);
      if (!report.external_data.empty()) std::cout << " in " << report.external_data.filename().string();
      std::cout << ")\n";
      for (const auto& b : report.kernel_bundles)
        std::cout << "wrote " << b.dir.string() << " (" << b.kernels << " kernels, " << human_bytes(b.bytes) << ")\n";
      if (verbose)
        std::cout << "model '" << report.model << "': " << report.nodes_in << " FX nodes -> " << report.nodes_out
                  << " ONNX nodes, opset " << options.opset << "\n";
    }
    // A refused --compile type leaves its ONNX written but fails the command (unsupported op).
    return report.kernels_refused.empty() ? 0 : static_cast<int>(pt2onnx::ErrorCode::kUnsupported);
  } catch (const pt2onnx::Error& e) {
    std::cerr << "pt2onnx: error: " << one_line(e.what()) << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "pt2onnx: internal error: " << one_line(e.what()) << "\n";
    return static_cast<int>(pt2onnx::ErrorCode::kInternal);
  }
}
