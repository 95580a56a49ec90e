// The passes' set of value names: views of strings that outlive it (the scope's own names while
// nothing renames them), with no allocation per name (common/view_map.h).
#pragma once

#include "common/view_map.h"

namespace pt2onnx::passes {

using NameSet = ViewSet;

}  // namespace pt2onnx::passes
