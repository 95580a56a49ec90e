// --config FILE: a JSON document (schema/pt2onnx-config.schema.json) that carries the command
// line's options (the keys of option_table.h) and translation rules:
//   - op rules: an op (a custom torch.library op, or any aten op, overriding the built-in rule)
//     becomes one node of a custom domain, optionally with a body in ONNX text syntax;
//   - module rules: every instance of a module type becomes one opaque custom node.
// Every error names the file and the JSON path of the field at fault ("$.rules[1].op_type").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/option_table.h"
#include "hierarchy/hierarchy.h"
#include "translate/custom_op_rule.h"

namespace pt2onnx::config {

struct ModuleRule {
  std::string origin;  // "rules[2]"
  std::string type;    // module class, alone or qualified, as for --hiera
  hierarchy::OpaqueModule node;
};

struct Config {
  std::filesystem::path path;  // the file read
  // The options the file sets (option_table.h; paths resolved against the file's folder), the
  // others at their defaults, and which rows it set.
  RunOptions options;
  std::vector<const OptionSpec*> given;
  // Rules, in the file's order.
  std::vector<translate::CustomOpRule> op_rules;
  std::vector<ModuleRule> module_rules;
};

// Reads and checks a config file. Throws Error(kUsage) "FILE: $.path.to.field: what is wrong".
Config load_config(const std::filesystem::path& path);
// The same from text already read (tests); `path` is used in messages and to resolve paths.
Config parse_config(const std::string& text, const std::filesystem::path& path);

}  // namespace pt2onnx::config
