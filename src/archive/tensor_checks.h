// Checks shared by the weight readers.
#pragma once

#include <string>

#include "archive/archive.h"

namespace pt2onnx::archive {

// Throws Error(kArchive) "<where>: has N bytes, '<fqn>' ... needs M" when the tensor's storage
// does not hold every byte its view addresses.
void check_storage_covers(const TensorData& tensor, const std::string& where);

}  // namespace pt2onnx::archive
