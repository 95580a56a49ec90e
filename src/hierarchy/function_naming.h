// Naming policy of --hiera functions, in one place: a function is named after its module class,
// and never after a standard ONNX op — TensorRT dispatches nodes by op_type before it looks at
// local functions and ignores the domain, so a function named `Attention` would run as the
// builtin op.
#pragma once

#include <set>
#include <string>

namespace pt2onnx::hierarchy {

// True when `name` is the op_type of a standard ONNX op: one libonnx knows (opsets up to 17, the
// default and ai.onnx.ml domains) or one of a list of newer ones.
bool is_standard_op_name(const std::string& name);

// The base name for a module class: `pattern` with "{class}" replaced by the last dotted component
// of `type` and "{qualified}" by `type` with '_' for '.', reduced to [A-Za-z0-9_] (not starting
// with a digit), with "Module" appended when it is a standard op name.
std::string function_base_name(const std::string& type, const std::string& pattern = "{class}");

// `base`, else `base_1`, `base_2`, ...: the first that is neither in `taken` nor a standard op
// name; it is added to `taken`.
std::string claim_function_name(const std::string& base, std::set<std::string>& taken);

}  // namespace pt2onnx::hierarchy
