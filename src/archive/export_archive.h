// The Archive of a classified file: for each model, where its graph JSON, weights and
// constants live. Archive::open (archive_open.cpp) decides the layout and fills this in.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "archive/archive.h"
#include "archive/zip_container.h"

namespace pt2onnx::archive {

// Where one set of tensors (weights or constants) of a model comes from.
struct TensorSource {
  enum class Kind {
    kEmpty,          // none stored (e.g. a legacy archive without serialized_constants.pt)
    kMissing,        // required but absent: `expected` says what should be there
    kTorchSave,      // `entry` is a torch.save zip of a dict
    kPayloadConfig,  // `entry` is a PayloadConfig JSON; blobs live in `directory`
  };
  Kind kind = Kind::kEmpty;
  std::string entry;      // relative to the archive root
  std::string directory;  // kPayloadConfig only
  std::string expected;   // kMissing only
};

struct ModelSources {
  std::string json_entry;  // relative to the archive root
  TensorSource weights;
  TensorSource constants;
};

class ExportArchive final : public Archive {
 public:
  ExportArchive(std::filesystem::path path, std::shared_ptr<const ZipContainer> zip,
                ArchiveLayout layout, std::map<std::string, ModelSources> models);

  const std::filesystem::path& path() const override { return path_; }
  ArchiveLayout layout() const override { return layout_; }
  std::vector<std::string> model_names() const override;
  std::string model_json(const std::string& model) const override;
  std::unique_ptr<ReadOnceText> model_text(const std::string& model) const override;
  std::string model_entry(const std::string& model) const override;
  std::map<std::string, TensorData> weights(const std::string& model) const override;
  std::map<std::string, TensorData> constants(const std::string& model) const override;

 private:
  const ModelSources& sources(const std::string& model) const;
  std::map<std::string, TensorData> load(const TensorSource& source) const;

  std::filesystem::path path_;
  std::shared_ptr<const ZipContainer> zip_;
  ArchiveLayout layout_;
  std::map<std::string, ModelSources> models_;
};

}  // namespace pt2onnx::archive
