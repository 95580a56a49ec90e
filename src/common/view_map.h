// A map from names to small values (an index, a pointer), holding each name as a view of a string
// that outlives the map, in one open-addressed table: no allocation per entry and one probe run
// per lookup. What a node-based std::map or std::unordered_map of std::string costs (an allocation
// and a copy per name, a tree walk of cache misses per lookup) is most of a pass's time when it
// asks about every value of a large graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace pt2onnx {

// Slots for an open-addressed table of `n` entries kept at most half full: a power of two, 16 at
// least (so that `hash & (capacity - 1)` is a slot).
inline size_t open_table_capacity(size_t n) {
  size_t c = 16;
  while (c < n * 2) c *= 2;
  return c;
}

// A slot of such a table over a vector of entries (ViewMap, NamedTable): 8 bytes, so that a
// probe run stays within a cache line or two and an entry is read only when 32 bits of hash agree.
struct EntrySlot {
  static constexpr uint32_t kEmpty = UINT32_MAX;
  uint32_t entry = kEmpty;  // index of the entry
  uint32_t hash = 0;        // the low 32 bits of its name's hash
};

// `slots` regrown to `capacity` (a power of two) with the same entries, each at its hash's run.
inline void rehash_slots(std::vector<EntrySlot>& slots, size_t capacity) {
  std::vector<EntrySlot> old(capacity);
  old.swap(slots);
  const size_t mask = capacity - 1;
  for (const EntrySlot& s : old) {
    if (s.entry == EntrySlot::kEmpty) continue;
    size_t i = s.hash & mask;
    while (slots[i].entry != EntrySlot::kEmpty) i = (i + 1) & mask;
    slots[i] = s;
  }
}

template <typename V>
class ViewMap {
 public:
  explicit ViewMap(size_t expected = 0) {
    entries_.reserve(expected);
    rehash(open_table_capacity(expected));
  }

  // Adds `name` -> `value`; false (and the map unchanged) when `name` is there already.
  bool insert(std::string_view name, V value) { return try_emplace(name, std::move(value)).second; }
  // The value of `name`, added as `value` when absent, and whether it was added (the pointer is
  // valid until the next insert).
  std::pair<V*, bool> try_emplace(std::string_view name, V value) {
    if ((entries_.size() + 1) * 2 > slots_.size()) rehash(slots_.size() * 2);
    const auto hash = static_cast<uint32_t>(std::hash<std::string_view>{}(name));
    Slot& slot = find_slot(name, hash);
    if (slot.entry != kEmpty) return {&entries_[slot.entry].value, false};
    slot = {static_cast<uint32_t>(entries_.size()), hash};
    entries_.push_back({name.data(), name.size(), std::move(value)});
    return {&entries_.back().value, true};
  }
  // The value of `name`, or nullptr (valid until the next insert).
  const V* find(std::string_view name) const {
    const Slot& slot = const_cast<ViewMap*>(this)->find_slot(name, static_cast<uint32_t>(std::hash<std::string_view>{}(name)));
    return slot.entry == kEmpty ? nullptr : &entries_[slot.entry].value;
  }
  V* find(std::string_view name) { return const_cast<V*>(std::as_const(*this).find(name)); }
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  size_t size() const { return entries_.size(); }

 private:
  // At most half of the slots are used (EntrySlot says why 8 bytes).
  static constexpr uint32_t kEmpty = EntrySlot::kEmpty;
  using Slot = EntrySlot;
  struct Entry {
    const char* data;
    size_t size;
    [[no_unique_address]] V value;
  };
  Slot& find_slot(std::string_view name, uint32_t hash) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.entry == kEmpty) return s;
      if (s.hash == hash) {
        const Entry& e = entries_[s.entry];
        if (std::string_view(e.data, e.size) == name) return s;
      }
    }
  }
  void rehash(size_t capacity) { rehash_slots(slots_, capacity); }

  std::vector<Slot> slots_;
  std::vector<Entry> entries_;  // in insertion order
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
