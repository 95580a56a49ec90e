// In-kernel copies with fallbacks, and the buffered gather for everything else.
#include "emit/tensor_copier.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "archive/zip_crc.h"
#include "common/error.h"
#include "emit/mapped_windows.h"
#include "emit/output_file.h"
#include "emit/permuted_copy.h"
#include "emit/range_checksum.h"
#include "emit/scaled_copy.h"

namespace pt2onnx::emit {

namespace {

// Large enough that read/write syscalls cost little next to the copy itself, small enough to
// keep a chunk a small part of peak memory.
constexpr size_t kCopyChunkBytes = size_t{8} << 20;
// copy_file_range takes a size_t, but kernels cap one call near 2 GiB anyway.
constexpr uint64_t kMaxCopyPerCall = uint64_t{1} << 30;
// Entries up to this size are checksummed and copied through the buffer on this thread: a
// thread or a mapping costs more than the two copies of so few bytes (most biases and norms).
constexpr uint64_t kInlineChecksumBytes = uint64_t{1} << 20;
static_assert(kInlineChecksumBytes <= kCopyChunkBytes, "the buffer holds a whole small entry");

// Errors by which copy_file_range says "not between these files" rather than "I/O failed".
bool copy_unsupported(int err) { return err == EXDEV || err == ENOSYS || err == EINVAL || err == EOPNOTSUPP; }

[[noreturn]] void fail_short(const archive::Storage& storage, const std::filesystem::path& archive_path,
                             uint64_t archive_offset) {
  fail(ErrorCode::kArchive, describe_storage(storage) + ": archive '" + archive_path.string() + "' ends at byte " +
                                std::to_string(archive_offset) + ", inside the tensor's data");
}

}  // namespace

TensorCopier::TensorCopier(std::filesystem::path archive_path) : archive_path_(std::move(archive_path)) {}

TensorCopier::~TensorCopier() {
  if (archive_fd_ >= 0) ::close(archive_fd_);
}

void TensorCopier::copy(const archive::TensorData& tensor, const TensorLayout& layout, int out_fd,
                        uint64_t out_offset, const std::filesystem::path& out_path) {
  const archive::Storage& storage = *tensor.storage;
  const std::optional<uint64_t> file_offset = storage.file_offset();
  const archive::EntryCrc* crc = storage.entry_crc();
  if (layout.contiguous && file_offset) {
    if (crc && !crc->done() && layout.span_begin == 0 && layout.nbytes == storage.size()) {
      // The whole entry: checksummed as it is copied, so its bytes are read once from disk.
      crc->check(copy_checksummed(*file_offset, layout.nbytes, out_fd, out_offset, out_path, storage));
      return;
    }
    storage.verify();  // a part of an entry: check the entry first (once), then copy in-kernel
    copy_from_archive(*file_offset + layout.span_begin, layout.nbytes, out_fd, out_offset, out_path, storage);
    return;
  }
  const auto* scaled = dynamic_cast<const ScaledStorage*>(&storage);
  if (layout.contiguous && scaled && scaled->source().storage->file_offset()) {
    copy_scaled_tensor(*scaled, layout, out_fd, out_offset, out_path);
    return;
  }
  if (!layout.contiguous && is_dense_permutation(layout)) {
    copy_permuted_tensor(storage, layout, out_fd, out_offset, out_path);
    return;
  }
  gather_tensor(layout, storage, kCopyChunkBytes, [&](const uint8_t* data, size_t n) {
    write_all_at(out_fd, data, n, out_offset, out_path);
    out_offset += n;
  });
}

// A weight folded through a Transpose: its source read once, front to back, from mappings of the
// archive (no copy into a buffer), and checksummed on the way when that is its whole entry (else
// the entry is checked first, once).
void TensorCopier::copy_permuted_tensor(const archive::Storage& storage, const TensorLayout& layout, int out_fd,
                                        uint64_t out_offset, const std::filesystem::path& out_path) {
  const std::optional<uint64_t> file_offset = storage.file_offset();
  const archive::EntryCrc* crc = storage.entry_crc();
  const bool checksum =
      file_offset && crc && !crc->done() && layout.span_begin == 0 && layout.nbytes == storage.size();
  if (file_offset && !checksum) storage.verify();
  if (file_offset) {
    struct stat info {};
    // Mapped bytes past the end of the file would fault (SIGBUS): the range must be there.
    const uint64_t end = *file_offset + layout.span_end;
    if (::fstat(archive_fd(), &info) != 0 || end > static_cast<uint64_t>(info.st_size))
      fail_short(storage, archive_path_, static_cast<uint64_t>(info.st_size));
  }
  uint32_t sum = 0;
  std::optional<MappedRange> window;
  auto read = [&](uint64_t offset, uint64_t n) -> const uint8_t* {
    window.reset();
    std::vector<uint8_t>& buffer = permute_source_;
    if (!file_offset) {  // computed or compressed: read() checks it
      buffer.resize(std::max<size_t>(buffer.size(), n));
      storage.read(layout.span_begin + offset, n, buffer.data());
      return buffer.data();
    }
    const uint64_t at = *file_offset + layout.span_begin + offset;
    window.emplace(archive_fd(), at, n, /*populate=*/true);
    const uint8_t* bytes = window->data();
    if (bytes == nullptr) {  // the kernel would not map it: through the buffer
      buffer.resize(std::max<size_t>(buffer.size(), n));
      read_archive(at, n, buffer.data(), storage);
      bytes = buffer.data();
    }
    if (checksum) sum = archive::crc32_update(sum, bytes, n);
    return bytes;
  };
  auto write = [&](uint64_t offset, const uint8_t* data, uint64_t n) {
    write_all_at(out_fd, data, n, out_offset + offset, out_path);
  };
  copy_permuted(layout, PermuteSizes{}, read, write, permute_blocks_, write_behind_);
  if (checksum) crc->check(sum);
}

// A weight with a folded BatchNorm: its source entry read once from mappings of the archive and
// checksummed tile by tile as it is scaled, when that is the whole entry (else the entry is
// checked first, once).
void TensorCopier::copy_scaled_tensor(const ScaledStorage& scaled, const TensorLayout& layout, int out_fd,
                                      uint64_t out_offset, const std::filesystem::path& out_path) {
  const archive::Storage& entry = *scaled.source().storage;
  const uint64_t begin = static_cast<uint64_t>(scaled.source().storage_offset) * sizeof(float) + layout.span_begin;
  const uint64_t at = *entry.file_offset() + begin;
  const archive::EntryCrc* crc = entry.entry_crc();
  const bool checksum = crc && !crc->done() && begin == 0 && layout.nbytes == entry.size();
  if (!checksum) entry.verify();
  struct stat info {};
  // Mapped bytes past the end of the file would fault (SIGBUS): the range must be there.
  if (::fstat(archive_fd(), &info) != 0 || at + layout.nbytes > static_cast<uint64_t>(info.st_size))
    fail_short(entry, archive_path_, static_cast<uint64_t>(info.st_size));
  uint32_t sum = 0;
  std::optional<MappedRange> window;
  uint64_t window_begin = 0, window_end = 0;  // of the range copied, mapped by `window`
  auto read = [&](uint64_t offset, uint64_t n) -> const uint8_t* {
    const uint8_t* bytes = nullptr;
    if (offset < window_begin || offset + n > window_end) {
      window.reset();
      window_begin = offset;
      window_end = offset + std::max(n, std::min(kMapWindowBytes, layout.nbytes - offset));
      window.emplace(archive_fd(), at + window_begin, window_end - window_begin, /*populate=*/true);
    }
    if (window->data() != nullptr) {
      bytes = window->data() + (offset - window_begin);
    } else {  // the kernel would not map it: through the buffer
      std::vector<uint8_t>& buffer = copy_buffer();
      read_archive(at + offset, n, buffer.data(), entry);
      bytes = buffer.data();
    }
    if (checksum) sum = archive::crc32_update(sum, bytes, n);
    return bytes;
  };
  auto write = [&](uint64_t offset, const uint8_t* data, uint64_t n) {
    write_all_at(out_fd, data, n, out_offset + offset, out_path);
  };
  copy_scaled(scaled, layout.span_begin / sizeof(float), layout.numel, read, write, scaled_tiles_, write_behind_);
  if (checksum) crc->check(sum);
}

void TensorCopier::copy_from_archive(uint64_t archive_offset, uint64_t n, int out_fd, uint64_t out_offset,
                                     const std::filesystem::path& out_path, const archive::Storage& storage) {
  const int in_fd = archive_fd();
  auto in = static_cast<off_t>(archive_offset);
  auto out = static_cast<off_t>(out_offset);
  uint64_t left = n;
  while (left > 0 && in_kernel_copy_) {
    const ssize_t copied = ::copy_file_range(in_fd, &in, out_fd, &out, std::min(left, kMaxCopyPerCall), 0);
    if (copied < 0) {
      if (errno == EINTR) continue;
      if (copy_unsupported(errno)) {
        in_kernel_copy_ = false;  // the same pair of files will not work next time either
        break;
      }
      fail_output(out_path, "cannot write", errno);
    }
    if (copied == 0) fail_short(storage, archive_path_, static_cast<uint64_t>(in));
    left -= static_cast<uint64_t>(copied);
  }
  if (left > 0)
    copy_in_user_space(static_cast<uint64_t>(in), left, out_fd, static_cast<uint64_t>(out), out_path, storage);
}

// Copies through read-only mappings of the archive: pwrite copies each window straight from the
// page cache, one copy as copy_file_range makes (read+write through a buffer makes two). A window
// the kernel will not map goes through the buffer.
void TensorCopier::copy_in_user_space(uint64_t archive_offset, uint64_t n, int out_fd, uint64_t out_offset,
                                      const std::filesystem::path& out_path, const archive::Storage& storage) {
  uint64_t written = 0;
  for_each_window(
      archive_fd(), archive_offset, n, /*populate=*/false, [this]() -> std::vector<uint8_t>& { return copy_buffer(); },
      [&](uint64_t offset, uint64_t count, uint8_t* dst) { read_archive(offset, count, dst, storage); },
      [&](const uint8_t* bytes, uint64_t length) {
        write_all_at(out_fd, bytes, length, out_offset + written, out_path);
        written += length;
        return true;
      });
}

// The copy as copy_from_archive makes it, while a second thread checksums the same bytes
// (emit/range_checksum.h says why); small entries on this thread.
uint32_t TensorCopier::copy_checksummed(uint64_t archive_offset, uint64_t n, int out_fd, uint64_t out_offset,
                                        const std::filesystem::path& out_path, const archive::Storage& storage) {
  const int in_fd = archive_fd();
  struct stat info {};
  // Mapped bytes past the end of the file would fault (SIGBUS): the range must be there.
  if (::fstat(in_fd, &info) != 0 || archive_offset > static_cast<uint64_t>(info.st_size) ||
      n > static_cast<uint64_t>(info.st_size) - archive_offset)
    fail_short(storage, archive_path_, static_cast<uint64_t>(info.st_size));
  if (n <= kInlineChecksumBytes) {
    std::vector<uint8_t>& buffer = copy_buffer();
    read_archive(archive_offset, n, buffer.data(), storage);
    write_all_at(out_fd, buffer.data(), n, out_offset, out_path);
    return archive::crc32_update(0, buffer.data(), n);
  }
  RangeChecksum checksum(
      in_fd, archive_offset, n,
      [this, &storage](uint64_t offset, uint64_t count, uint8_t* dst) { read_archive(offset, count, dst, storage); },
      write_behind_);
  copy_from_archive(archive_offset, n, out_fd, out_offset, out_path, storage);
  return checksum.wait();
}

void TensorCopier::read_archive(uint64_t archive_offset, uint64_t n, uint8_t* dst, const archive::Storage& storage) {
  const int in_fd = archive_fd();
  while (n > 0) {
    const ssize_t got = ::pread(in_fd, dst, n, static_cast<off_t>(archive_offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(ErrorCode::kArchive, "cannot read '" + archive_path_.string() + "': " + std::strerror(errno));
    }
    if (got == 0) fail_short(storage, archive_path_, archive_offset);
    dst += got;
    archive_offset += static_cast<uint64_t>(got);
    n -= static_cast<uint64_t>(got);
  }
}

uint64_t TensorCopier::read_up_to(uint64_t archive_offset, uint64_t n, uint8_t* dst) {
  const int in_fd = archive_fd();
  uint64_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(in_fd, dst + done, n - done, static_cast<off_t>(archive_offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(ErrorCode::kArchive, "cannot read '" + archive_path_.string() + "': " + std::strerror(errno));
    }
    if (got == 0) break;
    done += static_cast<uint64_t>(got);
  }
  return done;
}

int TensorCopier::archive_fd() {
  if (archive_fd_ < 0) {
    // O_NONBLOCK and the check: the path might name a FIFO by now, which would block open().
    archive_fd_ = ::open(archive_path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (archive_fd_ < 0)
      fail(ErrorCode::kArchive, "cannot read '" + archive_path_.string() + "': " + std::strerror(errno));
    struct stat info {};
    if (::fstat(archive_fd_, &info) != 0 || !S_ISREG(info.st_mode))
      fail(ErrorCode::kArchive, "cannot read '" + archive_path_.string() + "': no longer a regular file");
    // Weights are copied front to back; a larger readahead helps when the archive is not cached.
    ::posix_fadvise(archive_fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  return archive_fd_;
}

std::vector<uint8_t>& TensorCopier::copy_buffer() {
  if (copy_buffer_.empty()) copy_buffer_.resize(kCopyChunkBytes);
  return copy_buffer_;
}

}  // namespace pt2onnx::emit
