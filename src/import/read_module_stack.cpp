// nn_module_stack metadata text -> module frames.
#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/limits.h"
#include "import/import_program.h"

namespace pt2onnx::import {

namespace {

// What torch writes when a node had no module stack; it names no module.
constexpr std::string_view kEmptyStackPlaceholder = "_empty_nn_module_stack_from_metadata_hook";

// Splits on `separator` where it is not inside ()/[] (Dynamo paths such as
// "getattr(L['fn'], '0')" or "layers.slice(1, None, None)" contain commas), into `parts`.
void split_top_level(std::string_view text, char separator, std::vector<std::string_view>& parts) {
  parts.clear();
  size_t start = 0;
  if (text.find('(') == std::string_view::npos && text.find('[') == std::string_view::npos) {
    // The common case (every frame of a plain nn.Module tree): each separator splits, found by
    // memchr instead of a loop over every byte (every node has a stack: this is hot).
    for (size_t at; (at = text.find(separator, start)) != std::string_view::npos; start = at + 1)
      parts.push_back(text.substr(start, at - start));
    parts.push_back(text.substr(start));
    return;
  }
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[') {
      ++depth;
    } else if ((c == ')' || c == ']') && depth > 0) {
      --depth;
    } else if (c == separator && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
}

// Fields first..last-1 of an entry, with the separators between them: a view of the entry, since
// the fields are consecutive in it.
std::string_view span(const std::vector<std::string_view>& fields, size_t first, size_t last) {
  const char* begin = fields[first].data();
  return {begin, static_cast<size_t>(fields[last - 1].data() + fields[last - 1].size() - begin)};
}

// The 2.1 form "key:(path,type)": the key is an identifier, so a ':' before any ',' marks it.
bool is_old_form(std::string_view entry) {
  size_t colon = entry.find(':');
  if (colon == std::string_view::npos || colon + 1 >= entry.size() || entry[colon + 1] != '(') return false;
  size_t comma = entry.find(',');
  return (comma == std::string_view::npos || colon < comma) && entry.back() == ')';
}

[[noreturn]] void malformed(std::string_view entry, const char* why) {
  fail(ErrorCode::kArchive, "malformed nn_module_stack entry '" + std::string(entry) + "': " + why);
}

// The frames of a stack text, outermost first, as views of the text.
std::vector<ir::FrameView> frame_views(std::string_view text) {
  std::vector<ir::FrameView> frames;
  std::vector<std::string_view> entries;
  std::vector<std::string_view> fields;  // of one entry, reused
  split_top_level(text, ';', entries);
  frames.reserve(std::min<size_t>(entries.size(), limits().nesting + 1));  // ';;;' gives no frames
  for (std::string_view entry : entries) {
    if (entry.empty()) continue;
    ir::FrameView frame;
    if (is_old_form(entry)) {
      size_t colon = entry.find(':');
      frame.key = entry.substr(0, colon);
      std::string_view inner = entry.substr(colon + 2, entry.size() - colon - 3);
      split_top_level(inner, ',', fields);
      if (fields.size() < 2) malformed(entry, "expected key:(path,type)");
      frame.path = span(fields, 0, fields.size() - 1);  // types never contain commas
      frame.type = fields.back();
    } else {
      split_top_level(entry, ',', fields);
      if (fields.size() < 3) malformed(entry, "expected key,path,type");
      frame.key = fields.front();
      frame.path = span(fields, 1, fields.size() - 1);
      frame.type = fields.back();
    }
    if (frame.key == kEmptyStackPlaceholder) continue;
    frames.push_back(frame);
  }
  // Module trees are walked recursively downstream (--hiera); a stack is a path of that tree.
  if (frames.size() > limits().nesting)
    limit_exceeded(ErrorCode::kArchive, "nn_module_stack of " + std::to_string(frames.size()) + " frames", "nesting");
  return frames;
}

}  // namespace

std::vector<ir::ModuleFrame> parse_module_stack(std::string_view text) {
  std::vector<ir::ModuleFrame> frames;
  for (const ir::FrameView& frame : frame_views(text))
    frames.push_back({std::string(frame.key), std::string(frame.path), std::string(frame.type)});
  return frames;
}

size_t ModuleStackReader::LinkHash::operator()(const LinkKey& k) const {
  const std::hash<std::string_view> text;
  return std::hash<const void*>{}(k.outer) ^ (text(k.frame.key) * 31) ^ (text(k.frame.path) * 17) ^ text(k.frame.type);
}

ModuleStackReader::ModuleStackReader() : pool_(std::make_shared<ir::ModuleFramePool>()) {}

ir::ModuleStack ModuleStackReader::read(std::string_view text) {
  if (!last_.empty() && text == last_text_) return last_;
  const std::vector<ir::FrameView> frames = frame_views(text);  // throws before anything changes
  const Link* link = nullptr;
  for (const ir::FrameView& frame : frames) {
    auto it = links_.find(LinkKey{link, frame});
    if (it == links_.end()) {
      const Link* added = pool_->add(link, frame.key, frame.path, frame.type);
      it = links_.emplace(LinkKey{link, added->frame}, added).first;  // keyed by the pool's text
    }
    link = it->second;
  }
  last_ = ir::ModuleStack(pool_, link);
  last_text_.assign(text);
  return last_;
}

}  // namespace pt2onnx::import
