// The allow-list that turns torch.save's pickle into tensors: containers, the tensor and
// parameter rebuild functions, storage classes and dtypes. Everything else is refused by name.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>

#include "archive/pickle_reader.h"

namespace pt2onnx::archive {

// Returns the bytes of storage record data/<key>; throws when there is none.
using StorageLookup = std::function<std::shared_ptr<const Storage>(const std::string& key)>;

class TorchPickleHandler final : public PickleHandler {
 public:
  explicit TorchPickleHandler(StorageLookup lookup) : lookup_(std::move(lookup)) {}

  PickleValuePtr find_global(const std::string& module, const std::string& name) override;
  PickleValuePtr call(const PickleValue& callable, const PickleValue& args) override;
  PickleValuePtr persistent_load(const PickleValue& id) override;

 private:
  StorageLookup lookup_;
  std::unordered_map<std::string, PickleValuePtr> storages_;  // by key: views share one Storage
};

}  // namespace pt2onnx::archive
