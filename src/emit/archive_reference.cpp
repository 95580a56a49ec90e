// archive_location / unreferenceable_reason / archive_region: see archive_reference.h.
#include "emit/archive_reference.h"

#include <system_error>

#include "common/error.h"

namespace pt2onnx::emit {

std::string archive_location(const std::filesystem::path& archive, const std::filesystem::path& output) {
  std::error_code error;
  const std::filesystem::path folder = std::filesystem::weakly_canonical(
      std::filesystem::absolute(output, error).parent_path(), error);
  const std::filesystem::path target = std::filesystem::weakly_canonical(std::filesystem::absolute(archive, error), error);
  if (error)
    fail(ErrorCode::kUsage, "--external-data=archive: cannot resolve '" + archive.string() + "' against the output's folder: " +
                                error.message());
  const std::filesystem::path relative = target.lexically_relative(folder);
  const bool inside = !relative.empty() && relative.is_relative() && *relative.begin() != "..";
  if (!inside)
    fail(ErrorCode::kUsage, "--external-data=archive: the archive '" + target.string() + "' is not inside the output's folder '" +
                                folder.string() +
                                "' (an ONNX may reference external data only below its own folder); write the .onnx "
                                "beside the archive or above it, or " + kArchiveFallback);
  // onnx's checker and onnx.load refuse external data with several hard links (one could reach
  // any file of the disk through it), so such a model would be unusable in onnx's tooling.
  if (const uintmax_t links = std::filesystem::hard_link_count(target, error); !error && links > 1)
    fail(ErrorCode::kUsage, "--external-data=archive: the archive '" + target.string() + "' has " + std::to_string(links) +
                                " hard links, and onnx's checker refuses external data with more than one; copy it, "
                                "or " + kArchiveFallback);
  return relative.generic_string();
}

std::string unreferenceable_reason(const archive::TensorData& tensor, const TensorLayout& layout) {
  const archive::Storage& storage = *tensor.storage;
  if (!storage.file_offset()) return describe_storage(storage) + ": " + storage.why_not_in_file();
  if (!layout.contiguous)
    return "it is a strided view of " + describe_storage(storage) + " (sizes " + format_dims(layout.sizes) +
           ", strides " + format_dims(layout.strides) + "), not one contiguous run of bytes";
  return "";
}

ExternalRegion archive_region(const archive::TensorData& tensor, const TensorLayout& layout) {
  ExternalRegion region;
  region.offset = *tensor.storage->file_offset() + layout.span_begin;
  region.length = layout.nbytes;
  return region;
}

}  // namespace pt2onnx::emit
