// --external-data=archive: initializers whose external data is the weight's own bytes inside the
// .pt2 (a STORED zip entry, or a contiguous part of one), so that converting copies no weight.
// What cannot be referenced is refused by name: bytes that are not stored as they are in the file
// (a DEFLATE entry, a compressed nested zip, a computed weight), a view that is not one
// contiguous run of its storage, an archive outside the ONNX's folder tree (onnx's checker
// refuses locations that are absolute or leave the model's folder, also through a symbolic link)
// and one with several hard links (which onnx's checker and onnx.load refuse too).
#pragma once

#include <filesystem>
#include <string>

#include "archive/archive.h"
#include "emit/external_data_writer.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {

// What the refusals point to instead.
inline constexpr const char* kArchiveFallback = "use --external-data to copy the weights into one data file instead";

// The external-data `location` of `archive` for an ONNX written at `output`: the archive's path
// relative to the output's folder, both resolved through symbolic links. Throws Error(kUsage) when
// the archive is not inside that folder's tree or has more than one hard link.
std::string archive_location(const std::filesystem::path& archive, const std::filesystem::path& output);

// Why `tensor`, laid out as `layout`, cannot be referenced in place in the archive file, or "" when it can.
std::string unreferenceable_reason(const archive::TensorData& tensor, const TensorLayout& layout);

// Where the tensor's bytes lie in the archive file; unreferenceable_reason() must be "".
ExternalRegion archive_region(const archive::TensorData& tensor, const TensorLayout& layout);

}  // namespace pt2onnx::emit
