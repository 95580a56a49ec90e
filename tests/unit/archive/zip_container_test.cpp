// The zip layer: data offsets from local headers (64-byte aligned, PyTorch style), ZIP64
// fields, nested zips with absolute offsets, DEFLATE entries (inflated by zlib), and damaged zips.
#include "archive/zip_container.h"

#include <doctest/doctest.h>

#include "archive/test_errors.h"
#include "archive/test_zip.h"
#include "common/error.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;
using testing::TempDir;
using testing::ZipItem;

std::string pattern(size_t n, int seed) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<char>((i * 131 + static_cast<size_t>(seed) * 7 + i / 251) & 0xFF);
  return out;
}

std::string read_all(const Storage& storage) {
  std::string out(storage.size(), '\0');
  storage.read(0, out.size(), out.data());
  return out;
}

TEST_CASE("torch-style zip: data starts where the LOCAL header says, 64-byte aligned") {
  for (const bool zip64_fields : {false, true}) {
    CAPTURE(zip64_fields);
    TempDir dir;
    const std::string first = pattern(100, 1);
    const std::string second = pattern(7, 2);
    const std::string file_bytes =
        testing::torch_style_zip({{"m/a", first}, {"m/sub/b", second}}, zip64_fields);
    const auto path = dir.write("m.pt2", file_bytes);
    const auto zip = ZipContainer::open_file(path);
    CHECK(zip->root() == "m/");
    CHECK(zip->contains("sub/b"));
    CHECK_FALSE(zip->contains("m/a"));
    for (const auto& [name, bytes] : {std::pair{"a", first}, std::pair{"sub/b", second}}) {
      const auto storage = zip->storage(name);
      REQUIRE(storage->file_offset().has_value());
      CHECK(*storage->file_offset() % 64 == 0);
      CHECK(file_bytes.substr(*storage->file_offset(), bytes.size()) == bytes);
      CHECK(read_all(*storage) == bytes);
      CHECK(storage->entry_name() == std::string("m/") + name);
    }
  }
}

TEST_CASE("a zip without a folder has the root \"\"") {
  TempDir dir;
  const auto zip = ZipContainer::open_file(
      dir.write("x.zip", testing::torch_style_zip({{"top", "1"}, {"d/e", "2"}})));
  CHECK(zip->root().empty());
  CHECK(zip->read_text("d/e") == "2");
}

TEST_CASE("nested STORED zip: storages point at absolute offsets in the outer file") {
  TempDir dir;
  const std::string payload = pattern(300, 3);
  const std::string inner =
      testing::torch_style_zip({{"archive/data.pkl", "x"}, {"archive/data/0", payload}});
  const std::string outer =
      testing::torch_style_zip({{"m/models/model.json", "{}"}, {"m/data/weights/model.pt", inner}});
  const auto path = dir.write("m.pt2", outer);
  const auto zip = ZipContainer::open_file(path);
  const auto nested = zip->open_nested("data/weights/model.pt");
  CHECK(nested->root() == "archive/");
  CHECK(nested->label() == path.string() + ": m/data/weights/model.pt");
  const auto storage = nested->storage("data/0");
  REQUIRE(storage->file_offset().has_value());
  CHECK(*storage->file_offset() ==
        *zip->storage("data/weights/model.pt")->file_offset() + inner.find(payload));
  CHECK(outer.substr(*storage->file_offset(), payload.size()) == payload);
  CHECK(storage->entry_name() == "m/data/weights/model.pt: archive/data/0");

  std::string byte(1, '\0');
  const std::string message = archive_error_of([&] { storage->read(300, 1, byte.data()); });
  CHECK(message.find(path.string() + ": m/data/weights/model.pt: archive/data/0") !=
        std::string::npos);
  CHECK(message.find("past the end") != std::string::npos);
}

TEST_CASE("DEFLATE entries stream, also backwards") {
  TempDir dir;
  const std::string big = pattern(200000, 4);
  const auto path =
      dir.write("d.zip", testing::libzip_zip({{"r/big", big, true}, {"r/small", "abc"}}));
  const auto zip = ZipContainer::open_file(path);
  const auto storage = zip->storage("big");
  CHECK_FALSE(storage->file_offset().has_value());
  CHECK(storage->size() == big.size());
  for (const uint64_t offset :
       {uint64_t{150000}, uint64_t{10}, uint64_t{150010}, uint64_t{199990}, uint64_t{0}}) {
    std::string chunk(10, '\0');
    storage->read(offset, chunk.size(), chunk.data());
    CHECK(chunk == big.substr(offset, 10));
  }
  CHECK(read_all(*storage) == big);
  CHECK(storage->entry_crc()->done());  // the CRC was checked on the way
  std::string again(10, '\0');           // and an entry read to its end reads again
  storage->read(100, again.size(), again.data());
  CHECK(again == big.substr(100, 10));
  CHECK(zip->storage("small")->file_offset().has_value());
}

TEST_CASE("a DEFLATE nested zip is inflated once and read from memory") {
  TempDir dir;
  const std::string payload = pattern(1000, 5);
  const std::string inner =
      testing::torch_style_zip({{"archive/data.pkl", "x"}, {"archive/data/0", payload}});
  const auto path =
      dir.write("m.pt2", testing::libzip_zip({{"m/a", "1"}, {"m/inner.pt", inner, true}}));
  const auto nested = ZipContainer::open_file(path)->open_nested("inner.pt");
  const auto storage = nested->storage("data/0");
  CHECK_FALSE(storage->file_offset().has_value());
  CHECK(read_all(*storage) == payload);
}

TEST_CASE("damaged or missing zips name the file and the reason") {
  TempDir dir;
  const std::string good = testing::torch_style_zip({{"m/a", pattern(500, 6)}, {"m/b", "x"}});

  SUBCASE("missing file") {
    const auto path = dir.path() / "absent.pt2";
    const std::string message = archive_error_of([&] { ZipContainer::open_file(path); });
    CHECK(message.find(path.string()) != std::string::npos);
    CHECK(message.find("No such file") != std::string::npos);
  }
  SUBCASE("not a zip") {
    const auto path = dir.write("text.pt2", "this is plain text, not a zip archive at all");
    const std::string message = archive_error_of([&] { ZipContainer::open_file(path); });
    CHECK(message == path.string() + ": not a zip (no end of central directory record; truncated?)");
  }
  SUBCASE("empty file") {
    const auto path = dir.write("empty.pt2", "");
    CHECK(archive_error_of([&] { ZipContainer::open_file(path); }).find(path.string()) == 0);
  }
  SUBCASE("truncated zip") {
    const auto path = dir.write("cut.pt2", good.substr(0, good.size() / 2));
    const std::string message = archive_error_of([&] { ZipContainer::open_file(path); });
    CHECK(message.find(path.string() + ": not a zip") == 0);
  }
  SUBCASE("damaged local header") {
    std::string bad = good;
    bad[0] = 'X';  // the first local header's signature
    const auto path = dir.write("bad.pt2", bad);
    const std::string message = archive_error_of([&] { ZipContainer::open_file(path); });
    CHECK(message.find(path.string()) == 0);
    CHECK(message.find("m/a") != std::string::npos);
  }
  SUBCASE("nested garbage") {
    const auto path = dir.write(
        "n.pt2", testing::torch_style_zip({{"m/a", "1"}, {"m/inner.pt", "garbage bytes"}}));
    const std::string message =
        archive_error_of([&] { ZipContainer::open_file(path)->open_nested("inner.pt"); });
    CHECK(message.find(path.string() + ": m/inner.pt: not a zip") == 0);
  }
  SUBCASE("absent entry") {
    const auto path = dir.write("ok.pt2", good);
    const std::string message =
        archive_error_of([&] { ZipContainer::open_file(path)->storage("nope"); });
    CHECK(message == path.string() + ": m/nope: no such entry");
  }
}

}  // namespace
}  // namespace pt2onnx::archive
