// A set of value names held as views of strings that outlive it (the scope's own names while
// nothing renames them), in one open-addressed table: no allocation per name, which is most of
// what a node-based hash set costs when a pass asks about every value of a 100k-node graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace pt2onnx::passes {

class NameSet {
 public:
  explicit NameSet(size_t expected = 0) { rehash(capacity_for(expected)); }

  // True when `name` was not in the set yet.
  bool insert(std::string_view name) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);
    const size_t h = std::hash<std::string_view>{}(name);
    Slot& slot = find(name, h);
    if (slot.data) return false;
    slot = {name.data(), name.size(), h};
    ++size_;
    return true;
  }
  bool contains(std::string_view name) const {
    return const_cast<NameSet*>(this)->find(name, std::hash<std::string_view>{}(name)).data != nullptr;
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    const char* data = nullptr;  // null: empty (a std::string's data() never is)
    size_t size = 0;
    size_t hash = 0;
  };
  static size_t capacity_for(size_t n) {
    size_t c = 16;
    while (c < n * 2) c *= 2;
    return c;
  }
  Slot& find(std::string_view name, size_t h) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (!s.data || (s.hash == h && std::string_view(s.data, s.size) == name)) return s;
    }
  }
  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.data) find(std::string_view(s.data, s.size), s.hash) = s;
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace pt2onnx::passes
