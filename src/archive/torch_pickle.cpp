#include "archive/torch_pickle.h"

#include <map>
#include <string>
#include <string_view>

#include "common/error.h"

namespace pt2onnx::archive {

namespace {

using Kind = PickleValue::Kind;
using ir::DType;

// Legacy typed storage classes (torch.storage._dtype_to_storage_type_map, from ir/dtype_table.h)
// and UntypedStorage, which holds bytes (torch reads it as uint8).
const std::map<std::string, DType, std::less<>>& storage_classes() {
  static const std::map<std::string, DType, std::less<>> table = [] {
    std::map<std::string, DType, std::less<>> m{{"torch.UntypedStorage", DType::kUInt8},
                                                {"torch.storage.UntypedStorage", DType::kUInt8}};
    for (const ir::DTypeFacts& f : ir::kDTypeTable)
      if (!f.storage_class.empty()) m.emplace(std::string(f.storage_class), f.dtype);
    return m;
  }();
  return table;
}

// dtype globals, as torch.dtype.__reduce__ names them: "torch." + the table's torch name.
const std::map<std::string, DType, std::less<>>& dtype_globals() {
  static const std::map<std::string, DType, std::less<>> table = [] {
    std::map<std::string, DType, std::less<>> m;
    for (const ir::DTypeFacts& f : ir::kDTypeTable) m.emplace("torch." + std::string(f.torch_name), f.dtype);
    return m;
  }();
  return table;
}

// Callables we interpret (never run).
const std::string_view kCallables[] = {
    "collections.OrderedDict",
    "collections.Counter",
    "builtins.dict",
    "builtins.set",
    "builtins.frozenset",
    "builtins.bytearray",
    "builtins.bytes",
    "_codecs.encode",
    "torch.Size",
    "torch.device",
    "torch.serialization._get_layout",
    "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_tensor_v3",
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch.nn.parameter.Parameter",
};

// Names torch may write that we recognise but cannot convert; a clearer refusal than "unknown".
const std::map<std::string_view, std::string_view> kUnsupported = {
    {"torch._utils._rebuild_qtensor", "a quantized tensor"},
    {"torch._utils._rebuild_sparse_tensor", "a sparse tensor"},
    {"torch._utils._rebuild_nested_tensor", "a nested tensor"},
    {"torch._utils._rebuild_meta_tensor_no_storage", "a meta tensor (it has no data)"},
    {"torch._utils._rebuild_wrapper_subclass", "a tensor subclass or fake tensor (no data)"},
    {"torch._tensor._rebuild_from_type_v2", "a tensor subclass"},
    {"torch._export.serde.serialize._reconstruct_fake_tensor", "a fake tensor (it has no data)"},
    {"torch.QUInt8Storage", "a quantized storage"},
    {"torch.QInt8Storage", "a quantized storage"},
    {"torch.QInt32Storage", "a quantized storage"},
    {"torch.QUInt4x2Storage", "a quantized storage"},
    {"torch.QUInt2x4Storage", "a quantized storage"},
};

std::string full_name(const PickleValue& global) { return global.module + "." + global.name; }

const PickleValue& arg(const PickleValue& args, size_t i, const std::string& function) {
  if (i >= args.items.size()) {
    fail(ErrorCode::kArchive, function + ": expected at least " + std::to_string(i + 1) +
                                  " arguments, got " + std::to_string(args.items.size()));
  }
  return *args.items[i];
}

int64_t int_arg(const PickleValue& args, size_t i, const std::string& function, const char* what) {
  const PickleValue& value = arg(args, i, function);
  if (value.kind != Kind::kInt) {
    fail(ErrorCode::kArchive,
         function + ": " + what + " is a " + describe_pickle_value(value) + ", expected an int");
  }
  return value.integer;
}

std::vector<int64_t> ints_arg(const PickleValue& args, size_t i, const std::string& function,
                              const char* what) {
  const PickleValue& value = arg(args, i, function);
  std::vector<int64_t> out;
  bool ok = value.kind == Kind::kTuple || value.kind == Kind::kList;
  for (const PickleValuePtr& item : value.items) {
    ok = ok && item->kind == Kind::kInt;
    if (ok) out.push_back(item->integer);
  }
  if (!ok) fail(ErrorCode::kArchive, function + ": " + what + " must be a tuple of ints");
  return out;
}

PickleValuePtr make_dict(const PickleValue& args, const std::string& function) {
  PickleValuePtr dict = PickleValue::make(Kind::kDict);
  if (args.items.empty()) return dict;
  const PickleValue& source = arg(args, 0, function);
  if (source.kind == Kind::kDict) {
    dict->entries = source.entries;
    return dict;
  }
  if (source.kind == Kind::kList || source.kind == Kind::kTuple) {
    for (const PickleValuePtr& pair : source.items) {
      if (pair->kind != Kind::kTuple || pair->items.size() != 2) {
        fail(ErrorCode::kArchive, function + ": items must be (key, value) pairs");
      }
      dict->entries.emplace_back(pair->items[0], pair->items[1]);
    }
    return dict;
  }
  fail(ErrorCode::kArchive,
       function + ": cannot build a dict from a " + describe_pickle_value(source));
}

// str -> bytes for _codecs.encode(s, "latin1"): every code point must be below 256.
std::string latin1_bytes(const std::string& utf8, const std::string& function) {
  std::string out;
  for (size_t i = 0; i < utf8.size();) {
    const auto lead = static_cast<uint8_t>(utf8[i]);
    if (lead < 0x80) {
      out.push_back(static_cast<char>(lead));
      i += 1;
    } else if ((lead & 0xE0) == 0xC0 && i + 1 < utf8.size() && lead <= 0xC3) {
      out.push_back(
          static_cast<char>(((lead & 0x03) << 6) | (static_cast<uint8_t>(utf8[i + 1]) & 0x3F)));
      i += 2;
    } else {
      fail(ErrorCode::kArchive, function + ": text is not latin-1");
    }
  }
  return out;
}

PickleValuePtr rebuild_tensor(const PickleValue& args, const std::string& function, bool v3) {
  const PickleValue& storage = arg(args, 0, function);
  if (storage.kind != Kind::kStorage) {
    fail(ErrorCode::kArchive, function + ": argument 0 is a " + describe_pickle_value(storage) +
                                  ", expected a storage (persistent id)");
  }
  PickleValuePtr tensor = PickleValue::make(Kind::kTensor);
  TensorData& data = tensor->tensor;
  data.storage = storage.storage;
  data.storage_offset = int_arg(args, 1, function, "storage_offset");
  data.sizes = ints_arg(args, 2, function, "size");
  data.strides = ints_arg(args, 3, function, "stride");
  data.dtype = storage.dtype;
  if (v3) {
    const PickleValue& dtype = arg(args, 6, function);
    if (dtype.kind != Kind::kGlobal || dtype_globals().count(full_name(dtype)) == 0) {
      fail(ErrorCode::kArchive,
           function + ": argument 6 is a " + describe_pickle_value(dtype) + ", expected a dtype");
    }
    data.dtype = dtype.dtype;
  }
  if (data.sizes.size() != data.strides.size()) {
    fail(ErrorCode::kArchive, function + ": " + std::to_string(data.sizes.size()) + " sizes but " +
                                  std::to_string(data.strides.size()) + " strides");
  }
  return tensor;
}

}  // namespace

PickleValuePtr TorchPickleHandler::find_global(const std::string& module, const std::string& name) {
  const std::string full = module + "." + name;
  PickleValuePtr global = PickleValue::make(Kind::kGlobal);
  global->module = module;
  global->name = name;
  if (const auto found = storage_classes().find(full); found != storage_classes().end()) {
    global->dtype = found->second;
    return global;
  }
  if (const auto found = dtype_globals().find(full); found != dtype_globals().end()) {
    global->dtype = found->second;
    return global;
  }
  for (std::string_view callable : kCallables) {
    if (callable == full) return global;
  }
  if (const auto found = kUnsupported.find(full); found != kUnsupported.end()) {
    fail(ErrorCode::kArchive,
         "global '" + full + "' (" + std::string(found->second) + ") is not supported");
  }
  fail(ErrorCode::kArchive, "global '" + full +
                                "' is not on the allow-list of tensor-rebuilding names; pt2onnx "
                                "never runs pickled code");
}

PickleValuePtr TorchPickleHandler::call(const PickleValue& callable, const PickleValue& args) {
  if (callable.kind != Kind::kGlobal) {
    fail(ErrorCode::kArchive, "cannot call a " + describe_pickle_value(callable));
  }
  const std::string function = full_name(callable);
  if (function == "collections.OrderedDict" || function == "collections.Counter" ||
      function == "builtins.dict") {
    return make_dict(args, function);
  }
  if (function == "builtins.set" || function == "builtins.frozenset") {
    PickleValuePtr set = PickleValue::make(Kind::kList);
    if (!args.items.empty()) set->items = arg(args, 0, function).items;
    return set;
  }
  if (function == "builtins.bytearray" || function == "builtins.bytes") {
    PickleValuePtr bytes = PickleValue::make(Kind::kBytes);
    if (args.items.empty()) return bytes;
    const PickleValue& source = arg(args, 0, function);
    if (source.kind == Kind::kBytes) {
      bytes->text = source.text;
      return bytes;
    }
    if (source.kind == Kind::kString && args.items.size() == 2)
      return call(*find_global("_codecs", "encode"), args);
    fail(ErrorCode::kArchive,
         function + ": cannot build bytes from a " + describe_pickle_value(source));
  }
  if (function == "_codecs.encode") {
    const PickleValue& text = arg(args, 0, function);
    const PickleValue& encoding = arg(args, 1, function);
    if (text.kind != Kind::kString || encoding.kind != Kind::kString ||
        (encoding.text != "latin1" && encoding.text != "latin-1")) {
      fail(ErrorCode::kArchive, function + ": only (str, 'latin1') is supported");
    }
    PickleValuePtr bytes = PickleValue::make(Kind::kBytes);
    bytes->text = latin1_bytes(text.text, function);
    return bytes;
  }
  if (function == "torch.Size") {
    PickleValuePtr size = PickleValue::make(Kind::kTuple);
    if (!args.items.empty()) size->items = arg(args, 0, function).items;
    return size;
  }
  if (function == "torch.device" || function == "torch.serialization._get_layout") {
    PickleValuePtr text = PickleValue::make(Kind::kString);
    if (!args.items.empty()) text->text = arg(args, 0, function).text;
    return text;
  }
  if (function == "torch._utils._rebuild_tensor" || function == "torch._utils._rebuild_tensor_v2") {
    return rebuild_tensor(args, function, false);
  }
  if (function == "torch._utils._rebuild_tensor_v3") return rebuild_tensor(args, function, true);
  if (function == "torch._utils._rebuild_parameter" ||
      function == "torch._utils._rebuild_parameter_with_state" ||
      function == "torch.nn.parameter.Parameter") {
    if (args.items.empty()) fail(ErrorCode::kArchive, function + ": no tensor to wrap");
    const PickleValuePtr& data = args.items[0];
    if (data->kind != Kind::kTensor) {
      fail(ErrorCode::kArchive,
           function + ": argument 0 is a " + describe_pickle_value(*data) + ", expected a tensor");
    }
    return data;  // a Parameter is its data for conversion
  }
  fail(ErrorCode::kArchive, "calling " + function + " is not supported");
}

PickleValuePtr TorchPickleHandler::persistent_load(const PickleValue& id) {
  if (id.kind != Kind::kTuple || id.items.size() != 5 || id.items[0]->kind != Kind::kString ||
      id.items[0]->text != "storage") {
    fail(ErrorCode::kArchive,
         "persistent id is not ('storage', class, key, location, numel): got a " +
             describe_pickle_value(id) +
             (id.kind == Kind::kTuple ? " of " + std::to_string(id.items.size()) : ""));
  }
  const PickleValue& storage_class = *id.items[1];
  const PickleValue& key = *id.items[2];
  const PickleValue& numel = *id.items[4];
  if (storage_class.kind != Kind::kGlobal || storage_classes().count(full_name(storage_class)) == 0) {
    fail(ErrorCode::kArchive,
         "persistent id: storage class is a " + describe_pickle_value(storage_class));
  }
  if (key.kind != Kind::kString)
    fail(ErrorCode::kArchive, "persistent id: key is a " + describe_pickle_value(key));
  if (numel.kind != Kind::kInt || numel.integer < 0) {
    fail(ErrorCode::kArchive,
         "persistent id of storage '" + key.text + "': numel must be an int >= 0");
  }
  if (const auto found = storages_.find(key.text); found != storages_.end()) return found->second;

  PickleValuePtr storage = PickleValue::make(Kind::kStorage);
  storage->dtype = storage_class.dtype;
  storage->storage_elements = static_cast<uint64_t>(numel.integer);
  storage->storage = lookup_(key.text);
  uint64_t expected = 0;
  const auto element_size = static_cast<uint64_t>(ir::dtype_size(storage->dtype));
  if (__builtin_mul_overflow(storage->storage_elements, element_size, &expected)) {
    fail(ErrorCode::kArchive, "storage '" + key.text + "' (" + full_name(storage_class) + " of " +
                                  std::to_string(numel.integer) + " elements): its byte size overflows 64 bits");
  }
  if (storage->storage->size() < expected) {
    fail(ErrorCode::kArchive, "storage '" + key.text + "' (" + full_name(storage_class) + " of " +
                                  std::to_string(numel.integer) + " elements) needs " +
                                  std::to_string(expected) + " bytes, but data/" + key.text +
                                  " has " + std::to_string(storage->storage->size()));
  }
  storages_.emplace(key.text, storage);
  return storage;
}

}  // namespace pt2onnx::archive
