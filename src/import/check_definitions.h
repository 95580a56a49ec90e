// Every value a node reads must exist by then: a graph input or an earlier node's output. The
// exporter guarantees it; a file that breaks it (hand-edited, corrupted) is bad input, refused
// here with the node named, rather than failing later inside translation as if it were our bug.
#pragma once

#include <string>

#include "ir/program.h"

namespace pt2onnx::import {

// Throws Error(kArchive) "SOURCE: node N reads 'X', which no graph input or earlier node
// produces"; nested graphs (cond, map...) are checked against their own inputs.
void check_definitions(const ir::Graph& graph, const std::string& source_name);

// The signature and the graph agree: every graph input has exactly one input spec and every
// spec names a graph input; every graph output has an output spec and every spec names a graph
// output. A file without a signature is left alone. Throws Error(kArchive) naming the value.
void check_signature(const ir::Program& program, const std::string& source_name);

}  // namespace pt2onnx::import
