// A map from names to small values (an index, a pointer), holding each name as a view of a string
// that outlives the map, in one open-addressed table: no allocation per entry and one probe run
// per lookup. What a node-based std::map or std::unordered_map of std::string costs (an allocation
// and a copy per name, a tree walk of cache misses per lookup) is most of a pass's time when it
// asks about every value of a 100k-node graph.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace pt2onnx {

template <typename V>
class ViewMap {
 public:
  explicit ViewMap(size_t expected = 0) { rehash(capacity_for(expected)); }

  // Adds `name` -> `value`; false (and the map unchanged) when `name` is there already.
  bool insert(std::string_view name, V value) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);
    const size_t h = std::hash<std::string_view>{}(name);
    Slot& slot = find_slot(name, h);
    if (slot.data) return false;
    slot = {name.data(), name.size(), h, std::move(value)};
    ++size_;
    return true;
  }
  // The value of `name`, or nullptr.
  const V* find(std::string_view name) const {
    const Slot& slot = const_cast<ViewMap*>(this)->find_slot(name, std::hash<std::string_view>{}(name));
    return slot.data ? &slot.value : nullptr;
  }
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  size_t size() const { return size_; }

 private:
  struct Slot {
    const char* data = nullptr;  // null: empty (a std::string's data() never is)
    size_t size = 0;
    size_t hash = 0;
    V value{};
  };
  static size_t capacity_for(size_t n) {
    size_t c = 16;
    while (c < n * 2) c *= 2;
    return c;
  }
  Slot& find_slot(std::string_view name, size_t h) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (!s.data || (s.hash == h && std::string_view(s.data, s.size) == name)) return s;
    }
  }
  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    for (Slot& s : old)
      if (s.data) find_slot(std::string_view(s.data, s.size), s.hash) = std::move(s);
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// An index of a name-keyed map (std::map<std::string, T>, ...): its keys as views, each to a
// pointer at its value. The map must outlive the index and keep its entries where they are.
template <typename Map>
ViewMap<const typename Map::mapped_type*> index_by_name(const Map& map) {
  ViewMap<const typename Map::mapped_type*> out(map.size());
  for (const auto& [name, value] : map) out.insert(name, &value);
  return out;
}

// A set of names held as views (a ViewMap with no values).
class ViewSet {
 public:
  explicit ViewSet(size_t expected = 0) : names_(expected) {}
  // True when `name` was not in the set yet.
  bool insert(std::string_view name) { return names_.insert(name, Empty{}); }
  bool contains(std::string_view name) const { return names_.contains(name); }
  size_t size() const { return names_.size(); }

 private:
  struct Empty {};
  ViewMap<Empty> names_;
};

}  // namespace pt2onnx
