// The one way pt2onnx creates an output file. The file is written unnamed (O_TMPFILE) in the
// final path's directory and given its name only on commit, so a failed or interrupted write
// leaves nothing behind, not even after SIGKILL. Where O_TMPFILE is unavailable it is created
// under a random name with O_EXCL|O_NOFOLLOW, registered for removal on SIGINT/SIGTERM/SIGHUP.
// An existing output is replaced atomically (the path always names a complete file): exchanged
// with the new one (renameat2 RENAME_EXCHANGE, which on ext4 skips the data flush that a rename
// over an existing file forces), then the old one is unlinked.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "emit/pending_paths.h"

namespace pt2onnx::emit {

// A file that must not be overwritten (the input archive), by identity, not by name: a hard or
// symbolic link to it is the same file.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
};
std::optional<FileIdentity> identity_of(const std::filesystem::path& path);  // follows links

// Refuses an output path before any work: empty (kUsage), naming the input itself or a link to
// it (kUsage), or naming something that is not a regular file or a symbolic link (a directory,
// a character device, a FIFO, a socket: kOutput; never replaced). `what` is "output" or
// "external data", for the message.
void check_output_path(const std::filesystem::path& path, const std::optional<FileIdentity>& input,
                       const std::string& what = "output");

class TempOutputFile {
 public:
  // Opens the unnamed file in the final path's directory. Throws Error(kOutput) naming the
  // final path and strerror when it cannot (missing or read-only directory).
  explicit TempOutputFile(std::filesystem::path final_path);
  ~TempOutputFile();  // closes and discards the file unless committed
  TempOutputFile(const TempOutputFile&) = delete;
  TempOutputFile& operator=(const TempOutputFile&) = delete;

  int fd() const { return fd_; }
  const std::filesystem::path& final_path() const { return final_path_; }

  // Gives the file its final name, replacing a regular file or symbolic link there atomically,
  // and closes it (reporting deferred write errors). Throws Error(kOutput); nothing is then
  // left at the final path that was not there before.
  void commit();

 private:
  void open_named();
  void move_into_place();  // the named temp file onto final_path_
  void drop_temp_name();

  std::filesystem::path final_path_;
  std::string name_;       // final_path_'s file name
  int dir_fd_ = -1;        // the final path's directory, pinned for *at() calls
  int fd_ = -1;
  bool unnamed_ = false;   // O_TMPFILE: no name until commit
  std::string temp_name_;  // in dir_fd_, while a name exists
  PendingPath pending_;    // temp_name_ registered for signal cleanup
  bool committed_ = false;
};

// "cannot write 'path': <strerror(err)>" as an Error(kOutput).
[[noreturn]] void fail_output(const std::filesystem::path& path, const std::string& doing, int err);

// The most one pwrite writes, ending on a multiple of it in the file. The page cache sizes a new
// folio by the write that makes it: a write of megabytes asks for large folios, which cost far
// more to allocate than they save (1.7 GB in 16 MiB writes: 1.6 s; in aligned 128 KiB ones: 0.4 s,
// as fast as cp's in-kernel copy; unaligned ones 0.6 s).
inline constexpr uint64_t kWriteSpanBytes = uint64_t{128} << 10;

// Writes all n bytes at `offset` (retrying short writes and EINTR) in spans of at most
// kWriteSpanBytes aligned in the file; throws Error(kOutput) naming `shown_path`.
void write_all_at(int fd, const void* data, size_t n, uint64_t offset, const std::filesystem::path& shown_path);

// Allocates the file's blocks for [offset, offset + n) ahead of the writes that fill it, where
// the file system can (fallocate): ext4's buffered writes into allocated blocks skip the
// delayed-allocation bookkeeping of each block (96 MiB in 128 KiB writes: 17-21 ms instead of
// 23-25). The range reads as zeros until written, and the file grows to its end if shorter.
// Best effort: a file system that cannot, or a full disk, leaves the writes to report it.
void preallocate(int fd, uint64_t offset, uint64_t n);

// A name no one can guess for a temporary entry in a directory: ".pt2onnx-<16 hex>.<suffix>"
// (short, so any final name up to the 255-byte limit works).
std::string random_temp_name(const std::string& suffix);

// Moves `staged` (a file or directory tree in the same directory) onto `final_path`: a plain
// no-replace rename when nothing is there, otherwise an exchange followed by removing the old
// entry, so `final_path` always names something complete. Throws Error(kOutput).
void replace_atomically(const std::filesystem::path& staged, const std::filesystem::path& final_path);

}  // namespace pt2onnx::emit
