// The program JSON of a model as the import reads it (common/read_once_text.h): a STORED entry is
// mapped from the archive file, read in place and given back page by page as the parse passes
// (the pages stay in the page cache); anything else is read into memory as before.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/read_once_text.h"

namespace pt2onnx::archive {

// A text held in memory (read_text's string already has the padding in its capacity; any other
// gets it here); given back whole once the parse has passed its end.
class StringText final : public ReadOnceText {
 public:
  explicit StringText(std::string text) : text_(std::move(text)) { text_.reserve(text_.size() + kPadding); }
  std::string_view text() const override { return text_; }
  void release_before(const char* p) override;

 private:
  std::string text_;
};

// Bytes [offset, offset + n) of `fd`, mapped read-only with the kPadding bytes after them (the
// caller checks that the file has them). Null where the kernel refuses the mapping.
std::unique_ptr<ReadOnceText> map_text(int fd, uint64_t offset, uint64_t n);

}  // namespace pt2onnx::archive
