// The `byteorder` record of a PyTorchStreamWriter zip (PT2 archives, torch.save zips).
#pragma once

#include "archive/zip_container.h"

namespace pt2onnx::archive {

// Accepts "little" or a missing record (older writers were little-endian only). Refuses "big":
// the bytes would need swapping per element, which torch.export.load itself does not do for
// raw weights.
void check_little_endian(const ZipContainer& zip);

}  // namespace pt2onnx::archive
