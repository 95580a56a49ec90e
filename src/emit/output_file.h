// An output written under a hidden temporary name beside its final path and renamed into place
// only when the caller commits, so a failed write never leaves a partial or clobbered file.
#pragma once

#include <filesystem>
#include <string>

namespace pt2onnx::emit {

class TempOutputFile {
 public:
  // Creates ".<name>.tmp.<pid>.<n>" in the final path's directory. Throws Error(kOutput) naming
  // the final path and strerror when it cannot be created (missing or read-only directory).
  explicit TempOutputFile(std::filesystem::path final_path);
  ~TempOutputFile();  // closes and removes the temp file unless committed
  TempOutputFile(const TempOutputFile&) = delete;
  TempOutputFile& operator=(const TempOutputFile&) = delete;

  int fd() const { return fd_; }
  const std::filesystem::path& final_path() const { return final_path_; }
  const std::filesystem::path& temp_path() const { return temp_path_; }

  // Closes the file (reporting deferred write errors) and renames it onto the final path.
  // Throws Error(kOutput); the temp file is then still removed by the destructor.
  void commit();

 private:
  void close_fd();

  std::filesystem::path final_path_;
  std::filesystem::path temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

// "cannot write 'path': <strerror(err)>" as an Error(kOutput).
[[noreturn]] void fail_output(const std::filesystem::path& path, const std::string& doing, int err);

// Writes all n bytes at `offset` (retrying short writes and EINTR); throws Error(kOutput)
// naming `shown_path`.
void write_all_at(int fd, const void* data, size_t n, uint64_t offset, const std::filesystem::path& shown_path);

}  // namespace pt2onnx::emit
