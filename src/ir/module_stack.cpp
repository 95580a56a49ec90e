// Module stacks: links of a pool and the text they view.
#include "ir/module_stack.h"

#include <algorithm>
#include <cstring>

namespace pt2onnx::ir {

namespace {

// Text is kept in chunks of this size (a longer text gets a chunk of its own).
constexpr size_t kChunkBytes = size_t{64} << 10;

}  // namespace

std::string_view ModuleFramePool::keep(std::string_view text) {
  if (text.empty()) return {};
  char* at = nullptr;
  if (text.size() > kChunkBytes) {
    at = chunks_.emplace_back(std::make_unique<char[]>(text.size())).get();
    chunk_left_ = 0;  // the last chunk is this one now
  } else {
    if (text.size() > chunk_left_) {
      chunks_.push_back(std::make_unique<char[]>(kChunkBytes));
      chunk_left_ = kChunkBytes;
    }
    at = chunks_.back().get() + (kChunkBytes - chunk_left_);
    chunk_left_ -= text.size();
  }
  std::memcpy(at, text.data(), text.size());
  return {at, text.size()};
}

std::string_view ModuleFramePool::keep_type(std::string_view type) {
  if (auto it = types_.find(type); it != types_.end()) return *it;
  return *types_.insert(keep(type)).first;
}

const ModuleFramePool::Link* ModuleFramePool::add(const Link* outer, std::string_view key, std::string_view path,
                                                  std::string_view type) {
  links_.push_back({{keep(key), keep(path), keep_type(type)}, outer, outer ? outer->depth + 1 : 1});
  return &links_.back();
}

ModuleStack::ModuleStack(const std::vector<ModuleFrame>& frames) {
  if (frames.empty()) return;
  auto pool = std::make_shared<ModuleFramePool>();
  const Link* link = nullptr;
  for (const ModuleFrame& frame : frames) link = pool->add(link, frame.key, frame.path, frame.type);
  pool_ = std::move(pool);
  innermost_ = link;
}

bool ModuleStack::operator==(const ModuleStack& other) const {
  if (same_as(other)) return true;
  if (size() != other.size()) return false;
  for (const Link *a = innermost_, *b = other.innermost_; a; a = a->outer, b = b->outer)
    if (a != b && !(a->frame == b->frame)) return false;
  return true;
}

}  // namespace pt2onnx::ir
