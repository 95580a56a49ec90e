// A small pickle writer that emits what torch.save writes for state dicts, so the tests can
// build torch.save zips without Python. Its protocol-2 output was loaded once by hand with real
// torch 2.15 (torch.load, weights_only=True): tensors, parameters, views and a float8 v3
// tensor came back with the expected values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pt2onnx::archive::testing {

class PickleWriter {
 public:
  // Protocol 2 writes as torch's default; 4 adds FRAME, SHORT_BINUNICODE, STACK_GLOBAL and
  // MEMOIZE, as torch.save(..., pickle_protocol=4) does.
  explicit PickleWriter(int protocol = 2);

  void opcode(uint8_t op) { body_.push_back(static_cast<char>(op)); }
  void mark() { opcode('('); }
  void global(const std::string& module, const std::string& name);  // memoized like pickle does
  void text(const std::string& s);
  void bytes(const std::string& s);
  void integer(int64_t value);
  void boolean(bool value) { opcode(value ? 0x88 : 0x89); }
  void none() { opcode('N'); }
  void tuple_of(const std::vector<int64_t>& values);
  void empty_ordered_dict();  // collections.OrderedDict()
  void memoize();
  std::string finish();  // appends STOP

 private:
  void raw(uint64_t value, int bytes);

  int protocol_;
  std::string body_;
  uint32_t memo_size_ = 0;
  std::map<std::string, uint32_t> globals_;
};

struct SavedTensor {
  std::string fqn;
  std::string storage_class = "FloatStorage";  // torch.<class>; "UntypedStorage" for v3
  std::string key;                             // data/<key>
  int64_t storage_numel = 0;                   // elements (bytes for UntypedStorage)
  int64_t offset = 0;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  bool parameter = false;  // wrap in _rebuild_parameter
  std::string v3_dtype;    // non-empty: _rebuild_tensor_v3 with torch.<dtype>
};

// data.pkl of torch.save(OrderedDict(tensors)), with the state dict's _metadata BUILD.
std::string state_dict_pickle(const std::vector<SavedTensor>& tensors, int protocol = 2);
// data.pkl of torch.save(tensor).
std::string tensor_pickle(const SavedTensor& tensor, int protocol = 2);

// A torch.save zip (written like PyTorchStreamWriter into a buffer: root "archive/").
std::string torch_save_zip(const std::string& pickle,
                           const std::map<std::string, std::string>& storages,
                           const std::string& byteorder = "little",
                           const std::string& root = "archive");

}  // namespace pt2onnx::archive::testing
