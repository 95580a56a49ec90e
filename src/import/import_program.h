// ExportedProgram JSON -> ir::Program. Tolerant of every schema generation we know (torch 2.1 to
// 2.15): unions written with one key or with every key (all but one null), missing optional
// fields, bare Infinity/NaN tokens, str() and srepr() symbolic expressions, old signature dicts.
#pragma once

#include <string>

#include "common/read_once_text.h"
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
// The same from a text with its padding that is let go of as the parse passes (the archive's
// mapping of the entry, common/read_once_text.h); `text` must stay alive through the call.
// `node_metadata` false: ir::Node::metadata (stack traces, torch_fn, ...) is left empty, for the
// callers that read none of it (convert, inspect); the fast readers then do not build it at all.
ir::Program import_program(ReadOnceText& text, const std::string& source_name, bool node_metadata = true);
// The same through the general readers alone, without the fast ones of fast_graph.h: for the
// tests that hold the two to the same IR.
ir::Program import_program_general(const std::string& json_text, const std::string& source_name);

// Parses one nn_module_stack metadata value (both the current "key,path,type;..." form and the
// 2.1 "key:(path,type)" form), outermost first.
std::vector<ir::ModuleFrame> parse_module_stack(const std::string& text);

}  // namespace pt2onnx::import
