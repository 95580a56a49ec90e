// Temp-file-then-rename output and checked writes.
#include "emit/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace pt2onnx::emit {

namespace {
// Distinguishes temp files of concurrent writes within one process (the pid alone would not).
std::atomic<uint64_t> temp_counter{0};
}  // namespace

void fail_output(const std::filesystem::path& path, const std::string& doing, int err) {
  fail(ErrorCode::kOutput, doing + " '" + path.string() + "': " + std::strerror(err));
}

TempOutputFile::TempOutputFile(std::filesystem::path final_path) : final_path_(std::move(final_path)) {
  const std::string name = final_path_.filename().string();
  if (name.empty()) fail(ErrorCode::kOutput, "output path '" + final_path_.string() + "' names no file");
  const std::string temp_name = "." + name + ".tmp." + std::to_string(::getpid()) + "." +
                                std::to_string(temp_counter.fetch_add(1));
  temp_path_ = final_path_.parent_path() / temp_name;
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) fail_output(final_path_, "cannot write", errno);
}

TempOutputFile::~TempOutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
}

void TempOutputFile::close_fd() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail_output(final_path_, "cannot write", errno);
}

void TempOutputFile::commit() {
  close_fd();
  // Renaming onto an existing file makes ext4 (auto_da_alloc) allocate and start writing the new
  // file's data inside rename(), and frees the old file there too: for a model of some hundred MB
  // that cost more than the conversion. A regular file already there is moved aside first, so the
  // rename is cheap, and removed after; on failure it is put back.
  struct stat existing {};
  const std::string aside = temp_path_.string() + ".old";
  const bool moved_aside = ::lstat(final_path_.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) &&
                           ::rename(final_path_.c_str(), aside.c_str()) == 0;
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    const int err = errno;
    if (moved_aside) ::rename(aside.c_str(), final_path_.c_str());
    fail_output(final_path_, "cannot write", err);
  }
  committed_ = true;
  if (moved_aside) ::unlink(aside.c_str());
}

void write_all_at(int fd, const void* data, size_t n, uint64_t offset, const std::filesystem::path& shown_path) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t written = ::pwrite(fd, bytes, n, static_cast<off_t>(offset));
    if (written < 0) {
      if (errno == EINTR) continue;
      fail_output(shown_path, "cannot write", errno);
    }
    if (written == 0) fail_output(shown_path, "cannot write", EIO);  // would spin forever
    bytes += written;
    n -= static_cast<size_t>(written);
    offset += static_cast<uint64_t>(written);
  }
}

}  // namespace pt2onnx::emit
