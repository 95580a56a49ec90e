// Writes a translated model: fills weight initializers from the archive (embedded, or streamed
// into one external data file), serializes deterministically, and renames temp files into place
// only when everything succeeded.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "archive/archive.h"
#include "translate/translate.h"

namespace pt2onnx::emit {

struct WriteOptions {
  std::filesystem::path output;     // the .onnx
  bool external_data = false;       // also forced when embedded weights would pass 2 GB
};

struct WriteResult {
  std::filesystem::path external_data;  // empty when embedded
  int64_t weight_count = 0;
  int64_t weight_bytes = 0;
};

// `weights` and `constants` are the archive's maps for the model. Throws Error(kArchive) for a
// missing or short weight, Error(kOutput) for an unwritable path; leaves no files behind on error.
WriteResult write_model(translate::Translation& translation, const archive::Archive& archive,
                        const std::map<std::string, archive::TensorData>& weights,
                        const std::map<std::string, archive::TensorData>& constants,
                        const WriteOptions& options);

}  // namespace pt2onnx::emit
