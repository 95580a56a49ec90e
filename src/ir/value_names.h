// The value names of an argument as views of its own strings: for checks that only compare
// names (every read of every node of the graph), with no copy of each.
#pragma once

#include <string_view>
#include <vector>

#include "ir/program.h"

namespace pt2onnx::ir {

// What collect_value_names gives, as views valid while `arg` is alive and unchanged.
void collect_value_name_views(const Argument& arg, std::vector<std::string_view>& out);

}  // namespace pt2onnx::ir
