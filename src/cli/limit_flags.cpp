#include "cli/limit_flags.h"

#include <CLI/CLI.hpp>

#include <charconv>

#include "common/limits.h"

namespace pt2onnx::cli {

namespace {

constexpr const char* kGroup = "Limits on untrusted input (README \"Safety\")";

std::string default_text(const LimitSpec& spec) {
  return std::to_string(spec.default_value) + (spec.unit == "x" ? "" : " ") + std::string(spec.unit);
}

}  // namespace

void add_limit_option(CLI::App& app, std::vector<std::string>& flags) {
  std::string names;
  for (const LimitSpec& spec : kLimitSpecs)
    names += std::string(names.empty() ? "" : "; ") + std::string(spec.name) + " (default " + default_text(spec) + ")";
  app.add_option("--limit", flags, "NAME=N: raise a limit on untrusted input; repeatable. " + names)
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all()
      ->group(kGroup);
  // The older flags are aliases: they add NAME=N to the same list, so one table holds every limit.
  for (const LimitSpec& spec : kLimitSpecs) {
    if (spec.alias.empty()) continue;
    const std::string name(spec.name);
    app.add_option_function<uint64_t>(
           std::string(spec.alias),
           [&flags, name](const uint64_t& value) { flags.push_back(name + "=" + std::to_string(value)); },
           "same as --limit " + name + "=N: " + std::string(spec.bounds) + " (default " + default_text(spec) + ")")
        ->type_name("N")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
              uint64_t value = 0;
              auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
              return ec == std::errc() && ptr == text.data() + text.size() && value > 0 ? ""
                                                                                        : "N must be a positive integer";
            },
            "N"))
        ->group(kGroup);
  }
}

bool is_limit_option(const CLI::Option& option) { return option.get_group() == kGroup; }

std::string apply_limit_flags(const std::vector<std::string>& flags) {
  for (const std::string& flag : flags) {
    const size_t eq = flag.find('=');
    const LimitSpec* spec = eq == std::string::npos ? nullptr : find_limit(std::string_view(flag).substr(0, eq));
    if (spec == nullptr) {
      std::string known;
      for (const LimitSpec& s : kLimitSpecs) known += std::string(known.empty() ? "" : ", ") + std::string(s.name);
      return "--limit " + flag + ": expected NAME=N, NAME one of " + known;
    }
    uint64_t value = 0;
    const char* begin = flag.data() + eq + 1;
    const char* end = flag.data() + flag.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || value == 0) return "--limit " + flag + ": N must be a positive integer";
    limits().*(spec->field) = value;
  }
  return "";
}

}  // namespace pt2onnx::cli
