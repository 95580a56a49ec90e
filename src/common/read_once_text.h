// A text that a parser reads once, front to back (the program JSON, the largest text read), with
// kPadding readable bytes past its end (simdjson reads up to 64 there), that lets go of what was
// read: the text and the IR built from it need not be held whole at the same time.
#pragma once

#include <cstddef>
#include <string_view>

namespace pt2onnx {

class ReadOnceText {
 public:
  static constexpr size_t kPadding = 64;
  virtual ~ReadOnceText() = default;
  virtual std::string_view text() const = 0;
  // The bytes before `p` (a position in text(), or its end) will not be read again before the
  // text is released: their memory may be given back. Reading them anyway is allowed and
  // correct, only slower (a mapping refaults from the page cache).
  virtual void release_before(const char* p) = 0;
  // The whole text may leave this process's memory now though it will be read again: a mapped
  // text refaults from the page cache as the reader comes back to each page. For a parser whose
  // first pass (simdjson's structural index) has touched every page before its second pass reads
  // the text again, so that the text is not held whole beside the IR. A no-op for a text in memory.
  virtual void evict() {}
  // The whole pages within [begin, end) (positions in text()) may leave memory as release_before
  // lets them, without moving its bound. Keeps no state, so parsers on two threads may each give
  // back a part of their own. A no-op for a text in memory.
  virtual void release_range(const char* begin, const char* end) {
    (void)begin;
    (void)end;
  }
};

}  // namespace pt2onnx
