#include "archive/test_pickle.h"

#include "archive/test_zip.h"

namespace pt2onnx::archive::testing {

namespace {

void write_tensor(PickleWriter& w, const SavedTensor& t) {
  if (t.parameter) w.global("torch._utils", "_rebuild_parameter");
  w.global("torch._utils", t.v3_dtype.empty() ? "_rebuild_tensor_v2" : "_rebuild_tensor_v3");
  w.mark();
  // persistent id ('storage', class, key, location, numel)
  w.mark();
  w.text("storage");
  w.global(t.storage_class == "UntypedStorage" ? "torch.storage" : "torch", t.storage_class);
  w.text(t.key);
  w.text("cpu");
  w.integer(t.storage_numel);
  w.opcode('t');
  w.opcode('Q');
  w.integer(t.offset);
  w.tuple_of(t.sizes);
  w.tuple_of(t.strides);
  w.boolean(false);
  w.empty_ordered_dict();
  if (!t.v3_dtype.empty()) w.global("torch", t.v3_dtype);
  w.opcode('t');
  w.opcode('R');
  w.memoize();
  if (t.parameter) {
    w.boolean(true);
    w.empty_ordered_dict();
    w.opcode(0x87);  // TUPLE3
    w.opcode('R');
    w.memoize();
  }
}

}  // namespace

PickleWriter::PickleWriter(int protocol) : protocol_(protocol) {}

void PickleWriter::raw(uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) body_.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

void PickleWriter::memoize() {
  if (protocol_ >= 4) {
    opcode(0x94);  // MEMOIZE
  } else if (memo_size_ < 256) {
    opcode('q');
    raw(memo_size_, 1);
  } else {
    opcode('r');
    raw(memo_size_, 4);
  }
  ++memo_size_;
}

void PickleWriter::global(const std::string& module, const std::string& name) {
  const std::string key = module + "\n" + name;
  if (const auto found = globals_.find(key); found != globals_.end()) {
    opcode(found->second < 256 ? 'h' : 'j');
    raw(found->second, found->second < 256 ? 1 : 4);
    return;
  }
  if (protocol_ >= 4) {
    text(module);
    text(name);
    opcode(0x93);  // STACK_GLOBAL
  } else {
    opcode('c');
    body_ += module + "\n" + name + "\n";
  }
  globals_[key] = memo_size_;
  memoize();
}

void PickleWriter::text(const std::string& s) {
  if (protocol_ >= 4 && s.size() < 256) {
    opcode(0x8c);  // SHORT_BINUNICODE
    raw(s.size(), 1);
  } else {
    opcode('X');
    raw(s.size(), 4);
  }
  body_ += s;
  memoize();
}

void PickleWriter::bytes(const std::string& s) {
  if (protocol_ >= 3) {
    opcode(s.size() < 256 ? 'C' : 'B');
    raw(s.size(), s.size() < 256 ? 1 : 4);
    body_ += s;
    return;
  }
  // Protocol 2 has no bytes opcode: Python writes _codecs.encode(<latin-1 text>, "latin1").
  global("_codecs", "encode");
  std::string utf8;
  for (unsigned char c : s) {
    if (c < 0x80) {
      utf8.push_back(static_cast<char>(c));
    } else {
      utf8.push_back(static_cast<char>(0xC0 | (c >> 6)));
      utf8.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  text(utf8);
  text("latin1");
  opcode(0x86);  // TUPLE2
  opcode('R');
}

void PickleWriter::integer(int64_t value) {
  if (value >= 0 && value < 256) {
    opcode('K');
    raw(static_cast<uint64_t>(value), 1);
  } else if (value >= 0 && value < 65536) {
    opcode('M');
    raw(static_cast<uint64_t>(value), 2);
  } else if (value >= INT32_MIN && value <= INT32_MAX) {
    opcode('J');
    raw(static_cast<uint64_t>(value), 4);
  } else {
    opcode(0x8a);  // LONG1, 8 bytes of two's complement
    raw(8, 1);
    raw(static_cast<uint64_t>(value), 8);
  }
}

void PickleWriter::tuple_of(const std::vector<int64_t>& values) {
  if (values.empty()) {
    opcode(')');
  } else {
    if (values.size() > 3) mark();
    for (int64_t v : values) integer(v);
    opcode(values.size() == 1 ? 0x85 : values.size() == 2 ? 0x86 : values.size() == 3 ? 0x87 : 't');
  }
  memoize();
}

void PickleWriter::empty_ordered_dict() {
  global("collections", "OrderedDict");
  opcode(')');
  opcode('R');
  memoize();
}

std::string PickleWriter::finish() {
  std::string out;
  out.push_back(static_cast<char>(0x80));
  out.push_back(static_cast<char>(protocol_));
  std::string body = body_ + ".";
  if (protocol_ >= 4) {
    out.push_back(static_cast<char>(0x95));  // FRAME
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((body.size() >> (8 * i)) & 0xFF));
  }
  return out + body;
}

std::string state_dict_pickle(const std::vector<SavedTensor>& tensors, int protocol) {
  PickleWriter w(protocol);
  w.empty_ordered_dict();
  w.mark();
  for (const SavedTensor& t : tensors) {
    w.text(t.fqn);
    write_tensor(w, t);
  }
  w.opcode('u');  // SETITEMS
  // state_dict() carries _metadata as an attribute: OrderedDict.__reduce__ emits it via BUILD.
  w.opcode('}');
  w.memoize();
  w.text("_metadata");
  w.empty_ordered_dict();
  w.text("");
  w.opcode('}');
  w.memoize();
  w.text("version");
  w.integer(1);
  w.opcode('s');
  w.opcode('s');
  w.opcode('s');
  w.opcode('b');  // BUILD
  return w.finish();
}

std::string tensor_pickle(const SavedTensor& tensor, int protocol) {
  PickleWriter w(protocol);
  write_tensor(w, tensor);
  return w.finish();
}

std::string torch_save_zip(const std::string& pickle,
                           const std::map<std::string, std::string>& storages,
                           const std::string& byteorder, const std::string& root) {
  std::vector<ZipItem> items = {{root + "/data.pkl", pickle},
                                {root + "/.format_version", "1"},
                                {root + "/byteorder", byteorder}};
  for (const auto& [key, bytes] : storages) items.push_back({root + "/data/" + key, bytes});
  items.push_back({root + "/version", "3\n"});
  items.push_back({root + "/.data/serialization_id", std::string(40, '0')});
  return torch_style_zip(items);
}

}  // namespace pt2onnx::archive::testing
