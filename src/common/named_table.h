// A table of values by unique name, in the order they were added, with a hash index over the
// names: the lookups a std::map<std::string, T> gives (find, count, at, [], emplace) without a
// tree walk of string comparisons per lookup and an allocation per entry. Graph::tensor_values
// holds an entry per value of the graph, added once by the importer and looked up by every stage.
//
// Entries live in a std::deque: a reference to one stays valid when others are added (as in a
// std::map; iterators do not), and there is no removal.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/view_map.h"

namespace pt2onnx {

template <typename T>
class NamedTable {
 public:
  using value_type = std::pair<std::string, T>;
  using iterator = typename std::deque<value_type>::iterator;
  using const_iterator = typename std::deque<value_type>::const_iterator;

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  iterator find(std::string_view name) {
    const uint32_t at = index_of(name);
    return at == kEmpty ? end() : begin() + at;
  }
  const_iterator find(std::string_view name) const {
    const uint32_t at = index_of(name);
    return at == kEmpty ? end() : begin() + at;
  }
  size_t count(std::string_view name) const { return index_of(name) == kEmpty ? 0 : 1; }
  T& at(std::string_view name) { return const_cast<T&>(std::as_const(*this).at(name)); }
  const T& at(std::string_view name) const {
    const uint32_t at = index_of(name);
    if (at == kEmpty) throw std::out_of_range("NamedTable::at: no entry '" + std::string(name) + "'");
    return entries_[at].second;
  }
  // The value of `name`, added (default-constructed) when absent.
  T& operator[](std::string_view name) { return emplace(std::string(name), T{}).first->second; }

  // Adds `name` -> `value`; when `name` is there already, nothing changes and `.second` is false.
  std::pair<iterator, bool> emplace(std::string name, T value) {
    if ((entries_.size() + 1) * 2 > slots_.size()) rehash(open_table_capacity(entries_.size() + 1));
    const auto hash = static_cast<uint32_t>(std::hash<std::string_view>{}(name));
    Slot& slot = find_slot(name, hash);
    if (slot.entry != kEmpty) return {begin() + slot.entry, false};
    slot = {static_cast<uint32_t>(entries_.size()), hash};
    entries_.emplace_back(std::move(name), std::move(value));
    return {std::prev(end()), true};
  }
  // As std::map's: the hint is not needed here.
  iterator emplace_hint(const_iterator, std::string name, T value) {
    return emplace(std::move(name), std::move(value)).first;
  }
  // Room in the index for `count` entries without growing it.
  void reserve(size_t count) {
    if (count * 2 > slots_.size()) rehash(open_table_capacity(count));
  }

 private:
  // At most half of the slots are used (EntrySlot, common/view_map.h, says why 8 bytes).
  static constexpr uint32_t kEmpty = EntrySlot::kEmpty;
  using Slot = EntrySlot;

  uint32_t index_of(std::string_view name) const {
    if (slots_.empty()) return kEmpty;
    const auto hash = static_cast<uint32_t>(std::hash<std::string_view>{}(name));
    return const_cast<NamedTable*>(this)->find_slot(name, hash).entry;
  }
  Slot& find_slot(std::string_view name, uint32_t hash) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.entry == kEmpty || (s.hash == hash && entries_[s.entry].first == name)) return s;
    }
  }
  void rehash(size_t capacity) { rehash_slots(slots_, capacity); }

  std::deque<value_type> entries_;  // in the order added
  std::vector<Slot> slots_;         // open addressing; a power of two, 16 at least, once used
};

}  // namespace pt2onnx
