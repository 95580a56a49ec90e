#include "archive/payload_config.h"

#include <nlohmann/json.hpp>

#include "archive/torch_save.h"
#include "common/error.h"

namespace pt2onnx::archive {

namespace {

using nlohmann::json;

class PayloadReader {
 public:
  PayloadReader(const ZipContainer& zip, const std::string& config_entry,
                const std::string& directory)
      : zip_(zip), config_entry_(config_entry), directory_(directory) {}

  std::map<std::string, TensorData> read() {
    json root;
    try {
      root = json::parse(zip_.read_text(config_entry_));
    } catch (const json::exception& e) {
      fail(ErrorCode::kArchive, zip_.describe(config_entry_) + ": not valid JSON: " + e.what());
    }
    if (!root.is_object() || !root.contains("config") || !root["config"].is_object()) {
      error("", "expected {\"config\": {FQN: PayloadMeta}}");
    }
    std::map<std::string, TensorData> tensors;
    for (const auto& [fqn, meta] : root["config"].items()) {
      if (!meta.is_object()) error(fqn, "expected an object");
      const json* tensor_meta = meta.contains("tensor_meta") ? &meta["tensor_meta"] : nullptr;
      if (tensor_meta == nullptr || tensor_meta->is_null()) continue;  // a custom object
      tensors[fqn] = read_tensor(fqn, meta, *tensor_meta);
    }
    return tensors;
  }

 private:
  [[noreturn]] void error(const std::string& fqn, const std::string& what) const {
    fail(ErrorCode::kArchive, zip_.describe(config_entry_) + ": " +
                                  (fqn.empty() ? std::string() : "config['" + fqn + "']: ") + what);
  }

  const json& field(const std::string& fqn, const json& object, const char* key,
                    const char* where) const {
    if (!object.is_object() || !object.contains(key))
      error(fqn, std::string(where) + " has no '" + key + "'");
    return object[key];
  }

  // {"as_int": N}; older writers emit every union key with nulls, so look for the non-null one.
  int64_t as_int(const std::string& fqn, const json& value, const std::string& where) const {
    if (value.is_object() && value.contains("as_int") && value["as_int"].is_number_integer()) {
      return value["as_int"].get<int64_t>();
    }
    error(fqn, where +
                   " is not a concrete integer ({\"as_int\": N}); symbolic weight shapes are not "
                   "supported");
  }

  std::vector<int64_t> int_list(const std::string& fqn, const json& meta, const char* key) const {
    const json& list = field(fqn, meta, key, "tensor_meta");
    if (!list.is_array()) error(fqn, std::string("tensor_meta.") + key + " is not a list");
    std::vector<int64_t> out;
    for (size_t i = 0; i < list.size(); ++i) {
      out.push_back(
          as_int(fqn, list[i], std::string("tensor_meta.") + key + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  TensorData read_tensor(const std::string& fqn, const json& meta, const json& tensor_meta) {
    const json& path_json = field(fqn, meta, "path_name", "payload meta");
    if (!path_json.is_string()) error(fqn, "path_name is not a string");
    const std::string path_name = path_json.get<std::string>();
    const std::string entry = directory_ + path_name;
    if (!zip_.contains(entry))
      error(fqn, "path_name '" + path_name + "': the archive has no " + zip_.root() + entry);

    const bool use_pickle = meta.contains("use_pickle") && meta["use_pickle"].is_boolean() &&
                            meta["use_pickle"].get<bool>();
    if (use_pickle) return load_saved_tensor(zip_, entry, fqn);  // a torch.save(tensor) zip

    TensorData tensor;
    tensor.name = fqn;
    const json& dtype = field(fqn, tensor_meta, "dtype", "tensor_meta");
    if (!dtype.is_number_integer() || !ir::dtype_from_schema(dtype.get<int64_t>(), tensor.dtype) ||
        tensor.dtype == ir::DType::kUnknown) {
      error(fqn, "tensor_meta.dtype " + dtype.dump() + " is not a known ScalarType");
    }
    tensor.sizes = int_list(fqn, tensor_meta, "sizes");
    tensor.strides = int_list(fqn, tensor_meta, "strides");
    tensor.storage_offset =
        tensor_meta.contains("storage_offset")
            ? as_int(fqn, tensor_meta["storage_offset"], "tensor_meta.storage_offset")
            : 0;
    tensor.storage = blob(entry);

    const std::string where = zip_.describe(entry);
    uint64_t needed = 0;
    try {
      needed = tensor.storage_bytes_needed();
    } catch (const Error& e) {
      throw e.with_context(zip_.describe(config_entry_));
    }
    const uint64_t size = tensor.storage->size();
    const auto element_size = static_cast<uint64_t>(ir::dtype_size(tensor.dtype));
    if (size == 0 && needed > 0) {
      fail(ErrorCode::kArchive, where + ": blob is empty but tensor_meta of '" + fqn + "' has " +
                                    std::to_string(tensor.numel()) +
                                    " elements (a fake or meta tensor was saved; it has no data)");
    }
    if (size % element_size != 0) {
      fail(ErrorCode::kArchive, where + ": blob has " + std::to_string(size) +
                                    " bytes, not a multiple of the " +
                                    std::to_string(element_size) + "-byte elements of '" + fqn +
                                    "' (" + std::string(ir::dtype_name(tensor.dtype)) + ")");
    }
    if (size < needed) {
      fail(ErrorCode::kArchive, where + ": blob has " + std::to_string(size) +
                                    " bytes, tensor_meta of '" + fqn + "' needs " +
                                    std::to_string(needed));
    }
    return tensor;
  }

  // One Storage per blob, so tied weights and views alias.
  std::shared_ptr<const Storage> blob(const std::string& entry) {
    auto found = blobs_.find(entry);
    if (found == blobs_.end()) found = blobs_.emplace(entry, zip_.storage(entry)).first;
    return found->second;
  }

  const ZipContainer& zip_;
  std::string config_entry_;
  std::string directory_;
  std::map<std::string, std::shared_ptr<const Storage>> blobs_;
};

}  // namespace

std::map<std::string, TensorData> load_payload_tensors(const ZipContainer& zip,
                                                       const std::string& config_entry,
                                                       const std::string& directory) {
  try {
    return PayloadReader(zip, config_entry, directory).read();
  } catch (const json::exception& e) {  // every access is checked first; this is a safety net
    fail(ErrorCode::kArchive, zip.describe(config_entry) + ": unexpected JSON: " + e.what());
  }
}

}  // namespace pt2onnx::archive
