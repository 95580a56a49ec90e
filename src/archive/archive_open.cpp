// Archive::open: tells the layouts apart (PT2, legacy) and refuses what is not an exported
// program (plain torch.save files, AOTInductor-only packages) by name.
#include <algorithm>
#include <cctype>
#include <string_view>

#include "archive/byte_order.h"
#include "archive/export_archive.h"
#include "common/error.h"

namespace pt2onnx::archive {

namespace {

constexpr char kLegacyProgram[] = "serialized_exported_program.json";

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

bool has_aoti_files(const ZipContainer& zip) {
  const std::string rooted = zip.root() + "data/aotinductor/";
  return std::any_of(zip.entries().begin(), zip.entries().end(), [&](const ZipEntry& entry) {
    return entry.name.starts_with(rooted) || entry.name.starts_with("data/aotinductor/");
  });
}

[[noreturn]] void refuse_aoti(const ZipContainer& zip) {
  fail(ErrorCode::kArchive,
       zip.label() +
           ": an AOTInductor package (data/aotinductor/) without models/*.json: "
           "it holds compiled code but no graph to convert; save the program "
           "with torch.export.save instead");
}

// The first candidate that exists becomes the source; otherwise `fallback`.
TensorSource first_present(const ZipContainer& zip, const std::vector<TensorSource>& candidates,
                           TensorSource fallback) {
  for (const TensorSource& candidate : candidates) {
    if (zip.contains(candidate.entry)) return candidate;
  }
  return fallback;
}

TensorSource missing(std::string expected) {
  TensorSource source;
  source.kind = TensorSource::Kind::kMissing;
  source.expected = std::move(expected);
  return source;
}

TensorSource torch_save(std::string entry) {
  return TensorSource{TensorSource::Kind::kTorchSave, std::move(entry), "", ""};
}

TensorSource payload(std::string entry, std::string directory) {
  return TensorSource{TensorSource::Kind::kPayloadConfig, std::move(entry), std::move(directory),
                      ""};
}

// torch 2.8 pickles the tensors into <dir><model>.pt; 2.9+ writes a config JSON (two names).
TensorSource pt2_source(const ZipContainer& zip, const std::string& model,
                        const std::string& directory, const std::string& config_suffix,
                        const std::string& older_config_suffix, const char* what) {
  const std::string pickled = directory + model + ".pt";
  const std::string config = directory + model + config_suffix;
  return first_present(zip,
                       {torch_save(pickled), payload(config, directory),
                        payload(directory + model + older_config_suffix, directory)},
                       missing(std::string("no ") + what + " for model '" + model + "': expected " +
                               zip.root() + pickled + " or " + zip.root() + config));
}

std::unique_ptr<Archive> open_pt2(const std::filesystem::path& path,
                                  std::shared_ptr<const ZipContainer> zip) {
  const std::string format = trimmed(zip->read_text("archive_format", 64));
  if (format != "pt2") {
    fail(ErrorCode::kArchive,
         zip->describe("archive_format") + ": '" + format + "', expected 'pt2'");
  }
  if (zip->contains("archive_version")) {
    const std::string version = trimmed(zip->read_text("archive_version", 64));
    if (version != "0") {
      fail(ErrorCode::kArchive, zip->describe("archive_version") + ": version '" + version +
                                    "' is not supported (torch writes '0')");
    }
  }
  check_little_endian(*zip);

  const std::string models_dir = zip->root() + "models/";
  std::map<std::string, ModelSources> models;
  bool pickled = false;
  for (const ZipEntry& entry : zip->entries()) {
    if (!entry.name.starts_with(models_dir)) continue;
    const std::string file = entry.name.substr(models_dir.size());
    constexpr std::string_view kSuffix = ".json";
    if (file.find('/') != std::string::npos || !file.ends_with(kSuffix) ||
        file.size() == kSuffix.size())
      continue;
    const std::string model = file.substr(0, file.size() - kSuffix.size());
    ModelSources sources;
    sources.json_entry = "models/" + file;
    sources.weights = pt2_source(*zip, model, "data/weights/", "_weights_config.json",
                                 "_model_param_config.json", "weights");
    sources.constants = pt2_source(*zip, model, "data/constants/", "_constants_config.json",
                                   "_model_constants_config.json", "constants");
    pickled = pickled || sources.weights.kind == TensorSource::Kind::kTorchSave;
    models.emplace(model, std::move(sources));
  }
  if (models.empty()) {
    if (has_aoti_files(*zip)) refuse_aoti(*zip);
    fail(ErrorCode::kArchive,
         zip->label() + ": PT2 archive without a model: no " + models_dir + "<name>.json");
  }
  const ArchiveLayout layout =
      pickled ? ArchiveLayout::kPt2PickledWeights : ArchiveLayout::kPt2RawWeights;
  return std::make_unique<ExportArchive>(path, std::move(zip), layout, std::move(models));
}

std::unique_ptr<Archive> open_legacy(const std::filesystem::path& path,
                                     std::shared_ptr<const ZipContainer> zip) {
  ModelSources sources;
  sources.json_entry = kLegacyProgram;
  // torch 2.1/2.2 wrote the same torch.save zips under .json names.
  sources.weights = first_present(
      *zip, {torch_save("serialized_state_dict.pt"), torch_save("serialized_state_dict.json")},
      missing("legacy archive without serialized_state_dict.pt (or .json)"));
  sources.constants = first_present(
      *zip, {torch_save("serialized_constants.pt"), torch_save("serialized_constants.json")},
      TensorSource{});
  std::map<std::string, ModelSources> models;
  models.emplace("model", std::move(sources));
  return std::make_unique<ExportArchive>(path, std::move(zip), ArchiveLayout::kLegacy,
                                         std::move(models));
}

}  // namespace

const char* layout_name(ArchiveLayout layout) {
  switch (layout) {
    case ArchiveLayout::kPt2RawWeights:
      return "pt2 (raw weights)";
    case ArchiveLayout::kPt2PickledWeights:
      return "pt2 (pickled weights)";
    case ArchiveLayout::kLegacy:
      return "legacy";
  }
  return "unknown";
}

std::unique_ptr<Archive> Archive::open(const std::filesystem::path& path) {
  std::shared_ptr<ZipContainer> zip = ZipContainer::open_file(path);
  // The root comes from the first entry, but an archive without a folder may list another first.
  for (const char* marker : {"archive_format", kLegacyProgram}) {
    if (!zip->contains(marker) && zip->contains_full(marker)) zip->set_root("");
  }
  if (zip->contains("archive_format")) return open_pt2(path, std::move(zip));
  if (zip->contains_full(kLegacyProgram)) return open_legacy(path, std::move(zip));
  if (zip->contains("data.pkl")) {
    fail(ErrorCode::kArchive, zip->label() + ": a plain torch.save file (" + zip->root() +
                                  "data.pkl), not a torch.export archive; save the program with "
                                  "torch.export.save");
  }
  if (has_aoti_files(*zip)) refuse_aoti(*zip);
  fail(ErrorCode::kArchive, zip->label() + ": not a torch.export archive: found neither " +
                                zip->root() + "archive_format (torch 2.8+) nor " + kLegacyProgram +
                                " (torch 2.7 and older)");
}

}  // namespace pt2onnx::archive
