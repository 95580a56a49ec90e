// Lays weights out in one external data file: each distinct tensor view at a 4096-aligned
// offset, tied weights (the same view of the same bytes) stored once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <vector>

#include "archive/archive.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {

// Offsets are aligned so runtimes can mmap each tensor (the page size of the usual targets).
inline constexpr uint64_t kExternalDataAlignment = 4096;

struct ExternalRegion {
  uint64_t offset = 0;
  uint64_t length = 0;
  bool reused = false;  // an earlier tensor with the same view already wrote these bytes
};

class ExternalDataWriter {
 public:
  // `data_fd` is the (temporary) data file, empty; every copy into it names its offset.
  // `shown_path` is the final data path, for messages.
  ExternalDataWriter(int data_fd, std::filesystem::path shown_path);

  // The region the tensor's row-major bytes go to, or the region of an identical view placed
  // before (`reused`). The caller copies a new region's bytes to its offset of fd() (TensorCopier).
  // `layout` comes from make_layout(tensor).
  ExternalRegion place(const archive::TensorData& tensor, const TensorLayout& layout);

  int fd() const { return data_fd_; }
  const std::filesystem::path& shown_path() const { return shown_path_; }
  uint64_t bytes_written() const { return bytes_written_; }  // distinct tensor bytes placed, no padding

 private:
  // Identity of a view: the same source bytes read with the same layout give the same bytes.
  struct ViewKey {
    bool in_archive_file = false;  // source is a file offset, else a Storage address
    uint64_t source = 0;
    int64_t storage_offset = 0;
    int element_type = 0;
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;
    auto operator<=>(const ViewKey&) const = default;
  };

  int data_fd_;
  std::filesystem::path shown_path_;
  std::map<ViewKey, ExternalRegion> regions_;
  uint64_t end_ = 0;  // end of the last region written
  uint64_t bytes_written_ = 0;
};

}  // namespace pt2onnx::emit
