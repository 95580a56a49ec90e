// ZipContainer::read_once_text: the program JSON mapped in place where it lies STORED with room
// after it, read into memory otherwise, CRC-checked either way, and given back as it is read.
#include <doctest/doctest.h>

#include <string>

#include "archive/model_text.h"
#include "archive/test_errors.h"
#include "archive/test_zip.h"
#include "archive/zip_container.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;
using testing::has;
using testing::TempDir;

std::string text_of(size_t n) {
  std::string out;
  while (out.size() < n) out += R"({"k": [1, 2, "three"]}, )";
  out.resize(n);
  return out;
}

TEST_CASE("read_once_text maps a STORED entry and gives the bytes read_text gives") {
  TempDir dir;
  for (const size_t n : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{300000}}) {
    CAPTURE(n);
    const std::string payload = text_of(n);
    const auto zip = ZipContainer::open_file(dir.write("m.pt2", testing::torch_style_zip({{"m/a.json", payload}, {"m/b", "x"}})));
    const std::unique_ptr<ReadOnceText> text = zip->read_once_text("a.json");
    CHECK(text->text() == payload);
    CHECK(text->text() == zip->read_text("a.json"));
    // What follows the text is readable (the parser's padding): the zip's own bytes.
    volatile char after = text->text().data()[text->text().size() + ReadOnceText::kPadding - 1];
    (void)after;
    // Given back a part and then all, it still reads the same (the page cache serves it again).
    text->release_before(text->text().data() + n / 2);
    CHECK(text->text() == payload);
    // Evicted whole (after a parser's first pass), it reads the same again, padding included.
    text->evict();
    CHECK(text->text() == payload);
    after = text->text().data()[text->text().size() + ReadOnceText::kPadding - 1];
    text->evict();
    text->release_before(text->text().data() + n / 4);  // behind what was released: no change
    CHECK(text->text() == payload);
    text->release_before(text->text().data() + text->text().size());
  }
}

TEST_CASE("read_once_text refuses a mapped entry whose CRC does not match, naming it") {
  TempDir dir;
  const std::string payload = text_of(20000);
  std::string bytes = testing::torch_style_zip({{"m/a.json", payload}, {"m/b", "x"}});
  bytes[bytes.find(payload) + 777] ^= 0x04;
  const auto path = dir.write("m.pt2", bytes);
  const auto zip = ZipContainer::open_file(path);
  CHECK(has(archive_error_of([&] { zip->read_once_text("a.json"); }), path.string() + ": m/a.json: CRC-32 mismatch"));
}

TEST_CASE("read_once_text reads a DEFLATE entry into memory, and frees it at the end") {
  TempDir dir;
  const std::string payload = text_of(50000);
  const auto zip = ZipContainer::open_file(dir.write("d.zip", testing::libzip_zip({{"r/a.json", payload, true}})));
  const std::unique_ptr<ReadOnceText> text = zip->read_once_text("a.json");
  CHECK(text->text() == payload);
  text->release_before(text->text().data() + 10);  // not the end: kept
  CHECK(text->text() == payload);
  text->evict();  // a text in memory stays
  CHECK(text->text() == payload);
  text->release_before(text->text().data() + text->text().size());
  CHECK(text->text().empty());
}

}  // namespace
}  // namespace pt2onnx::archive
