// The bulk of a program, graph_module.graph.nodes and .tensor_values (nine tenths of the text of
// a deep model), read straight from simdjson On-Demand into the IR, without a JsonDoc of them in
// between: that document would be the import's largest allocation and half of its time.
//
// Only the encoding torch writes today is taken this way (unions of one member, no repeated
// keys, static sizes, the argument kinds of ordinary ops); on anything else, and on every
// error, the reader declines and the caller parses the whole text the general way
// (import_program.cpp). So what is accepted here is exactly what the general readers accept, and
// every message a bad file gets comes from them, with its JSON path.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <simdjson.h>

#include "common/read_once_text.h"
#include "import/nodes_beside.h"
#include "ir/program.h"

namespace pt2onnx::import {

// What the fast readers took; the general readers take the rest of the document.
struct FastGraph {
  bool nodes_taken = false;  // graph.nodes was read here (and stands empty in the document)
  bool values_taken = false;  // likewise graph.tensor_values
  std::vector<ir::Node> nodes;
  ir::TensorValues tensor_values;
  // Told, node by node, that the text before a position will not be read again (or null).
  ReadOnceText* text = nullptr;
  bool node_metadata = true;  // false: ir::Node::metadata is not built (import_program.h)
  // false: graph_module.module_call_graph is checked as JSON and not kept in the document
  // (ImportParts::module_call_graph; an entry per module call).
  bool module_call_graph = true;
  // The parser walking the text: strings with escapes are unescaped with it into a buffer of
  // the readers' own (fast_graph.cpp). Null: into the parser's string buffer.
  const simdjson::ondemand::parser* parser = nullptr;
  // How a large nodes array is read on a second thread (nodes_beside.h).
  NodesBesideOptions nodes_beside;
};

// Thrown by the readers below when the text is not in the form they take.
struct FastGraphDeclined {};

// graph.nodes (an array) and graph.tensor_values (an object). Throw FastGraphDeclined.
void read_fast_nodes(simdjson::ondemand::value nodes, FastGraph& out);

// read_fast_nodes for a nodes array read in pieces (arrays of consecutive nodes, nodes_beside.h),
// into one list: module stacks and metadata texts are shared across the pieces as across the
// nodes of one array. `parser` and `text` as FastGraph's.
class FastNodesReader {
 public:
  explicit FastNodesReader(bool node_metadata);
  ~FastNodesReader();
  FastNodesReader(const FastNodesReader&) = delete;
  FastNodesReader& operator=(const FastNodesReader&) = delete;
  void read(simdjson::ondemand::value nodes, std::vector<ir::Node>& out, const simdjson::ondemand::parser* parser,
            ReadOnceText* text);

 private:
  struct State;
  std::unique_ptr<State> state_;
};
void read_fast_tensor_values(simdjson::ondemand::value values, FastGraph& out);

}  // namespace pt2onnx::import
