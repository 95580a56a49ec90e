#include "archive/test_zip.h"

#include <zip.h>

#include <array>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace pt2onnx::archive::testing {

namespace {

uint32_t crc32_of(const std::string& bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : bytes) crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

void put(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

}  // namespace

std::string torch_style_zip(const std::vector<ZipItem>& items, bool zip64_fields) {
  constexpr uint64_t kAlignment = 64;
  std::string out;
  std::string directory;
  for (const ZipItem& item : items) {
    if (item.deflate) throw std::logic_error("torch_style_zip writes STORED entries only");
    const uint64_t header_offset = out.size();
    // Pad with an "FB" extra block so that the data starts on a 64-byte boundary.
    const uint64_t unpadded = header_offset + 30 + item.name.size() + 4;
    const uint64_t padding = (kAlignment - unpadded % kAlignment) % kAlignment;
    put(out, 0x04034b50, 4);
    put(out, 20, 2);      // version needed
    put(out, 0x0808, 2);  // data descriptor follows; UTF-8 names
    put(out, 0, 2);       // STORED
    put(out, 0, 4);       // time, date
    put(out, 0, 4);       // crc, sizes: in the data descriptor
    put(out, 0, 4);
    put(out, 0, 4);
    put(out, item.name.size(), 2);
    put(out, 4 + padding, 2);
    out += item.name;
    out += "FB";
    put(out, padding, 2);
    out += std::string(padding, 'Z');
    out += item.bytes;
    const uint32_t crc = crc32_of(item.bytes);
    put(out, 0x08074b50, 4);
    put(out, crc, 4);
    put(out, item.bytes.size(), zip64_fields ? 8 : 4);
    put(out, item.bytes.size(), zip64_fields ? 8 : 4);

    const uint64_t saturated = 0xFFFFFFFF;
    put(directory, 0x02014b50, 4);
    put(directory, 0x031e, 2);  // made by
    put(directory, 45, 2);      // needed: ZIP64
    put(directory, 0x0808, 2);
    put(directory, 0, 2);
    put(directory, 0, 4);
    put(directory, crc, 4);
    put(directory, zip64_fields ? saturated : item.bytes.size(), 4);
    put(directory, zip64_fields ? saturated : item.bytes.size(), 4);
    put(directory, item.name.size(), 2);
    put(directory, zip64_fields ? 28 : 0, 2);
    put(directory, 0, 2);  // comment
    put(directory, 0, 2);  // disk
    put(directory, 0, 2);  // internal attributes
    put(directory, 0, 4);  // external attributes
    put(directory, zip64_fields ? saturated : header_offset, 4);
    directory += item.name;
    if (zip64_fields) {
      put(directory, 0x0001, 2);
      put(directory, 24, 2);
      put(directory, item.bytes.size(), 8);
      put(directory, item.bytes.size(), 8);
      put(directory, header_offset, 8);
    }
  }
  const uint64_t directory_offset = out.size();
  out += directory;
  const uint64_t zip64_end_offset = out.size();
  put(out, 0x06064b50, 4);
  put(out, 44, 8);
  put(out, 0x031e, 2);
  put(out, 45, 2);
  put(out, 0, 4);
  put(out, 0, 4);
  put(out, items.size(), 8);
  put(out, items.size(), 8);
  put(out, directory.size(), 8);
  put(out, directory_offset, 8);
  put(out, 0x07064b50, 4);
  put(out, 0, 4);
  put(out, zip64_end_offset, 8);
  put(out, 1, 4);
  put(out, 0x06054b50, 4);
  put(out, 0, 4);
  put(out, zip64_fields ? 0xFFFF : items.size(), 2);
  put(out, zip64_fields ? 0xFFFF : items.size(), 2);
  put(out, zip64_fields ? 0xFFFFFFFF : directory.size(), 4);
  put(out, zip64_fields ? 0xFFFFFFFF : directory_offset, 4);
  put(out, 0, 2);
  return out;
}

std::string libzip_zip(const std::vector<ZipItem>& items) {
  TempDir dir;
  const std::filesystem::path path = dir.path() / "out.zip";
  int code = 0;
  zip_t* zip = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (zip == nullptr) throw std::runtime_error("libzip cannot create " + path.string());
  for (const ZipItem& item : items) {
    zip_source_t* source = zip_source_buffer(zip, item.bytes.data(), item.bytes.size(), 0);
    const zip_int64_t index = zip_file_add(zip, item.name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (source == nullptr || index < 0 ||
        zip_set_file_compression(zip, static_cast<zip_uint64_t>(index),
                                 item.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) != 0) {
      zip_discard(zip);
      throw std::runtime_error("libzip cannot add " + item.name);
    }
  }
  if (zip_close(zip) != 0) {
    zip_discard(zip);
    throw std::runtime_error("libzip cannot write " + path.string());
  }
  return read_file(path);
}

TempDir::TempDir() {
  std::random_device seed;
  std::mt19937_64 random(seed());
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::ostringstream name;
    name << "pt2onnx-archive-test-" << std::hex << random();
    path_ = std::filesystem::temp_directory_path() / name.str();
    if (std::filesystem::create_directory(path_)) return;
  }
  throw std::runtime_error("cannot create a temp directory");
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path TempDir::write(const std::string& name, const std::string& bytes) const {
  const std::filesystem::path file = path_ / name;
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + file.string());
  return file;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string float_bytes(const std::vector<float>& values) {
  std::string out(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::string int64_bytes(const std::vector<int64_t>& values) {
  std::string out(values.size() * sizeof(int64_t), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

}  // namespace pt2onnx::archive::testing
