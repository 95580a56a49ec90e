// OptionBinding: see register_options.h.
#include "cli/register_options.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdlib>
#include <type_traits>

namespace pt2onnx::cli {

namespace {

using config::OptionKind;
using config::OptionSpec;

// The row's own rule and its range, as CLI11 validators; the messages are the config reader's.
void add_checks(CLI::Option* option, const OptionSpec& spec) {
  if (spec.check)
    option->check(CLI::Validator([check = spec.check](std::string& value) { return check(value); }, ""));
  if (spec.min < spec.max)
    option->check(CLI::Validator(
        [min = spec.min, max = spec.max](std::string& value) -> std::string {
          char* end = nullptr;
          const long long v = std::strtoll(value.c_str(), &end, 10);
          if (value.empty() || *end != '\0') return "";  // not a number: CLI11's conversion says so
          if (v >= min && v <= max) return "";
          if (max == INT64_MAX) return value + " is below the minimum (" + std::to_string(min) + ")";
          return value + " is out of range (" + std::to_string(min) + " to " + std::to_string(max) + ")";
        },
        ""));
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace

OptionBinding::OptionBinding(CLI::App& app, config::RunOptions& values) : values_(values) {
  for (const OptionSpec& spec : config::option_table()) {
    CLI::Option* option = std::visit(
        [&](auto* field) -> CLI::Option* {
          using T = std::remove_pointer_t<decltype(field)>;
          if constexpr (std::is_same_v<T, bool>) {
            if (spec.kind == OptionKind::kSwitchOff)
              return app.add_flag_callback(spec.flags, [field] { *field = false; }, spec.help);
            return app.add_flag(spec.flags, *field, spec.help);
          } else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>) {
            std::vector<std::string>& given = key_values_.emplace_back();
            key_value_of_[&spec] = &given;
            CLI::Option* o = app.add_option(spec.flags, given, spec.help);
            o->expected(1)->allow_extra_args(false)->take_all();
            o->check(CLI::Validator(
                [](std::string& value) -> std::string {
                  const size_t eq = value.find('=');
                  if (eq != std::string::npos && eq > 0 && eq + 1 < value.size()) return "";
                  return "'" + value + "': expected KEY=NAME, e.g. input_ids.0=batch";
                },
                ""));
            return o;
          } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            CLI::Option* o = app.add_option(spec.flags, *field, spec.help);
            if (spec.kind == OptionKind::kCommaList) o->delimiter(',')->take_last();
            else o->expected(1)->allow_extra_args(false)->take_all();
            if (spec.show_default) o->default_str(joined(*field));
            return o;
          } else if constexpr (std::is_same_v<T, std::string>) {
            // A flag, so that it never takes the next argument as its value: alone it reads "true",
            // which becomes the row's flag_value before the checks; --flag=VALUE gives VALUE.
            if (spec.kind == OptionKind::kFlagValue) {
              CLI::Option* o = app.add_flag(spec.flags, *field, spec.help);
              o->transform(CLI::Validator(
                  [value = spec.flag_value](std::string& given) {
                    if (given == "true") given = value;
                    return std::string();
                  },
                  ""));
              return o;
            }
            CLI::Option* o = app.add_option(spec.flags, *field, spec.help);
            if (spec.show_default) o->capture_default_str();
            return o;
          } else {
            CLI::Option* o = app.add_option(spec.flags, *field, spec.help);
            if (spec.show_default) o->capture_default_str();
            return o;
          }
        },
        config::field_of(spec, values));
    if (!spec.value_name.empty()) option->type_name(spec.value_name);
    add_checks(option, spec);
    options_[&spec] = option;
  }
  for (const OptionSpec& spec : config::option_table())
    if (!spec.excludes.empty()) options_[&spec]->excludes(app.get_option(spec.excludes));
}

bool OptionBinding::given(const OptionSpec& spec) const {
  const auto it = options_.find(&spec);
  return it != options_.end() && it->second->count() > 0;
}

void OptionBinding::merge_given(config::RunOptions& to) {
  for (const auto& [spec, list] : key_value_of_) {
    auto& map = *std::get<std::map<std::string, std::string>*>(config::field_of(*spec, values_));
    for (const std::string& item : *list) {
      const size_t eq = item.find('=');  // checked when parsed
      map[item.substr(0, eq)] = item.substr(eq + 1);
    }
  }
  for (const OptionSpec& spec : config::option_table())
    if (given(spec)) config::merge_option(spec, values_, to);
}

}  // namespace pt2onnx::cli
