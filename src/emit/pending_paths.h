// Paths that must not outlive an interrupted run: named temporary outputs and staged kernel
// bundle directories. On SIGINT, SIGTERM or SIGHUP every registered path is removed, then the
// process dies of the same signal (so a shell sees the conventional 128 + signal status).
#pragma once

#include <filesystem>

namespace pt2onnx::emit {

class PendingPath {
 public:
  enum class Kind { kFile, kTree };

  PendingPath() = default;
  // Registers `path` (absolute or relative to the working directory at the time of the
  // signal; pass absolute paths) before the caller creates it, and installs the signal
  // handlers once (only over default dispositions: an embedding program keeps its own).
  // Throws Error(kOutput) when the path is too long for the table or the table is full.
  PendingPath(const std::filesystem::path& path, Kind kind);
  ~PendingPath() { release(); }  // forgets the path; does not remove it
  PendingPath(PendingPath&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  PendingPath& operator=(PendingPath&& other) noexcept;
  PendingPath(const PendingPath&) = delete;
  PendingPath& operator=(const PendingPath&) = delete;

  void release();
  bool armed() const { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

// Removes a directory tree without following symbolic links (what the signal handler does for
// kTree, usable outside it too). Returns false if something could not be removed.
bool remove_tree_nofollow(const char* path);

}  // namespace pt2onnx::emit
