// The name of every ONNX node translate makes: "node_<its first output>". Value names are unique
// in a model, so node names are too, and PackedNodes leaves such a name out of the packed bytes.
#pragma once

#include <string>
#include <string_view>

namespace pt2onnx::translate {

inline constexpr std::string_view kNodeNamePrefix = "node_";

inline std::string node_name_for(std::string_view first_output) {
  std::string name;
  name.reserve(kNodeNamePrefix.size() + first_output.size());
  return name.append(kNodeNamePrefix).append(first_output);
}

// Whether `name` is node_name_for(first_output).
inline bool is_node_name_for(std::string_view name, std::string_view first_output) {
  return name.size() == kNodeNamePrefix.size() + first_output.size() && name.starts_with(kNodeNamePrefix) &&
         name.ends_with(first_output);
}

}  // namespace pt2onnx::translate
