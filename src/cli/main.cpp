// pt2onnx command line: parses flags, calls pt2onnx::convert (or, for `pt2onnx inspect`,
// pt2onnx::inspect; for `pt2onnx ops`, pt2onnx::supported_ops), maps errors to exit codes.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "api/inspect.h"
#include "cli/cli_docs.h"
#include "cli/limit_flags.h"
#include "cli/progress_line.h"
#include "cli/run_report.h"
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

// `pt2onnx ops`: every op with a rule and the opsets where one applies.
std::string render_ops(int opset, bool json) {
  const std::vector<pt2onnx::OpCoverage> ops = pt2onnx::supported_ops(opset);
  if (json) {
    nlohmann::ordered_json doc;
    doc["format_version"] = 1;
    doc["pt2onnx_version"] = pt2onnx::version();
    doc["min_opset"] = pt2onnx::kMinOpset;
    doc["max_opset"] = pt2onnx::kMaxOpset;
    if (opset > 0) doc["opset"] = opset;
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& op : ops) list.push_back({{"target", op.target}, {"opsets", op.opsets}});
    doc["ops"] = list;
    return doc.dump(2) + "\n";
  }
  std::string out;
  for (const auto& op : ops) {
    // Opsets are contiguous ranges in practice; print "17-28", or the list when they are not.
    const bool contiguous = op.opsets.back() - op.opsets.front() + 1 == static_cast<int>(op.opsets.size());
    std::string range;
    if (contiguous) {
      range = std::to_string(op.opsets.front()) + (op.opsets.size() > 1 ? "-" + std::to_string(op.opsets.back()) : "");
    } else {
      for (int v : op.opsets) range += (range.empty() ? "" : ",") + std::to_string(v);
    }
    out += op.target + std::string(op.target.size() < 48 ? 48 - op.target.size() : 1, ' ') + range + "\n";
  }
  return out + std::to_string(ops.size()) + " ops\n";
}

// -v: time per stage, on one line.
std::string render_stages(const pt2onnx::ConvertReport& report) {
  std::string out = "stages:";
  double total = 0;
  char buf[64];
  for (const pt2onnx::StageTiming& s : report.stages) {
    std::snprintf(buf, sizeof buf, " %s %.3f s,", s.stage.c_str(), s.seconds);
    out += buf;
    total += s.seconds;
  }
  std::snprintf(buf, sizeof buf, " total %.3f s", total);
  return out + buf;
}

void write_text_file(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  std::ofstream out(temp, std::ios::binary);
  out << text;
  out.close();
  std::error_code ec;
  if (out) std::filesystem::rename(temp, path, ec);
  if (!out || ec) {
    std::filesystem::remove(temp, ec);
    pt2onnx::fail(pt2onnx::ErrorCode::kOutput, path + ": cannot write the depfile");
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pt2onnx: convert a PyTorch .pt2 archive (torch.export.save) to ONNX, without Python."};
  app.set_version_flag("--version", std::string("pt2onnx ") + pt2onnx::version());

  pt2onnx::ConvertOptions options;
  std::string input, output;
  bool verbose = false, quiet = false;
  // Not ->required(): `pt2onnx inspect X.pt2` leaves it empty; checked after parsing instead.
  app.add_option("input", input, "the .pt2 archive to convert")->type_name("FILE");
  app.add_option("-o,--output", output, "output .onnx (default: the input with the extension .onnx)")->type_name("FILE");
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
  app.add_option("--kernels-dir", kernels_dir, "--compile: where bundles go (default: beside the .onnx)")->type_name("DIR");
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
                 "here override its options, --hiera adds to its types")
      ->type_name("FILE");
  app.add_flag("--strict", options.strict,
               "treat every warning (a config rule or --hiera type that matches nothing, ...) as an error, exit 8");
  std::string depfile;
  app.add_option("--depfile", depfile,
                 "also write a Make-format depfile: the files written, depending on the archive and the config")
      ->type_name("FILE");
  std::string report_path;
  app.add_option("--report", report_path,
                 "also write a JSON record of the run (schema/pt2onnx-report.schema.json), on failure too")
      ->type_name("FILE");
  CLI::Option* verbose_flag = app.add_flag("-v,--verbose", verbose, "print details of the conversion: stage timings, counts");
  CLI::Option* quiet_flag = app.add_flag("-q,--quiet", quiet, "print nothing on success, no progress line");
  quiet_flag->excludes(verbose_flag);
  std::string docs_dir;
  app.add_option("--generate-docs", docs_dir, "write the man page and completions to DIR (used by the build)")
      ->type_name("DIR")
      ->group("");  // hidden
  // --no-fuse: ONNX's fused ops (opset 23+) off; applied after the config merge below.
  bool no_fuse = false;
  app.add_flag("--no-fuse", no_fuse,
               "at opset 23+, keep attention and RMS norm decomposed instead of ONNX Attention/RMSNormalization");
  // --no-fold (graph clean-up, src/passes/): keep BatchNorm apart from the Conv/Gemm before it.
  bool no_fold = false;
  app.add_flag("--no-fold", no_fold,
               "keep inference BatchNorm as its own node instead of folding it into the Conv/Gemm before it");

  CLI::App* inspect_command = app.add_subcommand(
      "inspect", "describe a .pt2 archive: versions, modules, inputs and outputs, weights, ops (unsupported marked)");
  pt2onnx::InspectOptions inspect_options;
  std::string inspect_input;
  bool inspect_json = false;
  inspect_command->add_option("input", inspect_input, "the .pt2 archive")->required()->type_name("FILE");
  inspect_command->add_option("--model", inspect_options.model, "only this model (default: every model)");
  inspect_command->add_option("--opset", inspect_options.opset, "check ops against this ONNX opset")
      ->default_val(inspect_options.opset);
  inspect_command->add_flag("--json", inspect_json,
                            "print one JSON document (schema/pt2onnx-inspect.schema.json) instead of text");
  inspect_command->add_option("--config", inspect_options.config,
                              "count ops that this config's op rules translate as handled")
      ->type_name("FILE");

  CLI::App* ops_command = app.add_subcommand("ops", "list every op that has a rule, with the opsets it supports");
  int ops_opset = 0;
  bool ops_json = false;
  ops_command->add_option("--opset", ops_opset, "only the ops supported at this opset")
      ->check(CLI::Range(pt2onnx::kMinOpset, pt2onnx::kMaxOpset));
  ops_command->add_flag("--json", ops_json, "print one JSON document (schema/pt2onnx-ops.schema.json) instead of text");
  // --limit NAME=N and its aliases (common/limits.h), for conversion and inspect alike.
  std::vector<std::string> limit_flags;
  pt2onnx::cli::add_limit_option(app, limit_flags);
  pt2onnx::cli::add_limit_option(*inspect_command, limit_flags);

  try {
    app.parse(argc, argv);
    const bool command = inspect_command->parsed() || ops_command->parsed();
    if (!command && docs_dir.empty() && input.empty() && config_path.empty()) throw CLI::RequiredError("input");
    // Whatever the top-level app parsed belongs to conversion (a command's own options follow it).
    if (command)
      for (const CLI::Option* given : app.get_options())
        if (given->count() > 0 && !pt2onnx::cli::is_limit_option(*given))
          throw CLI::ValidationError(given->get_name() + " is for conversion, not for " +
                                     (inspect_command->parsed() ? "inspect" : "ops"));
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "pt2onnx: error: " << one_line(e.what()) << " (see --help)\n";
    return static_cast<int>(pt2onnx::ErrorCode::kUsage);
  }
  if (std::string bad_limit = pt2onnx::cli::apply_limit_flags(limit_flags); !bad_limit.empty()) {
    std::cerr << "pt2onnx: error: " << one_line(bad_limit) << "\n";
    return static_cast<int>(pt2onnx::ErrorCode::kUsage);
  }
  if (!docs_dir.empty()) {
    try {
      pt2onnx::cli::write_docs(app, docs_dir);
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "pt2onnx: error: " << one_line(e.what()) << "\n";
      return static_cast<int>(pt2onnx::ErrorCode::kOutput);
    }
  }
  if (ops_command->parsed()) {
    std::cout << render_ops(ops_opset, ops_json);
    return 0;
  }
  options.input = input;
  options.output = output;
  if (app.get_option("--output")->count() > 0 && output.empty()) {  // safety: -o '' would write beside the input
    std::cerr << "pt2onnx: error: -o '': the output path is empty; name a file\n";
    return static_cast<int>(pt2onnx::ErrorCode::kUsage);
  }
  for (const std::string& flag : dim_name_flags) {
    const size_t eq = flag.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == flag.size()) {
      std::cerr << "pt2onnx: error: --dim-name " << one_line(flag) << ": expected KEY=NAME, e.g. --dim-name input_ids.0=batch\n";
      return static_cast<int>(pt2onnx::ErrorCode::kUsage);
    }
    options.dim_names[flag.substr(0, eq)] = flag.substr(eq + 1);
  }
  inspect_options.input = inspect_input;

  std::optional<pt2onnx::ConvertReport> report;
  auto finish = [&](int code, const std::string& error) {
    if (!report_path.empty() && !inspect_command->parsed()) {
      try {
        pt2onnx::cli::write_run_report(report_path, {std::vector<std::string>(argv, argv + argc), &options,
                                                     report ? &*report : nullptr, code, error});
      } catch (const pt2onnx::Error& e) {
        std::cerr << "pt2onnx: error: " << one_line(e.what()) << "\n";
        if (code == 0) code = static_cast<int>(e.code());
      }
    }
    return code;
  };
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
      if (given("--strict")) merged.strict = options.strict;
      if (!kernels_dir.empty()) merged.kernels_dir = kernels_dir;
      for (const auto& [key, name] : options.dim_names) merged.dim_names[key] = name;
      options = std::move(merged);
      if (options.input.empty())
        throw pt2onnx::Error(pt2onnx::ErrorCode::kUsage, config_path + ": no input: give the .pt2 on the command line or as \"input\"");
    }
    if (inspect_command->parsed()) {
      const pt2onnx::InspectReport inspected = pt2onnx::inspect(inspect_options);
      std::cout << (inspect_json ? pt2onnx::render_inspect_json(inspected) : pt2onnx::render_inspect_text(inspected));
      return 0;
    }
    if (!kernels_dir.empty()) options.kernels_dir = kernels_dir;
    if (!depfile.empty()) {
      // Paths a depfile cannot hold are refused before anything is written.
      pt2onnx::ConvertReport planned;
      planned.inputs = {options.input, options.config.empty() ? options.input : options.config};
      planned.outputs = {options.output.empty() ? options.input : options.output};
      pt2onnx::render_depfile(planned);
    }
    options.fuse = !no_fuse;
    if (no_fold) options.fold = false;
    pt2onnx::cli::ProgressLine progress(!quiet);
    options.on_weight_progress = [&](int64_t done, int64_t total) { progress.update(done, total); };
    report = pt2onnx::convert(options);
    progress.end();
    options.on_weight_progress = nullptr;
    if (!depfile.empty()) write_text_file(depfile, pt2onnx::render_depfile(*report));
    for (const auto& r : report->kernels_refused) std::cerr << "pt2onnx: error: no kernel bundle: " << one_line(r) << "\n";
    if (!quiet) {
      for (const auto& w : report->warnings) std::cerr << "pt2onnx: warning: " << one_line(w) << "\n";
      std::cout << "wrote " << report->output.string() << " (" << report->nodes_out << " nodes, "
                << report->weight_count << " weights, " << human_bytes(report->weight_bytes);
      if (!report->external_data.empty()) std::cout << " in " << report->external_data.filename().string();
      std::cout << ")\n";
      for (const auto& b : report->kernel_bundles)
        std::cout << "wrote " << b.dir.string() << " (" << b.kernels << " kernels, " << human_bytes(b.bytes) << ")\n";
      if (verbose) {
        std::cout << "model '" << report->model << "': " << report->nodes_in << " FX nodes -> " << report->nodes_out
                  << " ONNX nodes, " << report->functions_out << " functions, " << report->weight_count
                  << " weights, " << report->warnings.size() << " warnings, opset " << options.opset << "\n";
        std::cout << render_stages(*report) << "\n";
      }
    }
    // A refused --compile type leaves its ONNX written but fails the command (unsupported op).
    return finish(report->kernels_refused.empty() ? 0 : static_cast<int>(pt2onnx::ErrorCode::kUnsupported), "");
  } catch (const pt2onnx::Error& e) {
    std::cerr << "pt2onnx: error: " << one_line(e.what()) << "\n";
    report.reset();
    return finish(static_cast<int>(e.code()), one_line(e.what()));
  } catch (const std::exception& e) {
    std::cerr << "pt2onnx: internal error: " << one_line(e.what()) << "\n";
    report.reset();
    return finish(static_cast<int>(pt2onnx::ErrorCode::kInternal), one_line(e.what()));
  }
}
