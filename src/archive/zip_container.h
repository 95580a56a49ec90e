// One zip: the archive file itself, or a torch.save zip stored as one of its entries. Entries
// are looked up relative to the zip's root folder, which PyTorch takes from the first entry's
// name. STORED entries become storages that pread the archive file; DEFLATE ones are inflated
// by zlib as they are read (inflating_storage.h).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "archive/file_handle.h"
#include "archive/storages.h"
#include "archive/zip_directory.h"
#include "common/read_once_text.h"
#include "common/view_map.h"

namespace pt2onnx::archive {

class ZipContainer {
 public:
  // Opens the archive file. Throws Error(kArchive) naming the file for a missing, truncated or
  // corrupt zip (with the directory's fault). What it may inflate or read whole is bounded by
  // pt2onnx::limits() (common/limits.h: inflate-ratio, entry-bytes).
  static std::shared_ptr<ZipContainer> open_file(const std::filesystem::path& path);
  // Opens the zip stored as entry `relative_name` of this one.
  std::shared_ptr<const ZipContainer> open_nested(const std::string& relative_name) const;

  // Names the zip in messages: "model.pt2" or "model.pt2: model/data/weights/model.pt".
  const std::string& label() const { return label_; }
  // The archive file alone, as the user named it.
  std::string file_label() const { return file_path_.string(); }
  // "" or "<folder>/": the folder of the first entry.
  const std::string& root() const { return root_; }
  // For archives whose first entry is not in the root folder the others use (PT2 development
  // builds, legacy zips with no folder at all).
  void set_root(std::string root) { root_ = std::move(root); }
  const std::vector<ZipEntry>& entries() const { return *entries_; }

  bool contains_full(const std::string& full_name) const;
  bool contains(const std::string& relative_name) const {
    return contains_full(root_ + relative_name);
  }
  // "<label>: <root><relative_name>", for messages about an entry.
  std::string describe(const std::string& relative_name) const;
  const ZipEntry& entry(const std::string& relative_name) const;  // throws when absent
  // The entry's bytes, CRC-checked as they are read. Refuses encrypted entries, unknown methods
  // and DEFLATE entries that would inflate past limits().inflate_ratio.
  std::shared_ptr<const Storage> storage(const std::string& relative_name) const;
  // The whole entry as text (CRC-checked); refuses entries over `max_bytes`, by default
  // limits().entry_bytes. The string's capacity holds kTextPadding more bytes, so that the JSON
  // readers (simdjson reads up to 64 bytes past the end) parse it in place instead of copying it.
  static constexpr size_t kTextPadding = ReadOnceText::kPadding;
  std::string read_text(const std::string& relative_name, uint64_t max_bytes = 0) const;
  // The same entry for a parser that reads it once (the program JSON): a STORED entry with room
  // after it in the file is mapped in place (CRC-checked first), anything else read as above.
  std::unique_ptr<ReadOnceText> read_once_text(const std::string& relative_name) const;

 private:
  ZipContainer() = default;
  void index_entries();
  std::shared_ptr<const Storage> entry_storage(const ZipEntry& found, bool check_crc) const;
  // The name an entry (of entries()) goes by in its storages' labels, held once by this zip and
  // shared by all of them: the directory's own name, or for a nested zip "<outer entry>: <name>".
  std::shared_ptr<const std::string> entry_label(const ZipEntry& found) const;
  // The entry's bytes as a string whose capacity holds kTextPadding more (sizes checked first).
  std::string read_whole(const std::string& relative_name, const Storage& bytes) const;
  // Refuses an entry read whole that is over `max_bytes` (0: limits().entry_bytes).
  void check_text_size(const std::string& relative_name, const Storage& bytes, uint64_t max_bytes) const;

  std::filesystem::path file_path_;
  std::shared_ptr<const std::string> file_label_;  // file_path_ as text, shared by the entries' labels
  std::shared_ptr<const FileHandle> file_;
  std::shared_ptr<const Storage> bytes_;  // the whole zip
  // Shared with the labels of the entries' storages, which may outlive this zip.
  std::shared_ptr<const std::vector<ZipEntry>> entries_;
  ViewMap<size_t> by_name_;  // views of entries_' names (entries_ is not changed once read)
  std::shared_ptr<const std::vector<std::string>> nested_labels_;  // nested zips: entry_label()s, by place
  std::string label_;
  std::string entry_prefix_;  // for nested zips: "<outer entry>: ", so entry names say where
  std::string root_;
};

}  // namespace pt2onnx::archive
