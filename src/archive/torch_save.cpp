#include "archive/torch_save.h"

#include "archive/byte_order.h"
#include "archive/pickle_reader.h"
#include "archive/tensor_checks.h"
#include "archive/torch_pickle.h"
#include "common/error.h"

namespace pt2onnx::archive {

namespace {

using Kind = PickleValue::Kind;

PickleDocument unpickle(const ZipContainer& zip) {
  if (!zip.contains("data.pkl")) {
    fail(ErrorCode::kArchive,
         zip.label() + ": not a torch.save zip (no " + zip.root() + "data.pkl)");
  }
  check_little_endian(zip);
  const std::string pickle = zip.read_text("data.pkl");
  TorchPickleHandler handler([&zip](const std::string& key) {
    const std::string record = "data/" + key;
    if (!zip.contains(record)) {
      fail(ErrorCode::kArchive,
           "persistent id names storage '" + key + "', but there is no " + zip.root() + record);
    }
    return zip.storage(record);
  });
  return read_pickle(pickle, handler, zip.describe("data.pkl"));
}

void finish_tensor(TensorData& tensor, const std::string& fqn, const ZipContainer& zip) {
  tensor.name = fqn;
  check_storage_covers(tensor, zip.file_label() + ": " + tensor.storage->entry_name());
}

}  // namespace

std::map<std::string, TensorData> load_saved_tensor_dict(const ZipContainer& outer,
                                                         const std::string& entry) {
  std::map<std::string, TensorData> tensors;
  if (outer.entry(entry).size == 0) return tensors;
  const std::shared_ptr<const ZipContainer> zip = outer.open_nested(entry);
  const PickleDocument document = unpickle(*zip);
  const PickleValue& root = document.root();
  if (root.kind != Kind::kDict) {
    fail(ErrorCode::kArchive, zip->describe("data.pkl") + ": holds a " +
                                  describe_pickle_value(root) + ", expected a dict of tensors");
  }
  for (const auto& [key, value] : root.entries) {
    if (key->kind != Kind::kString || value->kind != Kind::kTensor) continue;
    TensorData tensor = value->tensor;
    finish_tensor(tensor, key->text, *zip);
    tensors[key->text] = std::move(tensor);
  }
  return tensors;
}

TensorData load_saved_tensor(const ZipContainer& outer, const std::string& entry,
                             const std::string& fqn) {
  if (outer.entry(entry).size == 0) {
    fail(ErrorCode::kArchive,
         outer.describe(entry) + ": empty, expected torch.save of '" + fqn + "'");
  }
  const std::shared_ptr<const ZipContainer> zip = outer.open_nested(entry);
  const PickleDocument document = unpickle(*zip);
  const PickleValue& root = document.root();
  if (root.kind != Kind::kTensor) {
    fail(ErrorCode::kArchive, zip->describe("data.pkl") + ": holds a " +
                                  describe_pickle_value(root) + ", expected the tensor '" + fqn +
                                  "'");
  }
  TensorData tensor = root.tensor;
  finish_tensor(tensor, fqn, *zip);
  return tensor;
}

}  // namespace pt2onnx::archive
