// User names for symbolic dims (--dim-name KEY=NAME, the config's "dim_names"): which export
// symbol each request names, checked before anything is translated.
#pragma once

#include <map>
#include <string>

#include "ir/program.h"

namespace pt2onnx::api {

// Maps each request's KEY — an export symbol ("s72") or INPUT.DIM ("input_ids.0", the dim of a
// user input; negative DIM counts from the end) — to its symbol, and returns symbol -> NAME.
// Throws Error(kUsage) naming the request when a KEY names no symbol or a static or computed dim,
// a NAME is not an identifier, one symbol gets two names, two symbols one name, or a NAME is
// already another symbol of the program.
std::map<std::string, std::string> resolve_dim_names(const ir::Program& program,
                                                     const std::map<std::string, std::string>& requests);

}  // namespace pt2onnx::api
