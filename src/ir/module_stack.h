// The nn_module_stack of a node: its module frames, outermost first. Held once and shared: the
// ops of one module call carry the same stack, and so do the ONNX nodes made from each op
// (--hiera keeps a stack per ONNX node: deep copies would be a large share of what a big
// conversion holds).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pt2onnx::ir {

struct ModuleFrame {
  std::string key;   // opaque id, e.g. "L__self___layers_0"
  std::string path;  // module FQN, "" for the root
  std::string type;  // qualified class, e.g. "torch.nn.modules.linear.Linear"
  bool operator==(const ModuleFrame&) const = default;
};

// Read-only, with the reading half of std::vector's interface; copies share the frames.
class ModuleStack {
 public:
  using const_iterator = std::vector<ModuleFrame>::const_iterator;

  ModuleStack() = default;
  ModuleStack(std::vector<ModuleFrame> frames)  // NOLINT(google-explicit-constructor): a stack is its frames
      : frames_(frames.empty() ? nullptr : std::make_shared<const std::vector<ModuleFrame>>(std::move(frames))) {}
  ModuleStack(std::initializer_list<ModuleFrame> frames) : ModuleStack(std::vector<ModuleFrame>(frames)) {}

  const std::vector<ModuleFrame>& frames() const { return frames_ ? *frames_ : kNoFrames; }
  size_t size() const { return frames().size(); }
  bool empty() const { return frames().empty(); }
  const ModuleFrame& operator[](size_t i) const { return frames()[i]; }
  const ModuleFrame& front() const { return frames().front(); }
  const ModuleFrame& back() const { return frames().back(); }
  const_iterator begin() const { return frames().begin(); }
  const_iterator end() const { return frames().end(); }

  // The outermost `n` frames (this stack itself when n is its size).
  ModuleStack prefix(size_t n) const {
    if (n >= size()) return *this;
    return ModuleStack(std::vector<ModuleFrame>(begin(), begin() + static_cast<std::ptrdiff_t>(n)));
  }
  // Whether both are one held stack (then they are equal without comparing frames).
  bool same_as(const ModuleStack& other) const { return frames_ == other.frames_; }
  bool operator==(const ModuleStack& other) const { return same_as(other) || frames() == other.frames(); }

 private:
  inline static const std::vector<ModuleFrame> kNoFrames;
  std::shared_ptr<const std::vector<ModuleFrame>> frames_;  // null when empty
};

// One stack per node of a graph (translate's node_modules, hierarchy's and clean-up's copies).
using ModuleStacks = std::vector<ModuleStack>;

}  // namespace pt2onnx::ir
