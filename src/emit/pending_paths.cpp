// The registry is a fixed table of path buffers so that the signal handler needs no allocation
// and no locks: each slot is claimed with a compare-and-swap and published when its text is
// complete. The handler uses only async-signal-safe calls (unlink, openat, getdents64, rmdir).
#include "emit/pending_paths.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "common/error.h"

namespace pt2onnx::emit {

namespace {

constexpr int kSlots = 128;
constexpr int kFree = 0, kWriting = 1, kArmed = 2;
constexpr int kMaxTreeDepth = 16;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

struct Slot {
  std::atomic<int> state{kFree};
  PendingPath::Kind kind = PendingPath::Kind::kFile;
  char path[PATH_MAX] = {};
};

Slot slots[kSlots];

bool remove_entries(int dir_fd, int depth) {
  if (depth > kMaxTreeDepth) return false;
  alignas(8) char buffer[2048];
  bool ok = true;
  for (;;) {
    const long got = ::syscall(SYS_getdents64, dir_fd, buffer, sizeof buffer);
    if (got <= 0) return ok && got == 0;
    bool removed_any = false;
    for (long pos = 0; pos < got;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + pos);
      pos += entry->d_reclen;
      const char* name = entry->d_name;
      if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
      if (entry->d_type != DT_DIR && ::unlinkat(dir_fd, name, 0) == 0) {
        removed_any = true;
        continue;
      }
      const int child = ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child < 0) {
        ok = false;
        continue;
      }
      ok = remove_entries(child, depth + 1) && ok;
      ::close(child);
      if (::unlinkat(dir_fd, name, AT_REMOVEDIR) == 0) removed_any = true;
      else ok = false;
    }
    // Removing entries while reading the directory may hide others from this pass: rewind.
    if (removed_any) ::lseek(dir_fd, 0, SEEK_SET);
    else if (!ok) return false;
  }
}

void remove_registered() {
  for (Slot& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) != kArmed) continue;
    if (slot.kind == PendingPath::Kind::kFile) ::unlink(slot.path);
    else remove_tree_nofollow(slot.path);
  }
}

extern "C" void on_fatal_signal(int sig) {
  remove_registered();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = on_fatal_signal;
      sigemptyset(&action.sa_mask);
      for (int other : kSignals) sigaddset(&action.sa_mask, other);  // one cleanup at a time
      ::sigaction(sig, &action, nullptr);
    }
  });
}

}  // namespace

bool remove_tree_nofollow(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return ::unlink(path) == 0;  // a file or a symbolic link: remove the name only
  const bool ok = remove_entries(fd, 0);
  ::close(fd);
  return ::rmdir(path) == 0 && ok;
}

PendingPath::PendingPath(const std::filesystem::path& path, Kind kind) {
  install_handlers();
  const std::string text = path.string();
  if (text.empty() || text.size() >= PATH_MAX)
    fail(ErrorCode::kOutput, "cannot write '" + text + "': path too long (" + std::to_string(text.size()) + " bytes)");
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kWriting, std::memory_order_acq_rel)) continue;
    std::memcpy(slots[i].path, text.c_str(), text.size() + 1);
    slots[i].kind = kind;
    slots[i].state.store(kArmed, std::memory_order_release);
    slot_ = i;
    return;
  }
  fail(ErrorCode::kOutput, "cannot write '" + text + "': more than " + std::to_string(kSlots) +
                               " temporary outputs at once");
}

PendingPath& PendingPath::operator=(PendingPath&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void PendingPath::release() {
  if (slot_ < 0) return;
  slots[slot_].state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

}  // namespace pt2onnx::emit
