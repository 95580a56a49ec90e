#include "archive/tensor_checks.h"

#include "common/error.h"

namespace pt2onnx::archive {

void check_storage_covers(const TensorData& tensor, const std::string& where) {
  uint64_t needed = 0;
  try {
    needed = tensor.storage_bytes_needed();
  } catch (const Error& e) {
    throw e.with_context(where);
  }
  const uint64_t size = tensor.storage ? tensor.storage->size() : 0;
  if (size < needed) {
    fail(ErrorCode::kArchive, where + ": has " + std::to_string(size) + " bytes, but '" +
                                  tensor.name + "' (" + std::string(ir::dtype_name(tensor.dtype)) +
                                  ", " + std::to_string(tensor.numel()) + " elements from offset " +
                                  std::to_string(tensor.storage_offset) + ") needs " +
                                  std::to_string(needed));
  }
}

}  // namespace pt2onnx::archive
