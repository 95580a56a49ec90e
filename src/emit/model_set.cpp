// ModelSet: see model_set.h.
#include "emit/model_set.h"

#include <algorithm>
#include <cstring>
#include <system_error>

#include "common/error.h"

namespace pt2onnx::emit {

namespace {

// Whether the bytes the two views touch are equal (same layout, so the same span of each storage).
bool same_bytes(const archive::TensorData& a, const archive::TensorData& b, const TensorLayout& layout) {
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  std::vector<uint8_t> left(std::min(kChunk, layout.span_end - layout.span_begin));
  std::vector<uint8_t> right(left.size());
  for (uint64_t at = layout.span_begin; at < layout.span_end;) {
    const uint64_t n = std::min<uint64_t>(left.size(), layout.span_end - at);
    a.storage->read(at, n, left.data());
    b.storage->read(at, n, right.data());
    if (std::memcmp(left.data(), right.data(), n) != 0) return false;
    at += n;
  }
  return true;
}

}  // namespace

ModelSet::ModelSet(std::filesystem::path data_path)
    : data_path_(std::move(data_path)) {}

ExternalDataWriter& ModelSet::data_writer() {
  if (!writer_) {
    data_file_ = std::make_unique<TempOutputFile>(data_path_);
    writer_ = std::make_unique<ExternalDataWriter>(data_file_->fd(), data_path_);
  }
  return *writer_;
}

std::optional<ModelSet::ContentKey> ModelSet::key_of(const archive::TensorData& tensor, const TensorLayout& layout,
                                                     bool in_archive) {
  const archive::EntryCrc* crc = tensor.storage->entry_crc();
  if (!crc || crc->expected() == 0 || layout.nbytes == 0) return std::nullopt;  // nothing to tell them apart by
  return ContentKey{in_archive,       crc->expected(), tensor.storage->size(), static_cast<int>(tensor.dtype),
                    layout.sizes,     layout.strides,  layout.storage_offset};
}

std::optional<ExternalRegion> ModelSet::find_same(const archive::TensorData& tensor, const TensorLayout& layout,
                                                  bool in_archive) {
  const std::optional<ContentKey> key = key_of(tensor, layout, in_archive);
  if (!key) return std::nullopt;
  const auto found = stored_.find(*key);
  if (found == stored_.end()) return std::nullopt;
  for (const Stored& stored : found->second) {
    if (stored.tensor.storage != tensor.storage && !same_bytes(stored.tensor, tensor, layout)) continue;
    ExternalRegion region = stored.region;
    region.reused = true;
    ++shared_weights_;
    shared_bytes_ += static_cast<int64_t>(layout.nbytes);
    return region;
  }
  return std::nullopt;
}

void ModelSet::remember(const archive::TensorData& tensor, const TensorLayout& layout, bool in_archive,
                        const ExternalRegion& region) {
  if (const std::optional<ContentKey> key = key_of(tensor, layout, in_archive))
    stored_[*key].push_back({tensor, region});
}

void ModelSet::commit() {
  std::vector<std::filesystem::path> named;
  try {
    if (data_file_) {
      data_file_->commit();
      named.push_back(data_path_);
    }
    for (const std::unique_ptr<TempOutputFile>& model : models_) {
      model->commit();
      named.push_back(model->final_path());
    }
  } catch (const Error&) {
    std::error_code ignored;
    for (const std::filesystem::path& path : named) std::filesystem::remove(path, ignored);  // all or none
    throw;
  }
}

}  // namespace pt2onnx::emit
