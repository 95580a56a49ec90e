#include "archive/export_archive.h"

#include "archive/payload_config.h"
#include "archive/torch_save.h"
#include "common/error.h"

namespace pt2onnx::archive {

ExportArchive::ExportArchive(std::filesystem::path path, std::shared_ptr<const ZipContainer> zip,
                             ArchiveLayout layout, std::map<std::string, ModelSources> models)
    : path_(std::move(path)), zip_(std::move(zip)), layout_(layout), models_(std::move(models)) {}

std::vector<std::string> ExportArchive::model_names() const {
  std::vector<std::string> names;
  for (const auto& [name, sources] : models_) names.push_back(name);
  return names;  // std::map keeps them sorted
}

const ModelSources& ExportArchive::sources(const std::string& model) const {
  const auto found = models_.find(model);
  if (found == models_.end()) {
    std::string known;
    for (const auto& [name, sources] : models_) known += (known.empty() ? "" : ", ") + name;
    fail(ErrorCode::kArchive,
         zip_->label() + ": no model named '" + model + "' (the archive has: " + known + ")");
  }
  return found->second;
}

std::string ExportArchive::model_json(const std::string& model) const {
  return zip_->read_text(sources(model).json_entry);
}

std::unique_ptr<ReadOnceText> ExportArchive::model_text(const std::string& model) const {
  return zip_->read_once_text(sources(model).json_entry);
}

std::string ExportArchive::model_entry(const std::string& model) const {
  return zip_->root() + sources(model).json_entry;
}

std::map<std::string, TensorData> ExportArchive::weights(const std::string& model) const {
  return load(sources(model).weights);
}

std::map<std::string, TensorData> ExportArchive::constants(const std::string& model) const {
  return load(sources(model).constants);
}

std::map<std::string, TensorData> ExportArchive::load(const TensorSource& source) const {
  switch (source.kind) {
    case TensorSource::Kind::kEmpty:
      return {};
    case TensorSource::Kind::kMissing:
      fail(ErrorCode::kArchive, zip_->label() + ": " + source.expected);
    case TensorSource::Kind::kTorchSave:
      return load_saved_tensor_dict(*zip_, source.entry);
    case TensorSource::Kind::kPayloadConfig:
      return load_payload_tensors(*zip_, source.entry, source.directory);
  }
  fail(ErrorCode::kInternal, "unknown tensor source");
}

}  // namespace pt2onnx::archive
