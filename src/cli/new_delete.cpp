// The CLI's operator new and delete on mimalloc, replacing those that libmimalloc exports. Its
// own (a C library) abort() when memory runs out, since a new handler is invisible to it; these
// throw std::bad_alloc as the standard's do, so that a memory cap (ulimit -v) met on any thread
// ends in convert()'s one-line "out of memory" error and exit status, not in SIGABRT.
#ifdef PT2ONNX_WITH_MIMALLOC

#include <cstddef>
#include <new>

#include <mimalloc.h>

namespace {

// What the standard's operator new does: ask the new handler for memory until there is some, or
// throw when there is no handler. `try_allocate` returns null when mimalloc has none.
template <typename TryAllocate>
void* allocate_or_throw(TryAllocate&& try_allocate) {
  for (;;) {
    if (void* p = try_allocate()) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* allocate(std::size_t n) {
  return allocate_or_throw([n] { return mi_malloc(n); });
}

void* allocate_aligned(std::size_t n, std::align_val_t align) {
  return allocate_or_throw([n, align] { return mi_malloc_aligned(n, static_cast<std::size_t>(align)); });
}

template <typename Allocate>
void* allocate_or_null(Allocate&& allocate_fn) noexcept {
  try {
    return allocate_fn();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return allocate_or_null([n] { return allocate(n); });
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return allocate_or_null([n] { return allocate(n); });
}
void* operator new(std::size_t n, std::align_val_t align) { return allocate_aligned(n, align); }
void* operator new[](std::size_t n, std::align_val_t align) { return allocate_aligned(n, align); }
void* operator new(std::size_t n, std::align_val_t align, const std::nothrow_t&) noexcept {
  return allocate_or_null([n, align] { return allocate_aligned(n, align); });
}
void* operator new[](std::size_t n, std::align_val_t align, const std::nothrow_t&) noexcept {
  return allocate_or_null([n, align] { return allocate_aligned(n, align); });
}

void operator delete(void* p) noexcept { mi_free(p); }
void operator delete[](void* p) noexcept { mi_free(p); }
void operator delete(void* p, std::size_t) noexcept { mi_free(p); }
void operator delete[](void* p, std::size_t) noexcept { mi_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { mi_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { mi_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { mi_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { mi_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { mi_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { mi_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { mi_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { mi_free(p); }

#endif  // PT2ONNX_WITH_MIMALLOC
