// The nn_module_stack of a node: its module frames, outermost first. A graph's stacks share one
// pool in which every distinct frame is held once, as a link to the frame outside it: the ops of
// one module call share a stack, sibling modules share their outer frames, and the ONNX nodes
// made from each op share its stack (--hiera keeps one per ONNX node of 100k-node graphs, where
// a copy of the frames' strings per stack was a large share of what the conversion held).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace pt2onnx::ir {

// One frame as callers spell it (tests, hand-built stacks): owns its text.
struct ModuleFrame {
  std::string key;   // opaque id, e.g. "L__self___layers_0"
  std::string path;  // module FQN, "" for the root
  std::string type;  // qualified class, e.g. "torch.nn.modules.linear.Linear"
  bool operator==(const ModuleFrame&) const = default;
};

// One frame as a stack holds it: views of its pool's text, valid while any stack of the pool lives.
struct FrameView {
  std::string_view key;
  std::string_view path;
  std::string_view type;
  bool operator==(const FrameView&) const = default;
};

// Where stacks keep their frames: links that stay where they are as the pool grows, and their
// text, each type once. Grown by one owner (an importer's reader, a ModuleStack constructor),
// read by the stacks that share it.
class ModuleFramePool {
 public:
  struct Link {
    FrameView frame;
    const Link* outer;  // null for an outermost frame
    size_t depth;       // frames from the outermost to this one, this one included
  };
  ModuleFramePool() = default;
  ModuleFramePool(const ModuleFramePool&) = delete;
  ModuleFramePool& operator=(const ModuleFramePool&) = delete;

  // A new link below `outer` (null: outermost), holding copies of the texts.
  const Link* add(const Link* outer, std::string_view key, std::string_view path, std::string_view type);

 private:
  std::string_view keep(std::string_view text);
  std::string_view keep_type(std::string_view type);

  std::deque<Link> links_;
  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_left_ = 0;
  std::unordered_set<std::string_view> types_;  // each type's text once
};

// Read-only, with the reading half of std::vector's interface (frames read as FrameViews); copies
// share the pool.
class ModuleStack {
 public:
  using Link = ModuleFramePool::Link;

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = FrameView;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = FrameView;
    const_iterator(const ModuleStack* stack, size_t index) : stack_(stack), index_(index) {}
    FrameView operator*() const { return (*stack_)[index_]; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    bool operator==(const const_iterator& other) const { return index_ == other.index_; }

   private:
    const ModuleStack* stack_;
    size_t index_;
  };

  ModuleStack() = default;
  ModuleStack(const std::vector<ModuleFrame>& frames);  // NOLINT(google-explicit-constructor): a stack is its frames
  ModuleStack(std::initializer_list<ModuleFrame> frames) : ModuleStack(std::vector<ModuleFrame>(frames)) {}
  // The stack whose innermost frame is `innermost`, a link of `pool` (null: the empty stack).
  ModuleStack(std::shared_ptr<const ModuleFramePool> pool, const Link* innermost)
      : pool_(innermost ? std::move(pool) : nullptr), innermost_(innermost) {}

  size_t size() const { return innermost_ ? innermost_->depth : 0; }
  bool empty() const { return innermost_ == nullptr; }
  // Frame i, outermost first (walks out from the innermost: stacks are a few frames deep).
  FrameView operator[](size_t i) const { return link_at(i)->frame; }
  FrameView front() const { return (*this)[0]; }
  FrameView back() const { return innermost_->frame; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  // The outermost `n` frames: a stack of the same pool, made without copying.
  ModuleStack prefix(size_t n) const {
    if (n >= size()) return *this;
    return n == 0 ? ModuleStack() : ModuleStack(pool_, link_at(n - 1));
  }
  // Whether both are one held stack (then they are equal without comparing frames).
  bool same_as(const ModuleStack& other) const { return innermost_ == other.innermost_; }
  bool operator==(const ModuleStack& other) const;

 private:
  const Link* link_at(size_t i) const {
    const Link* link = innermost_;
    for (size_t steps = size() - 1 - i; steps > 0; --steps) link = link->outer;
    return link;
  }

  std::shared_ptr<const ModuleFramePool> pool_;  // null when empty
  const Link* innermost_ = nullptr;
};

// One stack per node of a graph (translate's node_modules, hierarchy's and clean-up's copies).
using ModuleStacks = std::vector<ModuleStack>;

}  // namespace pt2onnx::ir
