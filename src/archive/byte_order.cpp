#include "archive/byte_order.h"

#include "common/error.h"

namespace pt2onnx::archive {

void check_little_endian(const ZipContainer& zip) {
  if (!zip.contains("byteorder")) return;
  std::string order = zip.read_text("byteorder", 64);
  while (!order.empty() && (order.back() == '\n' || order.back() == '\r' || order.back() == ' ')) {
    order.pop_back();
  }
  if (order == "little") return;
  if (order == "big") {
    fail(ErrorCode::kArchive,
         zip.describe("byteorder") +
             ": the weights were written on a big-endian machine; pt2onnx reads little-endian "
             "weights only (swapping bytes is not supported; torch.export.load does not swap raw "
             "weights either). Re-export the model on a little-endian machine");
  }
  fail(ErrorCode::kArchive,
       zip.describe("byteorder") + ": unknown byte order '" + order + "' (expected 'little')");
}

}  // namespace pt2onnx::archive
