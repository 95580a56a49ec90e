// How a flat structural key is written (flat_structural_key, InstanceIds): one encoding for both,
// whatever tells a value's canonical number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hierarchy/instance_body.h"

namespace pt2onnx::hierarchy::flat_key {

inline void append_count(std::string& key, size_t n) {
  do {  // base-128, low digits first, the high bit marking a digit that is not the last
    key += static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>= 7;
  } while (n);
}

inline void append_text(std::string& key, std::string_view text) {
  append_count(key, text.size());
  key.append(text);
}

// Appends node's attributes: their count, then each one's size and bytes.
inline void append_attributes(const onnx::NodeProto& node, std::string& key) {
  append_count(key, static_cast<size_t>(node.attribute_size()));
  for (const onnx::AttributeProto& attr : node.attribute()) {
    const size_t size = attr.ByteSizeLong();  // cached in `attr`: not computed again below
    append_count(key, size);
    const size_t at = key.size();
    key.resize(at + size);
    attr.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(key.data() + at));
  }
}

// The key of `members` (none with a subgraph) with `inputs` boundary inputs and `outputs`
// boundary outputs. append_attributes(i, key): append_attributes of nodes[i], or the same bytes
// kept from before. read(i, k): the canonical number + 1 of input k of nodes[i] (0 when empty);
// made(i, k): numbers output k of nodes[i] (not empty) with `next`; boundary_output(j): the
// number + 1 of boundary output j. Numbers: boundary inputs 0..inputs-1, made values on.
template <typename Read, typename Made, typename Attributes, typename BoundaryOutput>
void write(const Nodes& nodes, const std::vector<size_t>& members, size_t inputs, size_t outputs, std::string& key,
           Read&& read, Made&& made, Attributes&& append_attributes, BoundaryOutput&& boundary_output) {
  key.assign(1, 'F');
  size_t next = inputs;
  append_count(key, inputs);
  append_count(key, members.size());
  for (size_t i : members) {
    const onnx::NodeProto& node = nodes[static_cast<int>(i)];
    append_text(key, node.op_type());
    append_text(key, node.domain());
    append_count(key, static_cast<size_t>(node.input_size()));
    for (int k = 0; k < node.input_size(); ++k) append_count(key, read(i, k));
    append_count(key, static_cast<size_t>(node.output_size()));
    for (int k = 0; k < node.output_size(); ++k) {
      const bool present = !node.output(k).empty();
      key += present ? '1' : '0';
      if (present) made(i, k, next++);
    }
    append_attributes(i, key);
  }
  append_count(key, outputs);
  for (size_t j = 0; j < outputs; ++j) append_count(key, boundary_output(j));
}

}  // namespace pt2onnx::hierarchy::flat_key
