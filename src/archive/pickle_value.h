// The values our unpickler builds. Containers are shared so that the memo and the stack see
// the same object (pickles fill a list or dict after memoizing it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "archive/archive.h"

namespace pt2onnx::archive {

struct PickleValue;
using PickleValuePtr = std::shared_ptr<PickleValue>;

struct PickleValue {
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kBytes,
    kTuple,
    kList,
    kDict,
    kGlobal,
    kStorage,
    kTensor
  };

  Kind kind = Kind::kNone;
  bool boolean = false;
  int64_t integer = 0;
  double floating = 0.0;
  std::string text;                                                // kString (UTF-8), kBytes
  std::string module, name;                                        // kGlobal
  std::vector<PickleValuePtr> items;                               // kTuple, kList (and sets)
  std::vector<std::pair<PickleValuePtr, PickleValuePtr>> entries;  // kDict, in insertion order
  std::shared_ptr<const Storage> storage;                          // kStorage
  ir::DType dtype = ir::DType::kUnknown;  // kStorage, kGlobal (dtype/storage class)
  uint64_t storage_elements = 0;          // kStorage: numel of the persistent id
  TensorData tensor;                      // kTensor

  static PickleValuePtr make(Kind kind) {
    auto value = std::make_shared<PickleValue>();
    value->kind = kind;
    return value;
  }
};

// "int", "tuple", "global torch.FloatStorage"... for messages.
std::string describe_pickle_value(const PickleValue& value);

}  // namespace pt2onnx::archive
