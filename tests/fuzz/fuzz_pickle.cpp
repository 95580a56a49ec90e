// The allow-listed unpickler with torch's handler, as torch.save's data.pkl is read. Storages
// resolve to a 64-byte blob for keys "0".."9" and are missing otherwise.
#include <cstring>
#include <memory>
#include <optional>

#include "archive/pickle_reader.h"
#include "archive/torch_pickle.h"
#include "fuzz_support.h"

namespace {

class Blob final : public pt2onnx::archive::Storage {
 public:
  uint64_t size() const override { return 64; }
  void read(uint64_t offset, uint64_t n, void* dst) const override {
    if (offset > 64 || n > 64 - offset) pt2onnx::fail(pt2onnx::ErrorCode::kArchive, "read past the blob");
    std::memset(dst, 0, n);
  }
  std::optional<uint64_t> file_offset() const override { return std::nullopt; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = pt2onnx::fuzz::as_string(data, size);
  pt2onnx::fuzz::expect_clean([&] {
    pt2onnx::archive::TorchPickleHandler handler([](const std::string& key) -> std::shared_ptr<const pt2onnx::archive::Storage> {
      if (key.size() != 1 || key[0] < '0' || key[0] > '9')
        pt2onnx::fail(pt2onnx::ErrorCode::kArchive, "no storage data/" + key);
      return std::make_shared<Blob>();
    });
    pt2onnx::archive::PickleDocument document = pt2onnx::archive::read_pickle(bytes, handler, "fuzz/data.pkl");
    (void)pt2onnx::archive::describe_pickle_value(document.root());
  });
  return 0;
}
