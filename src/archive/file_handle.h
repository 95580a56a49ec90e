// A read-only file descriptor shared by every storage of one archive, read with pread so that
// storages can be read from several threads without a shared cursor.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace pt2onnx::archive {

class FileHandle {
 public:
  // Throws Error(kArchive) naming the file when it cannot be opened or is not a regular file
  // (checked without blocking: a FIFO is refused, not waited on).
  explicit FileHandle(const std::filesystem::path& path);
  ~FileHandle();
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;

  const std::filesystem::path& path() const { return path_; }
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  // Reads exactly n bytes at offset; `what` names the data in the error message.
  void read_exact(uint64_t offset, uint64_t n, void* dst, const std::string& what) const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace pt2onnx::archive
