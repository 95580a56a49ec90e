// Writes a translated model: fills weight initializers from the archive (embedded, or streamed
// into one external data file), serializes deterministically, and renames temp files into place
// only when everything succeeded.
//
// Files: `<output>` and, with external data, `<output filename>.data` beside it, referenced by
// file name only. In the data file each distinct tensor starts at a multiple of 4096 (zero
// padding between), tied weights (identical views of one storage) are stored once, and weights
// under `external_min_bytes` stay embedded in the .onnx. A `<output filename>.data` exists after
// a successful write exactly when the new model references it: a stale one from an earlier
// external write is removed (with a warning) when the new model is fully embedded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "emit/model_set.h"
#include "model/derived_weight.h"
#include "model/diagnostics.h"
#include "model/onnx_model.h"

namespace pt2onnx::emit {

struct WriteOptions {
  std::filesystem::path output;     // the .onnx
  bool external_data = false;       // also forced when embedded weights would pass 2 GB
  // --external-data=archive: weights from external_min_bytes up are not copied: their initializers
  // reference their bytes inside the archive (emit/archive_reference.h); no data file is written.
  bool reference_archive = false;
  // --all-models: this model is one of several written together: external data goes to the
  // set's shared file (each weight the models share once, also in reference_archive mode) and
  // the .onnx is handed to the set, which names every file at the end. Null: one model.
  ModelSet* model_set = nullptr;
  // An embedded model estimated above this many bytes is written with external data instead
  // (protobuf refuses messages of 2 GiB; the margin covers the estimate's slack).
  uint64_t embedded_limit_bytes = (uint64_t{18} << 30) / 10;  // 1.8 GiB
  // In external mode, weights smaller than this stay embedded (as onnx's own tools do): a
  // 4 KiB-aligned region for a scalar or a short bias wastes space and gains nothing.
  uint64_t external_min_bytes = 1024;
  // Called after each weight is written with the weight bytes written so far and their total
  // (a caller's progress line); may be empty.
  std::function<void(int64_t done, int64_t total)> on_progress;
};

struct WriteResult {
  std::filesystem::path external_data;  // empty when embedded
  int64_t weight_count = 0;             // initializers filled
  int64_t weight_bytes = 0;             // weight bytes written; tied regions of the data file once
  int64_t referenced_bytes = 0;         // reference_archive: weight bytes referenced in the archive
  std::string archive_location;         // reference_archive: the location the initializers name
};

// What write_model() would write for these options, decided as it decides; nothing is read,
// written or changed.
struct OutputPlan {
  // The external data file (asked for or forced by size, and some weight large enough to leave
  // the .onnx); empty when every weight would be embedded or referenced in the archive.
  std::filesystem::path data_file;
  std::vector<std::string> warnings;  // what write_model() would warn of on deciding it
};
OutputPlan plan_outputs(const model::OnnxModel& model, const std::map<std::string, archive::TensorData>& weights,
                        const std::map<std::string, archive::TensorData>& constants,
                        const std::vector<model::DerivedWeight>& derived, const WriteOptions& options);

// `weights` and `constants` are the archive's maps for the model; `derived` are the weights
// clean-up derived from them (clean::Cleaned::derived), bound after model.weights and made as
// emit/derived_tensors.h says. Embedded weights are streamed
// from the archive into the file while the model is serialized, so memory stays O(graph) in both
// modes. On return, bound initializers that went external carry their external_data entries and
// embedded ones hold no data (their bytes are in the file only); warnings (external data forced
// by size, a stale data file removed) go to `diagnostics`. Throws
// Error(kArchive) for a missing or short weight or one whose dtype/shape disagrees with its
// declaration, Error(kUnsupported) for an element type ONNX cannot hold, Error(kOutput) for an
// unwritable path; leaves no files behind on error (the model may then be partly filled). With
// reference_archive, Error(kUsage) names the first weight that cannot be referenced (and how many
// more cannot) before any file is created.
WriteResult write_model(model::OnnxModel& model, const archive::Archive& archive,
                        const std::map<std::string, archive::TensorData>& weights,
                        const std::map<std::string, archive::TensorData>& constants,
                        const std::vector<model::DerivedWeight>& derived, const WriteOptions& options,
                        model::Diagnostics& diagnostics);

}  // namespace pt2onnx::emit
