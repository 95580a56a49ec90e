// Raw weights of torch 2.9+: a PayloadConfig JSON ({"config": {FQN: PayloadMeta}}) describing
// blobs that each hold one whole untyped storage. FQNs sharing a path_name (tied weights,
// views) share one Storage.
#pragma once

#include <map>
#include <string>

#include "archive/zip_container.h"

namespace pt2onnx::archive {

// `config_entry` and `directory` ("data/weights/" or "data/constants/") are relative to the
// archive root. Custom objects (tensor_meta null) are skipped.
std::map<std::string, TensorData> load_payload_tensors(const ZipContainer& zip,
                                                       const std::string& config_entry,
                                                       const std::string& directory);

}  // namespace pt2onnx::archive
