// Reading .pt2 archives: the PT2 layout (torch 2.8+, raw or pickled weights) and the older
// layout (torch <= 2.7, serialized_exported_program.json + torch.save zips). Weights are never
// loaded eagerly: a TensorData points at its bytes inside the archive file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "archive/zip_crc.h"
#include "common/read_once_text.h"
#include "ir/dtype.h"

namespace pt2onnx::archive {

// The bytes of one storage (a raw blob, or data/<key> of a torch.save zip).
class Storage {
 public:
  virtual ~Storage() = default;
  virtual uint64_t size() const = 0;
  // Copies bytes [offset, offset + n) into dst. Throws Error(kArchive) past the end.
  virtual void read(uint64_t offset, uint64_t n, void* dst) const = 0;
  // Absolute offset of byte 0 in the archive file when the bytes lie there uncompressed and
  // contiguous (STORED entries, nested zips included), so a writer may copy them in-kernel.
  virtual std::optional<uint64_t> file_offset() const = 0;
  // Why file_offset() has no value, for a refusal naming the storage ("it is DEFLATE-compressed").
  virtual std::string why_not_in_file() const { return "its bytes are not stored uncompressed in the archive file"; }
  // The archive entry holding the bytes (e.g. "model/data/weights/weight_3"), for messages such
  // as emit's "short weight" error; empty when the storage cannot say.
  virtual std::string entry_name() const { return {}; }
  // The CRC-32 check of the zip entry these bytes are (null when they are not one whole entry,
  // e.g. the archive file or a nested zip read through its own entries). Reads through read()
  // verify it on their own; a reader that bypasses read() (file_offset) checksums what it copies
  // and calls check(), or calls verify() first.
  virtual const EntryCrc* entry_crc() const { return nullptr; }
  // Reads every byte once if the entry's CRC is not verified yet; throws Error(kArchive) on a
  // mismatch. A no-op for storages without a check.
  virtual void verify() const {}
};

struct TensorData {
  std::string name;  // the FQN, for messages
  ir::DType dtype = ir::DType::kUnknown;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;            // in elements
  int64_t storage_offset = 0;              // in elements
  std::shared_ptr<const Storage> storage;  // shared by views of one storage (tied weights)

  int64_t numel() const;
  int64_t nbytes() const;  // numel * element size
  bool is_contiguous() const;
  // Bytes of storage the view addresses: (storage_offset + the largest element index + 1) *
  // element size, or 0 when numel is 0. Throws Error(kArchive) naming the tensor when the
  // sizes, strides or offset are negative or overflow.
  uint64_t storage_bytes_needed() const;
  // The tensor's elements in row-major order (gathers strided views). For small tensors and
  // tests; writers stream instead. Throws Error(kArchive) naming the tensor and its storage
  // when the storage does not hold every addressed byte.
  std::vector<uint8_t> read_contiguous() const;
};

enum class ArchiveLayout {
  kPt2RawWeights,      // torch 2.9+: data/weights/weight_N + <model>_weights_config.json
  kPt2PickledWeights,  // torch 2.8: data/weights/<model>.pt (torch.save zip)
  kLegacy,             // torch <= 2.7: serialized_exported_program.json + serialized_state_dict.pt
};

const char* layout_name(ArchiveLayout layout);

class Archive {
 public:
  // Opens and classifies the archive. Throws Error(kArchive) naming the file for a missing or
  // corrupt zip, a plain torch.save file, or an AOTInductor-only package (no graph).
  // What a hostile archive can make us hold is bounded by pt2onnx::limits() (common/limits.h).
  static std::unique_ptr<Archive> open(const std::filesystem::path& path);
  virtual ~Archive() = default;

  virtual const std::filesystem::path& path() const = 0;
  virtual ArchiveLayout layout() const = 0;
  // Models in the archive, sorted ("model" for torch.export.save; legacy archives: "model").
  virtual std::vector<std::string> model_names() const = 0;
  // The ExportedProgram JSON text of a model, and the entry name it came from (for messages).
  virtual std::string model_json(const std::string& model) const = 0;
  // The same text for the import, which reads it once: mapped from the archive where it lies
  // there uncompressed (archive/model_text.h), CRC-checked either way.
  virtual std::unique_ptr<ReadOnceText> model_text(const std::string& model) const = 0;
  virtual std::string model_entry(const std::string& model) const = 0;
  // Parameters and persistent buffers (the state dict), by FQN.
  virtual std::map<std::string, TensorData> weights(const std::string& model) const = 0;
  // Lifted tensor constants and non-persistent buffers, by FQN (custom objects are skipped).
  virtual std::map<std::string, TensorData> constants(const std::string& model) const = 0;
};

}  // namespace pt2onnx::archive
