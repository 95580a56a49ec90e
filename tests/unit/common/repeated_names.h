// Names for the tests of the hashed name tables (NameSet, ViewMap, NamedTable): "value_<i * step
// % modulo>" for i below `count` (so with repeats when count > modulo), then the empty name.
#pragma once

#include <string>
#include <vector>

namespace pt2onnx::testing {

inline std::vector<std::string> repeated_names(int count, int step, int modulo) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.push_back("value_" + std::to_string(i * step % modulo));
  names.push_back("");
  return names;
}

}  // namespace pt2onnx::testing
