#include "archive/inflating_storage.h"

#include <zlib.h>

#include <algorithm>
#include <vector>

#include "archive/storages.h"  // check_read_range
#include "common/error.h"

namespace pt2onnx::archive {

namespace {
// Compressed bytes are read from the zip this many at a time; output is inflated straight into
// the caller's buffer, or through a scratch buffer of this size when it is only skipped.
constexpr uint64_t kChunkBytes = uint64_t{64} << 10;
// zlib counts in uInt: one call inflates at most this much.
constexpr uint64_t kMaxCall = uint64_t{1} << 30;
}  // namespace

struct InflatingStorage::Stream {
  z_stream z{};
  bool initialised = false;
  bool ended = false;     // inflate() said Z_STREAM_END
  uint64_t consumed = 0;  // compressed bytes handed to zlib so far
  std::vector<uint8_t> input = std::vector<uint8_t>(kChunkBytes);

  ~Stream() {
    if (initialised) inflateEnd(&z);
  }

  // Hands zlib the next compressed bytes of [offset, offset + size) of `zip` once it has used
  // what it had.
  void feed(const Storage& zip, uint64_t offset, uint64_t size) {
    if (z.avail_in != 0 || consumed == size) return;
    const uint64_t k = std::min(size - consumed, kChunkBytes);
    zip.read(offset + consumed, k, input.data());
    consumed += k;
    z.next_in = input.data();
    z.avail_in = static_cast<uInt>(k);
  }
};

namespace {
std::string zlib_reason(const z_stream& z, int status) {
  if (status == Z_BUF_ERROR) return "the compressed data ends early";
  return z.msg != nullptr ? z.msg : "damaged DEFLATE data (zlib status " + std::to_string(status) + ")";
}
}  // namespace

InflatingStorage::InflatingStorage(std::shared_ptr<const Storage> zip, uint64_t data_offset,
                                   uint64_t compressed_size, uint64_t size, StorageLabel label,
                                   std::optional<uint32_t> expected_crc)
    : zip_(std::move(zip)),
      data_offset_(data_offset),
      compressed_size_(compressed_size),
      size_(size),
      label_(std::move(label)) {
  if (expected_crc) crc_.emplace(*expected_crc, label_);
}

InflatingStorage::~InflatingStorage() = default;

void InflatingStorage::refuse(const std::string& reason) const {
  stream_.reset();  // a failed stream is never read on: the next read starts again
  fail(ErrorCode::kArchive, label_.text() + ": cannot inflate at byte " + std::to_string(cursor_) + ": " + reason);
}

void InflatingStorage::restart() const {
  stream_ = std::make_unique<Stream>();
  cursor_ = 0;
  running_crc_ = 0;
  // A negative window size: a raw DEFLATE stream, as zip stores it (no zlib header or trailer).
  if (inflateInit2(&stream_->z, -MAX_WBITS) != Z_OK) {
    stream_.reset();
    fail(ErrorCode::kArchive, label_.text() + ": cannot inflate: zlib cannot start a stream");
  }
  stream_->initialised = true;
}

void InflatingStorage::pull(uint64_t n, uint8_t* dst) const {
  std::vector<uint8_t> scratch(dst || n == 0 ? 0 : std::min(n, kChunkBytes));
  Stream& s = *stream_;
  while (n > 0) {
    if (s.ended) refuse("the DEFLATE stream ends before the entry's " + std::to_string(size_) + " bytes");
    s.feed(*zip_, data_offset_, compressed_size_);
    uint8_t* out = dst ? dst : scratch.data();
    const uint64_t want = std::min(dst ? n : std::min<uint64_t>(n, scratch.size()), kMaxCall);
    s.z.next_out = out;
    s.z.avail_out = static_cast<uInt>(want);
    const int status = inflate(&s.z, Z_NO_FLUSH);
    const uint64_t got = want - s.z.avail_out;
    if (status == Z_STREAM_END) s.ended = true;
    else if (status != Z_OK) refuse(zlib_reason(s.z, status));
    if (crc_ && !crc_->done()) running_crc_ = crc32_update(running_crc_, out, got);
    cursor_ += got;
    n -= got;
    if (dst) dst += got;
  }
  if (cursor_ == size_) finish();  // reads stop at size_: the last pull, or an empty entry's
}

// At the entry's size: its DEFLATE stream must end there (more data would be bytes no reader
// sees), and the CRC of what was inflated must match. Then the stream goes: a read of an entry
// read to its end starts again anyway, and an archive's many entries would each keep zlib's
// window and the input buffer (about 100 KiB) otherwise.
void InflatingStorage::finish() const {
  if (!stream_->ended) end_stream();
  if (crc_ && !crc_->done()) crc_->check(running_crc_);
  stream_.reset();
}

void InflatingStorage::end_stream() const {
  Stream& s = *stream_;
  uint8_t extra = 0;
  for (;;) {
    s.feed(*zip_, data_offset_, compressed_size_);
    s.z.next_out = &extra;
    s.z.avail_out = 1;
    const int status = inflate(&s.z, Z_NO_FLUSH);
    if (s.z.avail_out == 0) refuse("the DEFLATE stream holds more than the entry's " + std::to_string(size_) + " bytes");
    if (status == Z_STREAM_END) {
      s.ended = true;
      return;
    }
    if (status != Z_OK) refuse(zlib_reason(s.z, status));
  }
}

void InflatingStorage::verify_locked() const {
  if (!crc_ || crc_->done()) return;
  if (!stream_ || cursor_ > 0) restart();
  pull(size_, nullptr);  // checks at the end
}

void InflatingStorage::verify() const {
  std::lock_guard<std::mutex> lock(mutex_);
  verify_locked();
}

void InflatingStorage::read(uint64_t offset, uint64_t n, void* dst) const {
  check_read_range(offset, n, size_, label_);
  if (n == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // Only a read of the whole entry from its start checksums as it goes; others verify first.
  if (!(offset == 0 && n == size_)) verify_locked();
  if (!stream_ || cursor_ > offset) restart();
  pull(offset - cursor_, nullptr);
  pull(n, static_cast<uint8_t*>(dst));
}

}  // namespace pt2onnx::archive
