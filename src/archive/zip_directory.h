// Our own reader of a zip's central directory, for what libzip does not expose: where each
// entry's data starts. PyTorch pads the LOCAL header's extra field to align data to 64 bytes,
// so the offset must come from the local header, never from the central directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "archive/storages.h"

namespace pt2onnx::archive {

struct ZipEntry {
  std::string name;
  uint64_t index = 0;   // position in the central directory
  uint16_t method = 0;  // 0 STORED, 8 DEFLATE
  uint16_t flags = 0;   // general purpose bits
  uint32_t crc32 = 0;  // as the central directory records it (0: none, see zip_crc.h)
  uint64_t compressed_size = 0;
  uint64_t size = 0;           // uncompressed
  uint64_t header_offset = 0;  // of the local header, from the start of the zip
  uint64_t data_offset = 0;    // from the start of the zip (not of the outer file)
};

// Reads the directory of the zip whose bytes are `zip`. ZIP64 records and extra fields are
// honoured. Every offset and size is checked against the zip's length; each local header must
// carry the central directory's name and method, and no two entries (nor an entry and the
// central directory) may share bytes. Throws Error(kArchive) prefixed with `label` when the
// directory is damaged.
std::vector<ZipEntry> read_zip_directory(const Storage& zip, const std::string& label);

}  // namespace pt2onnx::archive
