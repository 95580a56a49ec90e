// torch.save zips stored inside the archive: the legacy state dict and constants, torch 2.8's
// data/weights/<model>.pt, and use_pickle payloads of torch 2.9+.
#pragma once

#include <map>
#include <string>

#include "archive/zip_container.h"

namespace pt2onnx::archive {

// The tensors of a saved dict (FQN -> tensor). Non-tensor values are skipped; an empty entry
// means an empty dict (legacy archives write 0 bytes for "no constants").
std::map<std::string, TensorData> load_saved_tensor_dict(const ZipContainer& outer,
                                                         const std::string& entry);
// The tensor of a torch.save(tensor) zip, named `fqn`.
TensorData load_saved_tensor(const ZipContainer& outer, const std::string& entry,
                             const std::string& fqn);

}  // namespace pt2onnx::archive
