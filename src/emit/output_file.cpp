// Unnamed-then-linked output files, atomic replacement, output path checks, checked writes.
#include "emit/output_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>

#include "common/error.h"

namespace pt2onnx::emit {

namespace {

// How many random names to try before giving up (a collision means someone plants names).
constexpr int kNameAttempts = 8;

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

bool same_file(const struct stat& info, const std::optional<FileIdentity>& other) {
  return other && info.st_dev == other->device && info.st_ino == other->inode;
}

// Errors by which the kernel or file system says "no such rename flag here".
bool flag_unsupported(int err) { return err == EINVAL || err == ENOSYS || err == EOPNOTSUPP; }

std::string proc_fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// Refuses to replace an entry of `dir_fd` that is not a regular file or a symbolic link.
void check_replaceable(int dir_fd, const std::string& name, const std::filesystem::path& shown) {
  struct stat info {};
  if (::fstatat(dir_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return;
  if (!S_ISREG(info.st_mode) && !S_ISLNK(info.st_mode))
    fail(ErrorCode::kOutput, "cannot write '" + shown.string() + "': it is " + kind_of(info.st_mode) +
                                 "; pt2onnx writes only regular files and replaces nothing else");
}

}  // namespace

void fail_output(const std::filesystem::path& path, const std::string& doing, int err) {
  fail(ErrorCode::kOutput, doing + " '" + path.string() + "': " + std::strerror(err));
}

std::optional<FileIdentity> identity_of(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileIdentity{info.st_dev, info.st_ino};
}

void check_output_path(const std::filesystem::path& path, const std::optional<FileIdentity>& input,
                       const std::string& what) {
  if (path.empty()) fail(ErrorCode::kUsage, "the " + what + " path is empty (-o ''); name a file");
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..")
    fail(ErrorCode::kUsage, "the " + what + " path '" + path.string() + "' names a directory, not a file");
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return;  // nothing there (a missing folder fails on open)
  struct stat target = info;
  if (S_ISLNK(info.st_mode) && ::stat(path.c_str(), &target) != 0) return;  // a dangling link is replaced
  if (same_file(target, input))
    fail(ErrorCode::kUsage, "the " + what + " path '" + path.string() +
                                "' is the input archive itself (or a link to it); choose another -o");
  if (!S_ISREG(info.st_mode) && !S_ISLNK(info.st_mode))
    fail(ErrorCode::kOutput, "cannot write '" + path.string() + "': it is " + kind_of(info.st_mode) +
                                 "; pt2onnx writes only regular files and replaces nothing else");
}

std::string random_temp_name(const std::string& suffix) {
  uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, 0) != static_cast<ssize_t>(sizeof bits)) {
    std::random_device device;
    bits = (uint64_t{device()} << 32) ^ device();
  }
  static const char* const kHex = "0123456789abcdef";
  std::string name = ".pt2onnx-";
  for (int i = 15; i >= 0; --i) name += kHex[(bits >> (4 * i)) & 15];
  return name + "." + suffix;
}

TempOutputFile::TempOutputFile(std::filesystem::path final_path) : final_path_(std::move(final_path)) {
  name_ = final_path_.filename().string();
  if (name_.empty() || name_ == "." || name_ == "..")
    fail(ErrorCode::kUsage, "output path '" + final_path_.string() + "' names no file");
  const std::filesystem::path dir = final_path_.has_parent_path() ? final_path_.parent_path() : ".";
  dir_fd_ = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) fail_output(final_path_, "cannot write", errno);

  fd_ = ::openat(dir_fd_, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd_ >= 0 && ::access(proc_fd_path(fd_).c_str(), F_OK) == 0) {
    unnamed_ = true;  // linkat through /proc needs no privilege, unlike AT_EMPTY_PATH
    return;
  }
  const int err = errno;
  if (fd_ >= 0) {
    ::close(fd_);  // no /proc to link it by: use a named file instead
    fd_ = -1;
  } else if (!flag_unsupported(err) && err != EISDIR) {
    fail_output(final_path_, "cannot write", err);
  }
  open_named();
}

void TempOutputFile::open_named() {
  const std::filesystem::path dir = std::filesystem::absolute(final_path_).parent_path();
  for (int attempt = 0; attempt < kNameAttempts; ++attempt) {
    temp_name_ = random_temp_name("tmp");
    pending_ = PendingPath(dir / temp_name_, PendingPath::Kind::kFile);  // before it exists
    fd_ = ::openat(dir_fd_, temp_name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    const int err = errno;
    pending_.release();
    temp_name_.clear();
    if (err != EEXIST) fail_output(final_path_, "cannot write", err);
  }
  fail_output(final_path_, "cannot create a temporary file for", EEXIST);
}

TempOutputFile::~TempOutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) drop_temp_name();
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

void TempOutputFile::drop_temp_name() {
  if (!temp_name_.empty()) ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
  temp_name_.clear();
  pending_.release();
}

void TempOutputFile::commit() {
  check_replaceable(dir_fd_, name_, final_path_);
  if (unnamed_) {
    const std::string proc = proc_fd_path(fd_);
    // Nothing there yet: the link creates the final name, atomically and without replacing.
    if (::linkat(AT_FDCWD, proc.c_str(), dir_fd_, name_.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      committed_ = true;
      const int fd = fd_;
      fd_ = -1;
      if (::close(fd) != 0) {
        const int err = errno;
        ::unlinkat(dir_fd_, name_.c_str(), 0);  // ours: it did not exist a moment ago
        fail_output(final_path_, "cannot write", err);
      }
      return;
    }
    if (errno != EEXIST) fail_output(final_path_, "cannot write", errno);
    // An existing output: give the new file a temporary name, then exchange the two.
    const std::filesystem::path dir = std::filesystem::absolute(final_path_).parent_path();
    for (int attempt = 0; temp_name_.empty(); ++attempt) {
      if (attempt == kNameAttempts) fail_output(final_path_, "cannot create a temporary file for", EEXIST);
      temp_name_ = random_temp_name("tmp");
      pending_ = PendingPath(dir / temp_name_, PendingPath::Kind::kFile);
      if (::linkat(AT_FDCWD, proc.c_str(), dir_fd_, temp_name_.c_str(), AT_SYMLINK_FOLLOW) == 0) break;
      const int err = errno;
      pending_.release();
      temp_name_.clear();
      if (err != EEXIST) fail_output(final_path_, "cannot write", err);
    }
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail_output(final_path_, "cannot write", errno);
  move_into_place();
}

void TempOutputFile::move_into_place() {
  const char* temp = temp_name_.c_str();
  const char* name = name_.c_str();
  if (::renameat2(dir_fd_, temp, dir_fd_, name, RENAME_NOREPLACE) == 0) {
    committed_ = true;
  } else if (errno == EEXIST) {
    check_replaceable(dir_fd_, name_, final_path_);
    // A rename over an existing file would make ext4 (auto_da_alloc) flush the new file's data
    // inside rename(): for some hundred MB that cost more than the conversion. The exchange
    // does not, and the final path names a complete file at every moment.
    if (::renameat2(dir_fd_, temp, dir_fd_, name, RENAME_EXCHANGE) == 0) {
      committed_ = true;
      ::unlinkat(dir_fd_, temp, 0);  // the old output, under the temporary name now
    } else if (flag_unsupported(errno) && ::renameat(dir_fd_, temp, dir_fd_, name) == 0) {
      committed_ = true;
    }
  } else if (flag_unsupported(errno) && ::renameat(dir_fd_, temp, dir_fd_, name) == 0) {
    committed_ = true;
  }
  if (!committed_) fail_output(final_path_, "cannot write", errno);
  temp_name_.clear();
  pending_.release();
}

void replace_atomically(const std::filesystem::path& staged, const std::filesystem::path& final_path) {
  if (::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, final_path.c_str(), RENAME_NOREPLACE) == 0) return;
  int err = errno;
  if (err == EEXIST) {
    if (::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, final_path.c_str(), RENAME_EXCHANGE) == 0) {
      remove_tree_nofollow(staged.c_str());  // the old entry, under the staged name now
      return;
    }
    err = errno;
  }
  if (flag_unsupported(err)) {
    std::error_code ignored;
    std::filesystem::remove_all(final_path, ignored);
    if (::rename(staged.c_str(), final_path.c_str()) == 0) return;
    err = errno;
  }
  fail_output(final_path, "cannot move into place", err);
}

void preallocate(int fd, uint64_t offset, uint64_t n) {
  if (n == 0 || offset > static_cast<uint64_t>(INT64_MAX) || n > static_cast<uint64_t>(INT64_MAX) - offset) return;
  (void)::fallocate(fd, 0, static_cast<off_t>(offset), static_cast<off_t>(n));
}

void write_all_at(int fd, const void* data, size_t n, uint64_t offset, const std::filesystem::path& shown_path) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const size_t span = std::min<uint64_t>(n, kWriteSpanBytes - offset % kWriteSpanBytes);
    const ssize_t written = ::pwrite(fd, bytes, span, static_cast<off_t>(offset));
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
