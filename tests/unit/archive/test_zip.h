// Zip writers and temp files for the archive tests. Archives are built inside the tests so
// that every reader path has a fixture whose bytes we control.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pt2onnx::archive::testing {

struct ZipItem {
  std::string name;
  std::string bytes;
  bool deflate = false;  // only libzip_zip can compress
};

// Laid out like PyTorchStreamWriter: data descriptors with zeroed local sizes, data aligned to
// 64 bytes by an "FB" padding field in the LOCAL header only, ZIP64 end records. With
// `zip64_fields` the central directory also sends sizes and offsets through ZIP64 extra fields
// (as for entries past 4 GiB).
std::string torch_style_zip(const std::vector<ZipItem>& items, bool zip64_fields = false);

// Written by libzip (STORED unless the item asks for DEFLATE), like Python's zipfile or a
// user's re-zip.
std::string libzip_zip(const std::vector<ZipItem>& items);

// A fresh directory, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& name, const std::string& bytes) const;

 private:
  std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& path);

// Raw little-endian bytes of values, for weight blobs.
std::string float_bytes(const std::vector<float>& values);
std::string int64_bytes(const std::vector<int64_t>& values);

}  // namespace pt2onnx::archive::testing
