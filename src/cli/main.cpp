// pt2onnx command line: parses flags, calls pt2onnx::convert (or, for `pt2onnx inspect`,
// pt2onnx::inspect; for `pt2onnx ops`, pt2onnx::supported_ops), maps errors to exit codes.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>
#ifdef PT2ONNX_WITH_MIMALLOC
#include <mimalloc.h>
#endif

#include "api/inspect.h"
#include "cli/cli_docs.h"
#include "cli/limit_flags.h"
#include "cli/progress_line.h"
#include "cli/register_options.h"
#include "cli/run_report.h"
#include "common/bulk_free.h"
#include "common/error.h"
#include "config/config.h"
#include "pt2onnx.h"

// gcc says so with __SANITIZE_ADDRESS__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
constexpr bool kUnderAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

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

// `pt2onnx ops`: every op with a rule or a decomposition, and the opsets where one applies.
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
    for (const auto& op : ops) list.push_back({{"target", op.target}, {"opsets", op.opsets}, {"decomposed", op.decomposed}});
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
    out += op.target + std::string(op.target.size() < 48 ? 48 - op.target.size() : 1, ' ') + range +
           (op.decomposed ? "  decomposed" : "") + "\n";
  }
  return out + std::to_string(ops.size()) + " ops\n";
}

// -v: time per stage, on one line, then the memory resident after each stage run and the peak so far.
std::string render_stages(const pt2onnx::ConvertReport& report) {
  std::string out = "stages:";
  double total = 0;
  char buf[96];
  for (const pt2onnx::StageTiming& s : report.stages) {
    std::snprintf(buf, sizeof buf, " %s %.3f s,", s.stage.c_str(), s.seconds);
    out += buf;
    total += s.seconds;
  }
  std::snprintf(buf, sizeof buf, " total %.3f s", total);
  out += buf;
  if (report.memory.empty()) return out;
  out += "; MB resident/peak after:";
  for (const pt2onnx::StageMemory& m : report.memory) {
    std::snprintf(buf, sizeof buf, " %s %.0f/%.0f,", m.stage.c_str(), static_cast<double>(m.rss_bytes) / 1e6,
                  static_cast<double>(m.peak_bytes) / 1e6);
    out += buf;
  }
  out.pop_back();
  return out;
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

// The subcommands and their own options (conversion's are the option table's).
struct Commands {
  CLI::App* inspect = nullptr;
  pt2onnx::InspectOptions inspect_options;
  std::string inspect_input;
  bool inspect_json = false;
  CLI::App* ops = nullptr;
  int ops_opset = 0;
  bool ops_json = false;
};

void add_commands(CLI::App& app, Commands& c) {
  c.inspect = app.add_subcommand(
      "inspect", "describe a .pt2 archive: versions, modules, inputs and outputs, weights, ops (unsupported marked)");
  c.inspect->add_option("input", c.inspect_input, "the .pt2 archive")->required()->type_name("FILE");
  c.inspect->add_option("--model", c.inspect_options.model, "only this model (default: every model)");
  c.inspect->add_option("--opset", c.inspect_options.opset, "check ops against this ONNX opset")
      ->default_val(c.inspect_options.opset);
  c.inspect->add_flag("--json", c.inspect_json,
                      "print one JSON document (schema/pt2onnx-inspect.schema.json) instead of text");
  c.inspect->add_option("--config", c.inspect_options.config, "count ops that this config's op rules translate as handled")
      ->type_name("FILE");

  c.ops = app.add_subcommand("ops", "list every op that has a rule, with the opsets it supports");
  c.ops->add_option("--opset", c.ops_opset, "only the ops supported at this opset")
      ->check(CLI::Range(pt2onnx::kMinOpset, pt2onnx::kMaxOpset));
  c.ops->add_flag("--json", c.ops_json, "print one JSON document (schema/pt2onnx-ops.schema.json) instead of text");
}

// Parses the command line into the options bound to `app` (`given`, `docs_dir`, the commands')
// and applies --limit: an exit status when that ends the run (--help, --version, a usage error),
// else nullopt.
std::optional<int> parse_command_line(CLI::App& app, const Commands& c, int argc, char** argv,
                                      const pt2onnx::config::RunOptions& given, const std::string& docs_dir,
                                      const std::vector<std::string>& limit_flags) {
  try {
    app.parse(argc, argv);
    const bool command = c.inspect->parsed() || c.ops->parsed();
    if (!command && docs_dir.empty() && given.convert.input.empty() && given.convert.config.empty())
      throw CLI::RequiredError("input");
    // Whatever the top-level app parsed belongs to conversion (a command's own options follow it).
    if (command)
      for (const CLI::Option* option : app.get_options())
        if (option->count() > 0 && !pt2onnx::cli::is_limit_option(*option))
          throw CLI::ValidationError(option->get_name() + " is for conversion, not for " +
                                     (c.inspect->parsed() ? "inspect" : "ops"));
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "pt2onnx: error: " << one_line(e.what()) << " (see --help)\n";
    return static_cast<int>(pt2onnx::ErrorCode::kUsage);
  }
  if (std::string bad_limit = pt2onnx::cli::apply_limit_flags(limit_flags); !bad_limit.empty()) {
    std::cerr << "pt2onnx: error: " << one_line(bad_limit) << "\n";
    return static_cast<int>(pt2onnx::ErrorCode::kUsage);
  }
  return std::nullopt;
}

// How the conversion's memory goes back (common/bulk_free.h): the CLI exits right after it.
void set_memory_hooks() {
#ifdef PT2ONNX_WITH_MIMALLOC
  // mimalloc keeps freed pages resident for a while (its decommit delay) for reuse. From the IR's
  // release on (translate's end) they go back at once: clean-up and --hiera free what they
  // replace as they go, and on a 100k-node program the pages held for the delay set the peak
  // (docs/scale.md). Import and translate, which allocate and free the most, keep the delay.
  pt2onnx::bulk_free_hook() = [](const std::function<void()>& release) {
    mi_option_set(mi_option_decommit_delay, 0);
    release();
  };
#endif
  pt2onnx::exit_reclaims_memory() = !kUnderAddressSanitizer;  // LeakSanitizer would report what is left
}

// What a conversion wrote (warnings to stderr); -v adds the counts and the stage clock.
void print_conversion(const pt2onnx::ConvertReport& report, bool verbose, int opset) {
  for (const auto& w : report.warnings) std::cerr << "pt2onnx: warning: " << one_line(w) << "\n";
  for (const pt2onnx::ConvertReport& model : report.per_model.empty() ? std::vector{report} : report.per_model) {
    std::cout << "wrote " << model.output.string() << " (" << model.nodes_out << " nodes, " << model.weight_count
              << " weights, " << human_bytes(model.weight_bytes);
    if (!model.external_data.empty()) std::cout << " in " << model.external_data.filename().string();
    if (!model.archive_location.empty())
      std::cout << ", " << human_bytes(model.weight_bytes_referenced) << " referenced in " << model.archive_location;
    std::cout << ")\n";
  }
  if (!report.per_model.empty())
    std::cout << report.per_model.size() << " models; " << report.shared_weights << " weights ("
              << human_bytes(report.shared_bytes) << ") shared with an earlier model, stored once\n";
  for (const auto& b : report.kernel_bundles)
    std::cout << "wrote " << b.dir.string() << " (" << b.kernels << " kernels, " << human_bytes(b.bytes) << ")\n";
  if (verbose) {
    std::cout << "model '" << report.model << "': " << report.nodes_in << " FX nodes -> " << report.nodes_out
              << " ONNX nodes, " << report.functions_out << " functions, " << report.weight_count << " weights, "
              << report.warnings.size() << " warnings, opset " << opset << "\n";
    std::cout << render_stages(report) << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pt2onnx: convert a PyTorch .pt2 archive (torch.export.save) to ONNX, without Python."};
  app.set_version_flag("--version", std::string("pt2onnx ") + pt2onnx::version());

  // The conversion's options, one row each in config/option_table.h.
  pt2onnx::config::RunOptions given;
  pt2onnx::cli::OptionBinding binding(app, given);
  std::string docs_dir;
  app.add_option("--generate-docs", docs_dir, "write the man page and completions to DIR (used by the build)")
      ->type_name("DIR")
      ->group("");  // hidden

  Commands commands;
  add_commands(app, commands);
  CLI::App* inspect_command = commands.inspect;
  CLI::App* ops_command = commands.ops;
  pt2onnx::InspectOptions& inspect_options = commands.inspect_options;
  // --limit NAME=N and its aliases (common/limits.h), for conversion and inspect alike.
  std::vector<std::string> limit_flags;
  pt2onnx::cli::add_limit_option(app, limit_flags);
  pt2onnx::cli::add_limit_option(*inspect_command, limit_flags);

  if (const std::optional<int> status = parse_command_line(app, commands, argc, argv, given, docs_dir, limit_flags))
    return *status;
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
    std::cout << render_ops(commands.ops_opset, commands.ops_json);
    return 0;
  }
  if (app.get_option("--output")->count() > 0 && given.convert.output.empty()) {  // safety: -o '' would write beside the input
    std::cerr << "pt2onnx: error: -o '': the output path is empty; name a file\n";
    return static_cast<int>(pt2onnx::ErrorCode::kUsage);
  }
  inspect_options.input = commands.inspect_input;

  // The config's options (read once, here; convert() takes its rules from the same reading), then
  // those given on the command line over them.
  pt2onnx::config::RunOptions run;
  pt2onnx::ConvertOptions& options = run.convert;
  std::optional<pt2onnx::ConvertReport> report;
  auto finish = [&](int code, const std::string& error) {
    // --report is a flag only, taken as given, so that a config that fails to load gets its report.
    if (!given.report.empty() && !inspect_command->parsed()) {
      try {
        pt2onnx::cli::write_run_report(given.report, {std::vector<std::string>(argv, argv + argc), &options,
                                                     report ? &*report : nullptr, code, error});
      } catch (const pt2onnx::Error& e) {
        std::cerr << "pt2onnx: error: " << one_line(e.what()) << "\n";
        if (code == 0) code = static_cast<int>(e.code());
      }
    }
    return code;
  };
  try {
    if (!inspect_command->parsed()) {
      std::shared_ptr<const pt2onnx::config::Config> config;
      if (!given.convert.config.empty()) {
        config = std::make_shared<const pt2onnx::config::Config>(pt2onnx::config::load_config(given.convert.config));
        run = config->options;
      }
      binding.merge_given(run);
      options.parsed_config = config;
      if (config && options.input.empty())
        throw pt2onnx::Error(pt2onnx::ErrorCode::kUsage,
                             given.convert.config.string() + ": no input: give the .pt2 on the command line or as \"input\"");
    }
    if (inspect_command->parsed()) {
      const pt2onnx::InspectReport inspected = pt2onnx::inspect(inspect_options);
      std::cout << (commands.inspect_json ? pt2onnx::render_inspect_json(inspected)
                                          : pt2onnx::render_inspect_text(inspected));
      return 0;
    }
    if (run.list_outputs) {
      for (const auto& path : pt2onnx::list_outputs(options).outputs) std::cout << path.string() << "\n";
      return 0;
    }
    if (!run.depfile.empty()) {
      // Paths a depfile cannot hold are refused before anything is written.
      pt2onnx::ConvertReport planned;
      planned.inputs = {options.input, options.config.empty() ? options.input : options.config};
      planned.outputs = {options.output.empty() ? options.input : options.output};
      pt2onnx::render_depfile(planned);
    }
    pt2onnx::cli::ProgressLine progress(!run.quiet);
    options.on_weight_progress = [&](int64_t done, int64_t total) { progress.update(done, total); };
    set_memory_hooks();
    report = pt2onnx::convert(options);
    progress.end();
    options.on_weight_progress = nullptr;
    if (!run.depfile.empty()) write_text_file(run.depfile, pt2onnx::render_depfile(*report));
    for (const auto& r : report->kernels_refused) std::cerr << "pt2onnx: error: no kernel bundle: " << one_line(r) << "\n";
    if (!run.quiet) print_conversion(*report, run.verbose, options.opset);
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
