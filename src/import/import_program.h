// ExportedProgram JSON -> ir::Program. Tolerant of every schema generation we know (torch 2.1 to
// 2.15): unions written with one key or with every key (all but one null), missing optional
// fields, bare Infinity/NaN tokens, str() and srepr() symbolic expressions, old signature dicts.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/read_once_text.h"
#include "import/nodes_beside.h"
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
// The parts of a program that a caller may not read, and so need not be built. convert and
// inspect read neither (kGraphAndSignature); the tests read both.
struct ImportParts {
  bool node_metadata = true;      // ir::Node::metadata: stack traces, torch_fn, ...
  bool module_call_graph = true;  // ir::Program::module_call_graph (its JSON is still checked as JSON)
  NodesBesideOptions nodes_beside;  // when a large program's nodes are read on a second thread (tests force it)
};
inline constexpr ImportParts kGraphAndSignature{.node_metadata = false, .module_call_graph = false, .nodes_beside = {}};
// The same with `parts` (the split of nodes_beside.h needs json_text's capacity to hold the padding).
ir::Program import_program(const std::string& json_text, const std::string& source_name, ImportParts parts);

// The same from a text with its padding that is let go of as the parse passes (the archive's
// mapping of the entry, common/read_once_text.h); `text` must stay alive through the call. The
// parts `parts` leaves out are left empty (the fast readers do not build node metadata at all).
ir::Program import_program(ReadOnceText& text, const std::string& source_name, ImportParts parts = {});
// The same through the general readers alone, without the fast ones of fast_graph.h: for the
// tests that hold the two to the same IR.
ir::Program import_program_general(const std::string& json_text, const std::string& source_name);

// Parses one nn_module_stack metadata value (both the current "key,path,type;..." form and the
// 2.1 "key:(path,type)" form), outermost first.
std::vector<ir::ModuleFrame> parse_module_stack(std::string_view text);

// parse_module_stack for the nodes of one graph in order, into one pool: consecutive nodes that
// give the same text (the ops of one module call) share one stack, and each distinct frame below
// a given outer stack is held once.
class ModuleStackReader {
 public:
  ModuleStackReader();
  ir::ModuleStack read(std::string_view text);

 private:
  using Link = ir::ModuleFramePool::Link;
  struct LinkKey {
    const Link* outer;
    ir::FrameView frame;
    bool operator==(const LinkKey&) const = default;
  };
  struct LinkHash {
    size_t operator()(const LinkKey& key) const;
  };
  std::shared_ptr<ir::ModuleFramePool> pool_;
  std::unordered_map<LinkKey, const Link*, LinkHash> links_;  // keys view the pool's text
  std::string last_text_;
  ir::ModuleStack last_;
};

}  // namespace pt2onnx::import
