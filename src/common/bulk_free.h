// Freeing most of a large conversion's memory at once (the IR, once translated). The library
// leaves the allocator to its host: a host whose allocator keeps freed pages resident for a while
// installs a hook that has it give these back at once (the CLI sets mimalloc's decommit delay to
// 0 around it), so that what is read next does not add its memory to theirs. Process-wide,
// set once by the program's main() before any conversion; unset, `release` just runs.
#pragma once

#include <functional>

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

}  // namespace pt2onnx
