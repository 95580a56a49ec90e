// The command line of a conversion, registered with CLI11 from config/option_table.h: one CLI11
// option per row, bound to a RunOptions, with the row's value name, default, range and check.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "config/option_table.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace pt2onnx::cli {

class OptionBinding {
 public:
  // Registers every row of option_table() with `app`, parsed into `values`.
  OptionBinding(CLI::App& app, config::RunOptions& values);

  // After parsing: whether the row's option was given on the command line.
  bool given(const config::OptionSpec& spec) const;
  // After parsing: every option given on the command line merged into `to` (which holds the
  // config's values, or the defaults), as its kind says.
  void merge_given(config::RunOptions& to);

 private:
  config::RunOptions& values_;
  std::map<const config::OptionSpec*, CLI::Option*> options_;
  std::deque<std::vector<std::string>> key_values_;  // KEY=NAME as given, per kKeyValue row
  std::map<const config::OptionSpec*, std::vector<std::string>*> key_value_of_;
};

}  // namespace pt2onnx::cli
