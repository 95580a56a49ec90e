// Interned names: each distinct string is kept once, in growing blocks, and given a dense id
// (0, 1, 2, ... in the order first seen), so that what a caller knows about a name lives in a
// vector indexed by id. A translation names a few values per node: node-based
// std::unordered_map<std::string, ...> tables of them cost an allocation per name and three
// cache misses per lookup (bucket, node, heap text).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "common/view_map.h"

namespace pt2onnx {

class InternedNames {
 public:
  using Id = uint32_t;
  static constexpr Id kAbsent = UINT32_MAX;

  // The id of `name`, adding it when absent; `.second` is true when it was added.
  std::pair<Id, bool> intern(std::string_view name) {
    if ((names_.size() + 1) * 2 > slots_.size()) rehash(std::max<size_t>(16, slots_.size() * 2));
    const size_t hash = std::hash<std::string_view>{}(name);
    Id& slot = find_slot(name, hash);
    if (slot != kAbsent) return {slot, false};
    slot = static_cast<Id>(names_.size());
    names_.push_back({store(name), hash});
    return {slot, true};
  }
  // The id of `name`, or kAbsent.
  Id find(std::string_view name) const {
    if (slots_.empty()) return kAbsent;
    return const_cast<InternedNames*>(this)->find_slot(name, std::hash<std::string_view>{}(name));
  }
  // The text of a name; it stays where it is as long as the table lives.
  std::string_view text(Id id) const { return names_[id].text; }
  size_t size() const { return names_.size(); }
  // Bytes of text held (each distinct name once).
  size_t text_bytes() const { return text_bytes_; }
  // Room for about `count` names without growing the slot table.
  void reserve(size_t count) {
    names_.reserve(count);
    if (count * 2 > slots_.size()) rehash(open_table_capacity(count));
  }

 private:
  // A name and its hash, kept so that a probe compares bytes only when the hashes agree and a
  // rehash hashes nothing again. (The hash sits here, not in the slots: the slots stay 4 bytes,
  // half the memory of 8-byte ones, for the same time.)
  struct Entry {
    std::string_view text;
    size_t hash;
  };
  // Text blocks start small (a config's few names) and double up to 1 MB (a program's many).
  static constexpr size_t kFirstBlockBytes = 4 << 10;
  static constexpr size_t kMaxBlockBytes = 1 << 20;

  // The slot of `name`: its id, or the empty slot where it would go.
  Id& find_slot(std::string_view name, size_t hash) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Id& id = slots_[i];
      if (id == kAbsent || (names_[id].hash == hash && names_[id].text == name)) return id;
    }
  }
  void rehash(size_t capacity) {
    slots_.assign(capacity, kAbsent);
    const size_t mask = capacity - 1;
    for (Id id = 0; id < names_.size(); ++id) {
      size_t i = names_[id].hash & mask;
      while (slots_[i] != kAbsent) i = (i + 1) & mask;
      slots_[i] = id;
    }
  }
  // A copy of `name` in the current block (a new one, at least as large, when it does not fit).
  std::string_view store(std::string_view name) {
    if (name.size() > block_left_) {
      block_bytes_ = block_bytes_ == 0 ? kFirstBlockBytes : std::min(kMaxBlockBytes, 2 * block_bytes_);
      const size_t size = std::max(block_bytes_, name.size());
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));  // written before it is read
      block_next_ = blocks_.back().get();
      block_left_ = size;
    }
    char* at = block_next_;
    if (!name.empty()) std::memcpy(at, name.data(), name.size());
    block_next_ += name.size();
    block_left_ -= name.size();
    text_bytes_ += name.size();
    return {at, name.size()};
  }

  std::vector<Entry> names_;  // by id
  std::vector<Id> slots_;     // open addressing, kAbsent when empty; at most half full
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_next_ = nullptr;
  size_t block_left_ = 0;
  size_t block_bytes_ = 0;  // of the last block, which the next one doubles
  size_t text_bytes_ = 0;
};

// A map from ids of one InternedNames to ids (or other 32-bit values), in one open-addressed
// table: for tables that each context of a translation keeps apart (a subgraph's FX names may
// repeat its parent's), where a vector by id would cost every child the size of the whole model.
class IdMap {
 public:
  using Id = InternedNames::Id;
  static constexpr Id kAbsent = InternedNames::kAbsent;

  // Sets `key` to `value` (added or replaced).
  void set(Id key, Id value) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    Slot& slot = find_slot(key);
    if (slot.key == kAbsent) ++size_;
    slot = {key, value};
  }
  // The value of `key`, or kAbsent.
  Id find(Id key) const {
    if (slots_.empty() || key == kAbsent) return kAbsent;
    return const_cast<IdMap*>(this)->find_slot(key).value;
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    Id key = kAbsent;
    Id value = kAbsent;
  };
  Slot& find_slot(Id key) {
    const size_t mask = slots_.size() - 1;
    // ids are dense: a multiplicative hash spreads runs of them over the table
    for (size_t i = (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull >> 32) & mask;; i = (i + 1) & mask)
      if (slots_[i].key == kAbsent || slots_[i].key == key) return slots_[i];
  }
  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.key != kAbsent) find_slot(s.key) = s;
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace pt2onnx
