// The zip layer's defences (issue 11): CRC-32 of every entry read, local headers that must match
// the central directory, overlapping entries, zip bombs, the entry cap, non-regular inputs.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "archive/test_errors.h"
#include "archive/test_zip.h"
#include "archive/zip_container.h"
#include "common/limits.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;
using testing::has;
using testing::TempDir;

std::string pattern(size_t n) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>((i * 131 + i / 251) & 0xFF);
  return out;
}

TEST_CASE("a flipped bit in a STORED entry fails its CRC, whole or partial reads alike") {
  TempDir dir;
  const std::string payload = pattern(5000);
  std::string bytes = testing::torch_style_zip({{"m/a", payload}, {"m/b", "text"}});
  bytes[bytes.find(payload) + 1234] ^= 0x10;
  const auto path = dir.write("m.pt2", bytes);
  const auto zip = ZipContainer::open_file(path);
  CHECK(zip->read_text("b") == "text");
  const std::string whole = archive_error_of([&] { zip->read_text("a"); });
  CHECK(has(whole, path.string() + ": m/a: CRC-32 mismatch"));
  std::string part(10, '\0');
  const auto storage = zip->storage("a");
  CHECK(has(archive_error_of([&] { storage->read(0, part.size(), part.data()); }), "CRC-32 mismatch"));
  CHECK(has(archive_error_of([&] { storage->verify(); }), "CRC-32 mismatch"));
}

TEST_CASE("an entry recorded with CRC 0 (torch.save with compute_crc32 off) is read unverified") {
  TempDir dir;
  const std::string payload = pattern(700);
  std::string bytes = testing::torch_style_zip({{"m/a", payload}});
  const size_t central = bytes.rfind("PK\x01\x02");
  for (int i = 0; i < 4; ++i) bytes[central + 16 + static_cast<size_t>(i)] = '\0';
  const auto zip = ZipContainer::open_file(dir.write("m.pt2", bytes));
  CHECK(zip->storage("a")->entry_crc()->done());
  CHECK(zip->read_text("a") == payload);
}

TEST_CASE("a flipped bit in a DEFLATE entry is refused") {
  TempDir dir;
  const std::string payload = pattern(100000);
  std::string bytes = testing::libzip_zip({{"r/a", payload, true}});
  // The CRC field of the central directory record (16 bytes into it).
  const size_t central = bytes.rfind("PK\x01\x02");
  bytes[central + 16] ^= 0x01;
  const auto zip = ZipContainer::open_file(dir.write("d.zip", bytes));
  std::string part(10, '\0');
  CHECK(has(archive_error_of([&] { zip->storage("a")->read(500, part.size(), part.data()); }), "r/a"));
}

TEST_CASE("a local header naming another entry is refused") {
  TempDir dir;
  std::string bytes = testing::torch_style_zip({{"m/abc", "1"}, {"m/def", "2"}});
  bytes[bytes.find("m/def")] = 'x';  // the local header's copy comes first
  const auto path = dir.write("m.pt2", bytes);
  CHECK(has(archive_error_of([&] { ZipContainer::open_file(path); }), "names another entry"));
}

TEST_CASE("entries that share bytes are refused") {
  TempDir dir;
  std::string bytes = testing::torch_style_zip({{"m/a", pattern(300)}, {"m/b", "x"}});
  // Point the second central record at the first local header (names then differ: the name
  // check fires; so rename the record too, making a same-named duplicate).
  const size_t first_central = bytes.find("PK\x01\x02");
  const size_t second_central = bytes.find("PK\x01\x02", first_central + 4);
  for (int i = 0; i < 4; ++i) bytes[second_central + 42 + i] = bytes[first_central + 42 + i];
  bytes[second_central + 46 + 2] = 'a';
  const auto path = dir.write("m.pt2", bytes);
  CHECK(has(archive_error_of([&] { ZipContainer::open_file(path); }), "overlaps"));
}

TEST_CASE("zip bombs: a DEFLATE entry inflating past the ratio is refused before inflating") {
  TempDir dir;
  const std::string spaces(4 << 20, ' ');
  const auto path = dir.write("bomb.zip", testing::libzip_zip({{"r/model.json", spaces, true}}));
  const auto zip = ZipContainer::open_file(path);
  CHECK(has(archive_error_of([&] { zip->storage("model.json"); }), "--limit inflate-ratio=N"));
  const ScopedLimit raised(&Limits::inflate_ratio, 100000);
  CHECK(ZipContainer::open_file(path)->read_text("model.json") == spaces);
}

TEST_CASE("entries read into memory are capped") {
  TempDir dir;
  const auto path = dir.write("m.pt2", testing::torch_style_zip({{"m/models/model.json", std::string(5000, ' ')}}));
  const ScopedLimit small(&Limits::entry_bytes, 4096);
  const std::string message = archive_error_of([&] { ZipContainer::open_file(path)->read_text("models/model.json"); });
  CHECK(has(message, "exceeds the entry-bytes limit (4096 bytes)"));
  CHECK(has(message, "--limit entry-bytes=N"));
}

TEST_CASE("a FIFO as the archive is refused without blocking") {
  TempDir dir;
  const auto path = dir.path() / "pipe.pt2";
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  CHECK(has(archive_error_of([&] { ZipContainer::open_file(path); }), "not a regular file"));
}

}  // namespace
}  // namespace pt2onnx::archive
