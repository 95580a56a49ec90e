#include "archive/zip_directory.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "common/error.h"

namespace pt2onnx::archive {

namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint64_t kEndSize = 22;
constexpr uint64_t kZip64LocatorSize = 20;
constexpr uint64_t kZip64EndSize = 56;
constexpr uint64_t kCentralHeaderSize = 46;
constexpr uint64_t kLocalHeaderSize = 30;
constexpr uint64_t kMaxCommentSize = 0xFFFF;
constexpr uint16_t kZip64ExtraId = 0x0001;

// Little-endian fields from a buffer; running past its end is a damaged-zip error.
class FieldReader {
 public:
  FieldReader(const uint8_t* data, uint64_t size, const std::string& what)
      : data_(data), size_(size), what_(what) {}

  uint16_t u16() { return static_cast<uint16_t>(take(2)); }
  uint32_t u32() { return static_cast<uint32_t>(take(4)); }
  uint64_t u64() { return take(8); }
  void skip(uint64_t n) {
    need(n);
    pos_ += n;
  }
  std::string text(uint64_t n) {
    need(n);
    std::string out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }
  uint64_t position() const { return pos_; }

 private:
  void need(uint64_t n) const {
    if (n > size_ - pos_) fail(ErrorCode::kArchive, what_ + " is cut short");
  }
  uint64_t take(int n) {
    need(static_cast<uint64_t>(n));
    uint64_t value = 0;
    for (int i = n - 1; i >= 0; --i) value = (value << 8) | data_[pos_ + static_cast<uint64_t>(i)];
    pos_ += static_cast<uint64_t>(n);
    return value;
  }

  const uint8_t* data_;
  uint64_t size_;
  uint64_t pos_ = 0;
  std::string what_;
};

struct DirectoryLocation {
  uint64_t entry_count = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

std::vector<uint8_t> read_bytes(const Storage& zip, uint64_t offset, uint64_t n) {
  std::vector<uint8_t> out(n);
  zip.read(offset, n, out.data());
  return out;
}

uint32_t le32_at(const std::vector<uint8_t>& bytes, uint64_t pos) {
  FieldReader reader(bytes.data() + pos, 4, "signature");
  return reader.u32();
}

// Finds the end-of-central-directory record: preferably one whose comment reaches exactly to
// the end of the zip, otherwise the last one whose comment fits.
uint64_t find_end_record(const Storage& zip, const std::string& label) {
  const uint64_t size = zip.size();
  if (size < kEndSize) {
    fail(ErrorCode::kArchive, label + ": not a zip: only " + std::to_string(size) + " bytes");
  }
  const uint64_t tail_size = std::min(size, kEndSize + kMaxCommentSize);
  const uint64_t tail_start = size - tail_size;
  const std::vector<uint8_t> tail = read_bytes(zip, tail_start, tail_size);
  std::optional<uint64_t> fitting;
  for (uint64_t i = tail_size - kEndSize + 1; i-- > 0;) {
    if (le32_at(tail, i) != kEndSignature) continue;
    const uint64_t comment = tail[i + 20] | (uint64_t{tail[i + 21]} << 8);
    if (i + kEndSize + comment == tail_size) return tail_start + i;
    if (!fitting && i + kEndSize + comment <= tail_size) fitting = tail_start + i;
  }
  if (!fitting) {
    fail(ErrorCode::kArchive,
         label + ": not a zip (no end of central directory record; truncated?)");
  }
  return *fitting;
}

DirectoryLocation locate_directory(const Storage& zip, uint64_t end_offset,
                                   const std::string& label) {
  const std::vector<uint8_t> end_bytes = read_bytes(zip, end_offset, kEndSize);
  FieldReader end(end_bytes.data(), end_bytes.size(), label + ": end of central directory");
  end.skip(4);
  const uint16_t disk = end.u16();
  const uint16_t directory_disk = end.u16();
  end.skip(2);
  DirectoryLocation location;
  location.entry_count = end.u16();
  location.size = end.u32();
  location.offset = end.u32();
  bool split = disk != 0 || directory_disk != 0;

  // ZIP64: a locator right before the classic record points at the ZIP64 record.
  if (end_offset >= kZip64LocatorSize) {
    const std::vector<uint8_t> locator_bytes =
        read_bytes(zip, end_offset - kZip64LocatorSize, kZip64LocatorSize);
    FieldReader locator(locator_bytes.data(), locator_bytes.size(), label + ": ZIP64 locator");
    if (locator.u32() == kZip64LocatorSignature) {
      locator.skip(4);
      const uint64_t record_offset = locator.u64();
      if (record_offset > end_offset - kZip64LocatorSize ||
          kZip64EndSize > end_offset - kZip64LocatorSize - record_offset) {
        fail(ErrorCode::kArchive, label + ": ZIP64 end of central directory record at " +
                                      std::to_string(record_offset) + " lies outside the zip");
      }
      const std::vector<uint8_t> record_bytes = read_bytes(zip, record_offset, kZip64EndSize);
      FieldReader record(record_bytes.data(), record_bytes.size(),
                         label + ": ZIP64 end of central directory record");
      if (record.u32() != kZip64EndSignature) {
        fail(ErrorCode::kArchive, label + ": ZIP64 end of central directory record at " +
                                      std::to_string(record_offset) + " has a bad signature");
      }
      record.skip(8 + 2 + 2);
      const uint32_t record_disk = record.u32();
      const uint32_t record_directory_disk = record.u32();
      split = record_disk != 0 || record_directory_disk != 0;
      record.skip(8);
      const DirectoryLocation classic = location;
      location.entry_count = record.u64();
      location.size = record.u64();
      location.offset = record.u64();
      // Readers that take the classic record would see another directory: refuse the forgery.
      // (A classic field saturated at its maximum defers to the ZIP64 one.)
      auto disagree = [](uint64_t classic_value, uint64_t saturated, uint64_t zip64_value) {
        return classic_value != saturated && classic_value != zip64_value;
      };
      if (disagree(classic.entry_count, 0xFFFF, location.entry_count) ||
          disagree(classic.size, 0xFFFFFFFF, location.size) || disagree(classic.offset, 0xFFFFFFFF, location.offset)) {
        fail(ErrorCode::kArchive, label + ": the end of central directory record and its ZIP64 record disagree "
                                          "on the directory's place or size (damaged or forged zip)");
      }
    }
  }
  if (split) fail(ErrorCode::kArchive, label + ": split (multi-disk) zips are not supported");
  if (location.offset > end_offset || location.size > end_offset - location.offset) {
    fail(ErrorCode::kArchive, label + ": central directory [" + std::to_string(location.offset) +
                                  ", +" + std::to_string(location.size) +
                                  ") lies outside the zip (truncated?)");
  }
  if (location.entry_count > location.size / kCentralHeaderSize) {
    fail(ErrorCode::kArchive, label + ": central directory claims " +
                                  std::to_string(location.entry_count) +
                                  " entries but has room for fewer");
  }
  return location;
}

// Replaces the 32-bit fields saturated at 0xFFFFFFFF with the ZIP64 extra field's values.
void apply_zip64_extra(const std::string& extra, ZipEntry& entry, uint64_t& header_offset,
                       bool need_size, bool need_compressed, bool need_offset,
                       const std::string& what) {
  FieldReader fields(reinterpret_cast<const uint8_t*>(extra.data()), extra.size(), what);
  while (fields.position() + 4 <= extra.size()) {
    const uint16_t id = fields.u16();
    const uint16_t length = fields.u16();
    if (id != kZip64ExtraId) {
      fields.skip(length);
      continue;
    }
    const std::string block = fields.text(length);
    FieldReader values(reinterpret_cast<const uint8_t*>(block.data()), block.size(),
                       what + " (ZIP64 extra field)");
    if (need_size) entry.size = values.u64();
    if (need_compressed) entry.compressed_size = values.u64();
    if (need_offset) header_offset = values.u64();
    return;
  }
  if (need_size || need_compressed || need_offset) {
    fail(ErrorCode::kArchive, what + ": sizes saturated at 0xFFFFFFFF but no ZIP64 extra field");
  }
}

// Reads the local headers through a window of the zip: they lie in ascending order between small
// entries (a large model's many small weights), so one read serves dozens of them; a pread of
// each header and each name was most of the directory's cost.
class WindowReader {
 public:
  explicit WindowReader(const Storage& zip) : zip_(zip) {}

  // Bytes [offset, offset + n) of the zip (the caller checked they lie inside it).
  const uint8_t* at(uint64_t offset, uint64_t n) {
    if (offset < start_ || offset - start_ > window_.size() || n > window_.size() - (offset - start_)) {
      const uint64_t length = std::min(std::max<uint64_t>(n, kWindow), zip_.size() - offset);
      window_.resize(length);
      zip_.read(offset, length, window_.data());
      start_ = offset;
    }
    return window_.data() + (offset - start_);
  }

 private:
  static constexpr uint64_t kWindow = 64 << 10;
  const Storage& zip_;
  std::vector<uint8_t> window_;
  uint64_t start_ = 0;
};

// Data start = local header offset + 30 + the LOCAL name and extra lengths. `what` names the
// entry in messages (built only for one).
template <typename What>
uint64_t data_offset_of(WindowReader& window, uint64_t size, uint64_t header_offset, const ZipEntry& entry,
                        const What& what) {
  if (header_offset > size || kLocalHeaderSize > size - header_offset) {
    fail(ErrorCode::kArchive, what() + ": local header at " + std::to_string(header_offset) +
                                  " lies outside the zip (truncated?)");
  }
  // The header and, when it fits, a name of the central directory's length, in one read.
  const uint64_t name_room = std::min<uint64_t>(entry.name.size(), size - header_offset - kLocalHeaderSize);
  const uint8_t* bytes = window.at(header_offset, kLocalHeaderSize + name_room);
  FieldReader header(bytes, kLocalHeaderSize, "local header");
  if (header.u32() != kLocalHeaderSignature) {
    fail(ErrorCode::kArchive, what() + ": no local header at " + std::to_string(header_offset));
  }
  header.skip(4);  // version, flags
  const uint16_t method = header.u16();
  header.skip(16);  // time, date, CRC and sizes: torch writes them in a data descriptor instead
  const uint64_t name_length = header.u16();
  const uint64_t extra_length = header.u16();
  const uint64_t data_offset = header_offset + kLocalHeaderSize + name_length + extra_length;
  // Readers that trust the local header (libzip, unzip) would see another entry than we do.
  if (name_length > size - header_offset - kLocalHeaderSize) {
    fail(ErrorCode::kArchive, what() + ": local header at " + std::to_string(header_offset) + " is cut short");
  }
  const bool same_name = name_length == entry.name.size() &&
                         std::string_view(reinterpret_cast<const char*>(bytes + kLocalHeaderSize), name_length) == entry.name;
  if (!same_name || method != entry.method) {
    fail(ErrorCode::kArchive, what() + ": the local header at " + std::to_string(header_offset) +
                                  " names another entry or method than the central directory (damaged or forged zip)");
  }
  if (data_offset > size || entry.compressed_size > size - data_offset) {
    fail(ErrorCode::kArchive, what() + ": data [" + std::to_string(data_offset) + ", +" +
                                  std::to_string(entry.compressed_size) +
                                  ") lies outside the zip (truncated?)");
  }
  return data_offset;
}

// Overlapping entries let one set of bytes be read as two (and quines inflate without end):
// each entry's local header and data, and the central directory, must lie apart.
void check_no_overlap(const std::vector<ZipEntry>& entries, const DirectoryLocation& directory,
                      const std::string& label) {
  struct Span {
    uint64_t begin, end;
    const std::string* name;  // null: the central directory
  };
  std::vector<Span> spans;
  spans.reserve(entries.size() + 1);
  for (const ZipEntry& entry : entries)
    spans.push_back({entry.header_offset, entry.data_offset + entry.compressed_size, &entry.name});
  spans.push_back({directory.offset, directory.offset + directory.size, nullptr});
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  auto name = [](const Span& span) { return span.name ? "entry '" + *span.name + "'" : std::string("the central directory"); };
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].begin < spans[i - 1].end || spans[i].begin == spans[i - 1].begin) {
      fail(ErrorCode::kArchive, label + ": " + name(spans[i]) + " at " + std::to_string(spans[i].begin) +
                                    " overlaps " + name(spans[i - 1]) + " [" + std::to_string(spans[i - 1].begin) +
                                    ", " + std::to_string(spans[i - 1].end) + ") (damaged or forged zip)");
    }
  }
}

}  // namespace

std::vector<ZipEntry> read_zip_directory(const Storage& zip, const std::string& label) {
  const DirectoryLocation location = locate_directory(zip, find_end_record(zip, label), label);
  const std::vector<uint8_t> directory = read_bytes(zip, location.offset, location.size);
  FieldReader reader(directory.data(), directory.size(), label + ": central directory");
  WindowReader window(zip);
  const uint64_t zip_size = zip.size();

  std::vector<ZipEntry> entries;
  entries.reserve(location.entry_count);
  for (uint64_t index = 0; index < location.entry_count; ++index) {
    if (reader.u32() != kCentralHeaderSignature) {
      fail(ErrorCode::kArchive, label + ": central directory entry " + std::to_string(index) + " has a bad signature");
    }
    ZipEntry entry;
    entry.index = index;
    reader.skip(4);  // versions
    entry.flags = reader.u16();
    entry.method = reader.u16();
    reader.skip(4);  // time, date
    entry.crc32 = reader.u32();
    entry.compressed_size = reader.u32();
    entry.size = reader.u32();
    const uint16_t name_length = reader.u16();
    const uint16_t extra_length = reader.u16();
    const uint16_t comment_length = reader.u16();
    reader.skip(8);  // disk, attributes
    uint64_t header_offset = reader.u32();
    entry.name = reader.text(name_length);
    const std::string extra = reader.text(extra_length);
    reader.skip(comment_length);

    auto entry_what = [&] { return label + ": " + entry.name; };
    const bool need_size = entry.size == 0xFFFFFFFF;
    const bool need_compressed = entry.compressed_size == 0xFFFFFFFF;
    const bool need_offset = header_offset == 0xFFFFFFFF;
    if (!extra.empty() || need_size || need_compressed || need_offset)
      apply_zip64_extra(extra, entry, header_offset, need_size, need_compressed, need_offset, entry_what());
    entry.header_offset = header_offset;
    entry.data_offset = data_offset_of(window, zip_size, header_offset, entry, entry_what);
    entries.push_back(std::move(entry));
  }
  check_no_overlap(entries, location, label);
  return entries;
}

}  // namespace pt2onnx::archive
