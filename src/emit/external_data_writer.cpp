// The external data file's layout: aligned regions and tied-weight reuse.
#include "emit/external_data_writer.h"

namespace pt2onnx::emit {

namespace {
uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }
}  // namespace

ExternalDataWriter::ExternalDataWriter(int data_fd, std::filesystem::path shown_path)
    : data_fd_(data_fd), shown_path_(std::move(shown_path)) {}

ExternalRegion ExternalDataWriter::place(const archive::TensorData& tensor, const TensorLayout& layout) {
  const std::optional<uint64_t> file_offset = tensor.storage->file_offset();
  // Views of distinct Storage objects over the same archive bytes count as tied too.
  ViewKey key{file_offset.has_value(),
              file_offset ? *file_offset : reinterpret_cast<uintptr_t>(tensor.storage.get()),
              layout.storage_offset,
              static_cast<int>(tensor.dtype),
              layout.sizes,
              layout.strides};
  if (auto it = regions_.find(key); it != regions_.end()) {
    ExternalRegion reused = it->second;
    reused.reused = true;
    return reused;
  }

  ExternalRegion region;
  region.offset = regions_.empty() ? 0 : align_up(end_, kExternalDataAlignment);
  region.length = layout.nbytes;
  // Padding between regions is left as a hole: it reads back as zeros and costs no writes.
  end_ = region.offset + region.length;
  bytes_written_ += region.length;
  regions_.emplace(std::move(key), region);
  return region;
}

}  // namespace pt2onnx::emit
