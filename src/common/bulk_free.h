// How a large conversion's memory goes back, as its host wants it: both are process-wide
// settings of the program's main(), made once before any conversion; the library leaves the
// allocator to its host.
//
// Freeing most of it at once (the IR, once translated): a host whose allocator keeps freed pages
// resident for a while installs a hook that has it give these back at once (the CLI sets
// mimalloc's decommit delay to 0 around it), so that what is read next does not add its memory to
// theirs. Unset, `release` just runs.
//
// Not freeing it at all: a host that exits right after its conversions (the CLI) has the largest
// values of each (the ONNX model, the weights' index, the archive) left for the process's exit to
// reclaim, instead of being freed one allocation at a time, as compilers do.
#pragma once

#include <functional>
#include <type_traits>
#include <utility>

namespace pt2onnx {

using BulkFreeHook = void (*)(const std::function<void()>& release);

inline BulkFreeHook& bulk_free_hook() {
  static BulkFreeHook hook = nullptr;
  return hook;
}

inline void bulk_free(const std::function<void()>& release) {
  if (BulkFreeHook hook = bulk_free_hook()) hook(release);
  else release();
}

// Whether the process's exit reclaims what conversions leave (off unless main() sets it; never
// under LeakSanitizer, which would report it).
inline bool& exit_reclaims_memory() {
  static bool reclaims = false;
  return reclaims;
}

// Moves `value` out to be left for the process's exit, when exit_reclaims_memory(); else leaves
// it to be destroyed with its owner, as usual.
template <typename T>
void leave_for_exit(T& value) {
  if (exit_reclaims_memory()) static_cast<void>(new std::remove_cv_t<T>(std::move(value)));
}

}  // namespace pt2onnx
