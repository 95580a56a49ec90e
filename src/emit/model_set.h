// Several models of one archive written in one run (--all-models): their external data goes to
// one shared data file (or, with --external-data=archive, stays in the archive), and a weight
// the models share is stored (or referenced) once. torch's package API writes each program's
// weights apart, so the shared ones are distinct archive entries with the same bytes: two
// weights are the same when their entries record the same CRC-32 and size, their views agree,
// and their bytes compare equal. Nothing gets its name until every model is written: commit()
// names the data file first, then each model, so a failure in any model leaves no file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "archive/archive.h"
#include "emit/external_data_writer.h"
#include "emit/output_file.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {

class ModelSet {
 public:
  // `data_path`: the shared data file.
  explicit ModelSet(std::filesystem::path data_path);

  const std::filesystem::path& data_path() const { return data_path_; }
  // The shared data file's writer; the (unnamed) file is created on first use.
  ExternalDataWriter& data_writer();
  bool has_data_file() const { return data_file_ != nullptr; }

  // A region (of the data file, or of the archive when `in_archive`) that an earlier model's
  // weight with the same bytes as `tensor` already has, or nullopt; remember() records one.
  std::optional<ExternalRegion> find_same(const archive::TensorData& tensor, const TensorLayout& layout, bool in_archive);
  void remember(const archive::TensorData& tensor, const TensorLayout& layout, bool in_archive,
                const ExternalRegion& region);

  // A model written completely, to be named by commit().
  void hold(std::unique_ptr<TempOutputFile> model_file) { models_.push_back(std::move(model_file)); }
  // Names the data file, then every model held. Throws Error(kOutput).
  void commit();

  int64_t shared_weights() const { return shared_weights_; }  // weights found already stored
  int64_t shared_bytes() const { return shared_bytes_; }

 private:
  // Same bytes, judged before comparing them: the entry's recorded CRC-32 and size, and the view.
  struct ContentKey {
    bool in_archive = false;
    uint32_t crc = 0;
    uint64_t storage_size = 0;
    int element_type = 0;
    std::vector<int64_t> sizes, strides;
    int64_t storage_offset = 0;
    auto operator<=>(const ContentKey&) const = default;
  };
  struct Stored {
    archive::TensorData tensor;  // keeps its storage alive for the comparison
    ExternalRegion region;
  };
  static std::optional<ContentKey> key_of(const archive::TensorData& tensor, const TensorLayout& layout, bool in_archive);

  std::filesystem::path data_path_;
  std::unique_ptr<TempOutputFile> data_file_;
  std::unique_ptr<ExternalDataWriter> writer_;
  std::map<ContentKey, std::vector<Stored>> stored_;
  std::vector<std::unique_ptr<TempOutputFile>> models_;
  int64_t shared_weights_ = 0, shared_bytes_ = 0;
};

}  // namespace pt2onnx::emit
