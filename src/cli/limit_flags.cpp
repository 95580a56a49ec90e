#include "cli/limit_flags.h"

#include <CLI/CLI.hpp>

#include <charconv>

#include "common/limits.h"

namespace pt2onnx::cli {

void add_limit_option(CLI::App& app, std::vector<std::string>& flags) {
  std::string names;
  for (const LimitName& l : kLimitNames)
    names += std::string(names.empty() ? "" : "; ") + std::string(l.name) + ": " + std::string(l.what) + " (default " +
             std::to_string(Limits{}.*l.field) + ")";
  app.add_option("--limit", flags, "NAME=N: raise a limit on untrusted input; repeatable. " + names)
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
}

std::string apply_limit_flags(const std::vector<std::string>& flags) {
  for (const std::string& flag : flags) {
    const size_t eq = flag.find('=');
    const std::string name = flag.substr(0, eq);
    const LimitName* limit = nullptr;
    for (const LimitName& l : kLimitNames)
      if (l.name == name) limit = &l;
    std::string known;
    for (const LimitName& l : kLimitNames) known += std::string(known.empty() ? "" : ", ") + std::string(l.name);
    if (eq == std::string::npos || limit == nullptr) return "--limit " + flag + ": expected NAME=N, NAME one of " + known;
    uint64_t value = 0;
    const char* begin = flag.data() + eq + 1;
    const char* end = flag.data() + flag.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || value == 0) return "--limit " + flag + ": N must be a positive integer";
    limits().*(limit->field) = value;
  }
  return "";
}

}  // namespace pt2onnx::cli
