// The options of a pt2onnx conversion, declared once: flags, config key, kind, value name, help
// text, range and check. Everything else is derived from this table:
//   - the command line (cli/register_options.cpp registers each row with CLI11), hence --help,
//     the man page and the completions (cli/cli_docs.cpp renders them from the registered app);
//   - the option keys a --config file may hold and their JSON types (config/load_config.cpp);
//   - how the flags given on the command line merge over the config's values (merge_option);
//   - tests/unit/config/option_table_test.cpp checks schema/pt2onnx-config.schema.json against it.
// Defaults are the member initializers of RunOptions/ConvertOptions (shown by --help where the
// row says so). Adding an option: one row here, and the code that uses the field.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "pt2onnx.h"

namespace pt2onnx::config {

// One run of the pt2onnx command: the conversion and the files the command writes beside it.
struct RunOptions {
  ConvertOptions convert;
  bool verbose = false;
  bool quiet = false;
  std::filesystem::path depfile;  // --depfile
  std::filesystem::path report;   // --report
  bool list_outputs = false;      // --list-outputs: print what would be written, write nothing
};

enum class OptionKind {
  kSwitch,     // a flag that sets a bool to true; the config's key is a boolean
  kSwitchOff,  // a flag that sets a bool to false (--no-fuse)
  kValue,      // one value; a flag given replaces the config's value
  kRepeated,   // repeatable flag, one value each; flags given are added to the config's list
  kCommaList,  // one flag, values separated by commas; a flag given replaces the config's list
  kKeyValue,   // repeatable KEY=NAME; the config's key is an object, a flag given wins for its key
  kFlagValue,  // a string set by the flag alone to the row's flag_value, or to VALUE by --flag=VALUE;
               // the config's key is that string, or true (flag_value) / false (unset)
};

// Where an option's value lives in RunOptions; the alternative is the value's type.
using OptionField = std::variant<bool*, int*, uint64_t*, std::string*, std::filesystem::path*,
                                 std::vector<std::string>*, std::map<std::string, std::string>*>;

struct OptionSpec {
  std::string flags;       // CLI11 names, "-o,--output"; a bare name ("input") is the positional argument
  std::string config_key;  // "" : command line only; "functions.domain": key "domain" of object "functions"
  OptionKind kind;
  std::string value_name;  // FILE, DIR (both complete as paths), N, TYPE, ...; "" for switches.
                           // A path field's config value is resolved against the config's folder.
  std::string help;
  OptionField (*field)(RunOptions&);
  bool show_default = false;  // --help and the man page print the default value
  int64_t min = 0, max = 0;   // numbers: the accepted range (min == max: no range)
  // A value's own rule (a string, or each list item), for the command line and the config alike:
  // returns what is wrong with it, or "".
  std::string (*check)(const std::string& value) = nullptr;
  std::string excludes;  // a flag this one cannot be given with ("--verbose" for -q)
  std::string flag_value;  // kFlagValue: the value of the flag given without one

  OptionSpec(std::string flags_, std::string config_key_, OptionKind kind_, std::string value_name_, std::string help_,
             OptionField (*field_)(RunOptions&))
      : flags(std::move(flags_)), config_key(std::move(config_key_)), kind(kind_), value_name(std::move(value_name_)),
        help(std::move(help_)), field(field_) {}
  // The optional columns, chained after a row: .with_default().range(17, 28).checked(fn).excluding(flag)
  // .valued(v)
  OptionSpec&& with_default() && { show_default = true; return std::move(*this); }
  OptionSpec&& range(int64_t lo, int64_t hi) && { min = lo; max = hi; return std::move(*this); }
  OptionSpec&& checked(std::string (*fn)(const std::string&)) && { check = fn; return std::move(*this); }
  OptionSpec&& excluding(std::string flag) && { excludes = std::move(flag); return std::move(*this); }
  OptionSpec&& valued(std::string value) && { flag_value = std::move(value); return std::move(*this); }
};

// Every option of a conversion, in --help order.
const std::vector<OptionSpec>& option_table();

// The row whose config key is `key` (nested ones as "functions.domain"), or nullptr.
const OptionSpec* option_by_config_key(std::string_view key);

// The field of `spec` in `options` (read-only access to a const RunOptions).
OptionField field_of(const OptionSpec& spec, RunOptions& options);
OptionField field_of(const OptionSpec& spec, const RunOptions& options);

// Copies the option `spec` from `from` (where it was given) into `to` as its kind merges:
// replaced, appended (kRepeated) or per key (kKeyValue).
void merge_option(const OptionSpec& spec, const RunOptions& from, RunOptions& to);

// The rule of --function-domain and of rule domains: dot-separated identifiers, not a standard
// ONNX domain. Returns what is wrong, or "".
std::string domain_error(const std::string& domain);

// The rule of --external-data's value: "file" or "archive". Returns what is wrong, or "".
std::string external_data_error(const std::string& mode);

}  // namespace pt2onnx::config
