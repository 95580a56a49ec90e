// ExportedProgram JSON -> ir::Program. Tolerant of every schema generation we know (torch 2.1 to
// 2.15): unions written with one key or with every key (all but one null), missing optional
// fields, bare Infinity/NaN tokens, str() and srepr() symbolic expressions, old signature dicts.
#pragma once

#include <string>

#include "ir/program.h"

namespace pt2onnx::import {

// Schema major versions this reader accepts.
constexpr int kMinSchemaMajor = 1;
constexpr int kMaxSchemaMajor = 8;

// Parses `json_text` (the contents of `source_name`, used in messages). Throws Error(kArchive)
// with the JSON path of the offending field, e.g. "models/model.json: graph_module.graph.nodes[3]
// .inputs[0].arg: unknown argument kind 'as_foo'"; an unsupported schema major version is refused
// naming the version found and those supported.
ir::Program import_program(const std::string& json_text, const std::string& source_name);
// The same, freeing `json_text` once it is parsed: the text (85 MB at 100k nodes) need not be held
// while the IR is built.
ir::Program import_program(std::string&& json_text, const std::string& source_name);

// Parses one nn_module_stack metadata value (both the current "key,path,type;..." form and the
// 2.1 "key:(path,type)" form), outermost first.
std::vector<ir::ModuleFrame> parse_module_stack(const std::string& text);

}  // namespace pt2onnx::import
