#include "archive/model_text.h"

#include <sys/mman.h>
#include <unistd.h>

#include <string_view>

namespace pt2onnx::archive {

void StringText::release_before(const char* p) {
  if (p == text_.data() + text_.size()) std::string().swap(text_);
}

namespace {

class MappedText final : public ReadOnceText {
 public:
  MappedText(void* base, uint64_t length, uint64_t skip, uint64_t n, uint64_t page)
      : base_(static_cast<char*>(base)), length_(length), text_(base_ + skip, n), page_(page), released_(base_) {}
  ~MappedText() override { ::munmap(base_, length_); }
  MappedText(const MappedText&) = delete;
  MappedText& operator=(const MappedText&) = delete;

  std::string_view text() const override { return text_; }

  // Whole pages before `p` leave this process's memory (MADV_DONTNEED drops a private
  // mapping's pages; a later read refaults them from the page cache).
  void release_before(const char* p) override {
    char* end = base_ + (static_cast<uint64_t>(p - base_) / page_) * page_;
    if (end <= released_) return;
    ::madvise(released_, static_cast<size_t>(end - released_), MADV_DONTNEED);  // advice: a refusal costs memory only
    released_ = end;
  }

 private:
  char* base_;
  uint64_t length_;
  std::string_view text_;
  uint64_t page_;
  char* released_;  // pages before this one are given back
};

}  // namespace

std::unique_ptr<ReadOnceText> map_text(int fd, uint64_t offset, uint64_t n) {
  const long page_size = ::sysconf(_SC_PAGESIZE);
  const uint64_t page = page_size > 0 ? static_cast<uint64_t>(page_size) : 4096;
  const uint64_t start = offset / page * page;
  const uint64_t length = offset - start + n + ReadOnceText::kPadding;
  void* base = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(start));
  if (base == MAP_FAILED) return nullptr;
  return std::make_unique<MappedText>(base, length, offset - start, n, page);
}

}  // namespace pt2onnx::archive
