// DEFLATE entries inflated by zlib (archive/inflating_storage.h): damaged compressed data, and a
// stream that ends before or after the size the directory records, are refused naming the entry.
// Reading back whole, in pieces and backwards: zip_container_test.cpp.
// The zips come from libzip, a writer independent of the reader under test.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "archive/test_errors.h"
#include "archive/test_zip.h"
#include "archive/zip_container.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;
using testing::has;
using testing::TempDir;

// Text-like bytes that DEFLATE compresses by a few times, not by thousands (the ratio limit).
std::string words(size_t n) {
  std::string out;
  uint32_t state = 12345;
  while (out.size() < n) {
    state = state * 1103515245u + 12345u;
    out += 'w';  // appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "w" + to_string
    out += std::to_string((state >> 16) % 500);
    out += ' ';
  }
  out.resize(n);
  return out;
}

// Writes `value` little-endian at `at`, `width` bytes.
void put_le(std::string& bytes, size_t at, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) bytes[at + static_cast<size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xFF);
}

// The recorded uncompressed size of the only entry, in its central record (offset 24) and its
// local header (offset 22), so that the directory's own consistency checks still pass.
std::string with_recorded_size(std::string bytes, uint64_t size) {
  put_le(bytes, bytes.rfind("PK\x01\x02") + 24, size, 4);
  put_le(bytes, bytes.find("PK\x03\x04") + 22, size, 4);
  return bytes;
}

TEST_CASE("damaged DEFLATE data is refused naming the entry") {
  TempDir dir;
  const std::string payload = words(200000);
  std::string bytes = testing::libzip_zip({{"r/a", payload, true}});
  const size_t data = bytes.find("PK\x03\x04") + 30 + 3;  // after the local header and "r/a"
  for (size_t i = 100; i < 140; ++i) bytes[data + i] = static_cast<char>(0xFF);
  const auto path = dir.write("d.zip", bytes);
  const std::string message = archive_error_of([&] { ZipContainer::open_file(path)->read_text("a"); });
  CHECK(has(message, path.string() + ": r/a"));
  const bool named = has(message, "cannot inflate") || has(message, "CRC-32 mismatch");
  CHECK_MESSAGE(named, message);
}

TEST_CASE("a DEFLATE stream shorter or longer than the recorded size is refused") {
  TempDir dir;
  const std::string payload = words(50000);
  const std::string bytes = testing::libzip_zip({{"r/a", payload, true}});

  SUBCASE("the directory records more bytes than the stream holds") {
    const auto path = dir.write("long.zip", with_recorded_size(bytes, payload.size() + 10));
    CHECK(has(archive_error_of([&] { ZipContainer::open_file(path)->read_text("a"); }),
              "r/a: cannot inflate at byte 50000: the DEFLATE stream ends before the entry's 50010 bytes"));
  }
  SUBCASE("the directory records fewer bytes than the stream holds") {
    const auto path = dir.write("short.zip", with_recorded_size(bytes, payload.size() - 10));
    CHECK(has(archive_error_of([&] { ZipContainer::open_file(path)->read_text("a"); }),
              "r/a: cannot inflate at byte 49990: the DEFLATE stream holds more than the entry's 49990 bytes"));
  }
}

TEST_CASE("an empty DEFLATE entry verifies, and its CRC is checked") {
  TempDir dir;
  std::string bytes = testing::libzip_zip({{"r/e", "", true}});
  REQUIRE(bytes[bytes.rfind("PK\x01\x02") + 10] == 8);  // DEFLATE, not stored as STORED
  CHECK(ZipContainer::open_file(dir.write("e.zip", bytes))->storage("e")->size() == 0);
  ZipContainer::open_file(dir.write("e.zip", bytes))->storage("e")->verify();
  put_le(bytes, bytes.rfind("PK\x01\x02") + 16, 0x1234, 4);  // the central record's CRC
  put_le(bytes, bytes.find("PK\x03\x04") + 14, 0x1234, 4);   // and the local header's
  const auto path = dir.write("bad.zip", bytes);
  CHECK(has(archive_error_of([&] { ZipContainer::open_file(path)->storage("e")->verify(); }), "CRC-32 mismatch"));
}

TEST_CASE("a DEFLATE entry cut short is refused") {
  TempDir dir;
  const std::string payload = words(100000);
  std::string bytes = testing::libzip_zip({{"r/a", payload, true}});
  // Half of the compressed bytes, by the central record's compressed size (offset 20) and the
  // local header's (offset 18); the rest stays in the file as bytes no entry claims.
  const size_t central = bytes.rfind("PK\x01\x02");
  const uint64_t compressed = static_cast<uint8_t>(bytes[central + 20]) | static_cast<uint8_t>(bytes[central + 21]) << 8 |
                              static_cast<uint64_t>(static_cast<uint8_t>(bytes[central + 22])) << 16;
  put_le(bytes, central + 20, compressed / 2, 4);
  put_le(bytes, bytes.find("PK\x03\x04") + 18, compressed / 2, 4);
  const auto path = dir.write("cut.zip", bytes);
  const std::string message = archive_error_of([&] { ZipContainer::open_file(path)->read_text("a"); });
  CHECK(has(message, "r/a: cannot inflate at byte "));
  CHECK(has(message, "the compressed data ends early"));
}

}  // namespace
}  // namespace pt2onnx::archive
