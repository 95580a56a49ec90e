#include "archive/zip_container.h"

#include <sys/stat.h>

#include <cstdint>
#include <new>

#include "archive/inflating_storage.h"
#include "archive/model_text.h"
#include "archive/zip_crc.h"
#include "common/error.h"
#include "common/limits.h"

namespace pt2onnx::archive {

namespace {

constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;
constexpr uint16_t kFlagEncrypted = 0x1;

// A damaged size field must not take the process down: allocation failure is an archive error.
template <typename Buffer>
Buffer allocate(uint64_t n, const std::string& what) {
  try {
    return Buffer(n, typename Buffer::value_type{});
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  fail(ErrorCode::kArchive, what + ": cannot hold " + std::to_string(n) + " bytes in memory");
}

}  // namespace

std::shared_ptr<ZipContainer> ZipContainer::open_file(const std::filesystem::path& path) {
  std::shared_ptr<ZipContainer> zip(new ZipContainer());
  zip->file_path_ = path;
  zip->file_label_ = std::make_shared<const std::string>(path.string());
  zip->label_ = path.string();
  zip->file_ = std::make_shared<FileHandle>(path);  // refuses FIFOs and devices without blocking
  zip->bytes_ = std::make_shared<WholeFileStorage>(zip->file_);
  zip->entries_ = std::make_shared<const std::vector<ZipEntry>>(read_zip_directory(*zip->bytes_, zip->label_));
  zip->index_entries();
  return zip;
}

std::shared_ptr<const ZipContainer> ZipContainer::open_nested(
    const std::string& relative_name) const {
  const ZipEntry& outer = entry(relative_name);
  std::shared_ptr<ZipContainer> zip(new ZipContainer());
  zip->file_path_ = file_path_;
  zip->file_label_ = file_label_;
  zip->file_ = file_;
  zip->label_ = describe(relative_name);
  zip->entry_prefix_ = entry_prefix_ + outer.name + ": ";

  // A STORED nested zip is read through its own entries, each CRC-checked; checking the outer
  // entry as a whole would read every weight twice. A DEFLATE one is inflated whole, and checked.
  const bool stored = outer.method == kMethodStored;
  std::shared_ptr<const Storage> bytes = entry_storage(outer, !stored);
  if (!bytes->file_offset()) {
    // A compressed nested zip needs random access: inflate it once into memory (rare: only
    // after someone re-zips an archive with compression).
    auto inflated = allocate<std::vector<uint8_t>>(bytes->size(), zip->label_);
    bytes->read(0, inflated.size(), inflated.data());
    auto memory = std::make_shared<MemoryStorage>(
        std::move(inflated), StorageLabel{file_label_, entry_label(outer)});
    bytes = memory;
  }
  zip->bytes_ = bytes;
  zip->entries_ = std::make_shared<const std::vector<ZipEntry>>(read_zip_directory(*zip->bytes_, zip->label_));
  auto labels = std::make_shared<std::vector<std::string>>();
  labels->reserve(zip->entries_->size());
  for (const ZipEntry& inner : *zip->entries_) labels->push_back(zip->entry_prefix_ + inner.name);
  zip->nested_labels_ = std::move(labels);
  zip->index_entries();
  return zip;
}

void ZipContainer::index_entries() {
  const std::vector<ZipEntry>& entries = *entries_;
  by_name_ = ViewMap<size_t>(entries.size());
  for (size_t i = entries.size(); i-- > 0;) by_name_.insert(entries[i].name, i);  // the last of a name wins
  if (!entries.empty()) {
    const std::string& first = entries.front().name;
    const size_t slash = first.find('/');
    root_ = slash == std::string::npos ? std::string() : first.substr(0, slash + 1);
  }
}

bool ZipContainer::contains_full(const std::string& full_name) const {
  return by_name_.contains(full_name);
}

std::string ZipContainer::describe(const std::string& relative_name) const {
  return label_ + ": " + root_ + relative_name;
}

const ZipEntry& ZipContainer::entry(const std::string& relative_name) const {
  const size_t* found = by_name_.find(root_ + relative_name);
  if (!found) fail(ErrorCode::kArchive, describe(relative_name) + ": no such entry");
  return (*entries_)[*found];
}

std::shared_ptr<const std::string> ZipContainer::entry_label(const ZipEntry& found) const {
  if (!nested_labels_) return {entries_, &found.name};  // aliases the directory: no copy
  return {nested_labels_, &(*nested_labels_)[static_cast<size_t>(&found - entries_->data())]};
}

std::shared_ptr<const Storage> ZipContainer::storage(const std::string& relative_name) const {
  return entry_storage(entry(relative_name), true);
}

std::shared_ptr<const Storage> ZipContainer::entry_storage(const ZipEntry& found, bool check_crc) const {
  StorageLabel label{file_label_, entry_label(found)};
  const std::optional<uint32_t> crc = check_crc ? std::optional<uint32_t>(found.crc32) : std::nullopt;
  if (found.flags & kFlagEncrypted)
    fail(ErrorCode::kArchive, label.text() + ": entry is encrypted");
  if (found.method == kMethodStored) {
    if (found.compressed_size != found.size) {
      fail(ErrorCode::kArchive,
           label.text() + ": STORED entry with " + std::to_string(found.compressed_size) +
               " bytes in the zip but a size of " + std::to_string(found.size));
    }
    return std::make_shared<SliceStorage>(bytes_, found.data_offset, found.size, std::move(label), crc);
  }
  if (found.method == kMethodDeflate) {
    // A zip bomb declares gigabytes behind a few kB of DEFLATE; honest data rarely passes 30x.
    const uint64_t ratio = limits().inflate_ratio;
    const uint64_t allowed = found.compressed_size > UINT64_MAX / ratio ? UINT64_MAX : found.compressed_size * ratio;
    if (found.size > kRatioFreeBytes && found.size > allowed) {
      limit_exceeded(ErrorCode::kArchive,
                     label.text() + ": DEFLATE entry of " + std::to_string(found.compressed_size) +
                         " bytes inflating to " + std::to_string(found.size) + " (a zip bomb?)",
                     "inflate-ratio");
    }
    return std::make_shared<InflatingStorage>(bytes_, found.data_offset, found.compressed_size, found.size,
                                              std::move(label), crc);
  }
  fail(ErrorCode::kArchive, label.text() + ": compression method " + std::to_string(found.method) +
                                " is not supported (only STORED and DEFLATE)");
}

void ZipContainer::check_text_size(const std::string& relative_name, const Storage& bytes, uint64_t max_bytes) const {
  if (max_bytes == 0 && bytes.size() > limits().entry_bytes) {
    limit_exceeded(ErrorCode::kArchive,
                   describe(relative_name) + ": " + std::to_string(bytes.size()) + " bytes read into memory",
                   "entry-bytes");
  }
  if (max_bytes != 0 && bytes.size() > max_bytes) {
    fail(ErrorCode::kArchive, describe(relative_name) + ": " + std::to_string(bytes.size()) +
                                  " bytes is more than the " + std::to_string(max_bytes) +
                                  " this entry may have");
  }
}

std::unique_ptr<ReadOnceText> ZipContainer::read_once_text(const std::string& relative_name) const {
  const std::shared_ptr<const Storage> bytes = storage(relative_name);
  check_text_size(relative_name, *bytes, 0);  // what is parsed is bounded alike, mapped or not
  const std::optional<uint64_t> offset = bytes->file_offset();
  const EntryCrc* crc = bytes->entry_crc();
  // The padding past the end is the zip's own bytes (what follows an entry: at least the
  // central directory), never read as JSON. Mapped bytes past the end of the file would fault
  // (SIGBUS): the file's size is taken now, as emit does before it maps weights.
  struct stat info {};
  const bool sized = ::fstat(file_->fd(), &info) == 0 && info.st_size >= 0;
  const uint64_t file_size = sized ? static_cast<uint64_t>(info.st_size) : 0;
  if (offset && crc && sized && *offset <= file_size && bytes->size() + kTextPadding <= file_size - *offset) {
    if (std::unique_ptr<ReadOnceText> mapped = map_text(file_->fd(), *offset, bytes->size())) {
      if (!crc->done()) crc->check(crc32_update(0, mapped->text().data(), mapped->text().size()));
      return mapped;
    }
  }
  return std::make_unique<StringText>(read_whole(relative_name, *bytes));
}

std::string ZipContainer::read_text(const std::string& relative_name, uint64_t max_bytes) const {
  const std::shared_ptr<const Storage> bytes = storage(relative_name);
  check_text_size(relative_name, *bytes, max_bytes);
  return read_whole(relative_name, *bytes);
}

std::string ZipContainer::read_whole(const std::string& relative_name, const Storage& bytes) const {
  std::string text = allocate<std::string>(bytes.size() + kTextPadding, describe(relative_name));
  text.resize(bytes.size());  // keeps the capacity
  bytes.read(0, text.size(), text.data());
  return text;
}

}  // namespace pt2onnx::archive
