// A set of value names held as views of strings that outlive it (the scope's own names while
// nothing renames them): a ViewMap with no values, so no allocation per name.
#pragma once

#include <cstddef>
#include <string_view>

#include "common/view_map.h"

namespace pt2onnx::passes {

class NameSet {
 public:
  explicit NameSet(size_t expected = 0) : names_(expected) {}

  // True when `name` was not in the set yet.
  bool insert(std::string_view name) { return names_.insert(name, Empty{}); }
  bool contains(std::string_view name) const { return names_.contains(name); }
  size_t size() const { return names_.size(); }

 private:
  struct Empty {};
  ViewMap<Empty> names_;
};

}  // namespace pt2onnx::passes
