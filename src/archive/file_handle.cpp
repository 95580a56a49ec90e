#include "archive/file_handle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace pt2onnx::archive {

FileHandle::FileHandle(const std::filesystem::path& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) fail(ErrorCode::kArchive, path.string() + ": cannot open: " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    fail(ErrorCode::kArchive, path.string() + ": not a regular file (a FIFO, device or directory cannot be an archive)");
  }
  ::fcntl(fd_, F_SETFL, 0);  // regular files never block; reads behave as usual
  size_ = static_cast<uint64_t>(info.st_size);
}

FileHandle::~FileHandle() {
  if (fd_ >= 0) ::close(fd_);
}

void FileHandle::read_exact(uint64_t offset, uint64_t n, void* dst, const std::string& what) const {
  if (offset > size_ || n > size_ - offset) {
    fail(ErrorCode::kArchive, what + ": needs bytes [" + std::to_string(offset) + ", " +
                                  std::to_string(offset + n) + ") but the file has " +
                                  std::to_string(size_) + " bytes (truncated?)");
  }
  auto* out = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      fail(ErrorCode::kArchive, what + ": read failed at byte " + std::to_string(offset) + ": " +
                                    (got < 0 ? std::strerror(errno) : "unexpected end of file"));
    }
    out += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<uint64_t>(got);
  }
}

}  // namespace pt2onnx::archive
