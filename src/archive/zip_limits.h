// What an archive may make pt2onnx hold or inflate, whatever its headers claim: memory stays
// bounded by what the archive honestly holds. Each limit is refused with Error(kArchive) naming
// it and the flag that raises it (README, "Safety").
#pragma once

#include <cstdint>

namespace pt2onnx::archive {

struct ZipLimits {
  // Largest entry read whole into memory: program JSON, weight configs, pickles
  // (--max-entry-bytes). The largest program JSON we have seen is some tens of MB.
  uint64_t max_entry_bytes = uint64_t{512} << 20;
  // Largest size / compressed size of a DEFLATE entry (--max-inflate-ratio). Re-zipped JSON
  // inflates some 10-30x; a zip bomb of JSON spaces about 1000x.
  uint64_t max_inflate_ratio = 200;
  // Entries up to this size are never refused for their ratio: they cost nothing.
  static constexpr uint64_t kRatioFreeBytes = uint64_t{1} << 20;
};

}  // namespace pt2onnx::archive
