#include "archive/model_text.h"

#include <string_view>

#include "archive/mapped_range.h"

namespace pt2onnx::archive {

void StringText::release_before(const char* p) {
  if (p == text_.data() + text_.size()) std::string().swap(text_);
}

namespace {

// A mapped entry, with the padding bytes after it in the same mapping.
class MappedText final : public ReadOnceText {
 public:
  MappedText(int fd, uint64_t offset, uint64_t n) : range_(fd, offset, n + kPadding, /*populate=*/false), n_(n) {}
  bool mapped() const { return range_.data() != nullptr; }

  std::string_view text() const override { return {reinterpret_cast<const char*>(range_.data()), n_}; }
  void release_before(const char* p) override { range_.release_before(reinterpret_cast<const uint8_t*>(p)); }
  void evict() override { range_.evict(); }
  void release_range(const char* begin, const char* end) override {
    range_.release_range(reinterpret_cast<const uint8_t*>(begin), reinterpret_cast<const uint8_t*>(end));
  }

 private:
  MappedRange range_;
  uint64_t n_;
};

}  // namespace

std::unique_ptr<ReadOnceText> map_text(int fd, uint64_t offset, uint64_t n) {
  auto text = std::make_unique<MappedText>(fd, offset, n);
  if (!text->mapped()) return nullptr;
  return text;
}

}  // namespace pt2onnx::archive
