#include "archive/pickle_reader.h"

#include <bit>
#include <cstring>
#include <unordered_map>

#include "common/error.h"
#include "common/limits.h"

namespace pt2onnx::archive {

namespace {

using Kind = PickleValue::Kind;

// Opcodes (Lib/pickletools.py), protocols 2 to 5.
enum Opcode : uint8_t {
  kMark = '(',
  kStop = '.',
  kPop = '0',
  kPopMark = '1',
  kDup = '2',
  kBinFloat = 'G',
  kBinInt = 'J',
  kBinInt1 = 'K',
  kBinInt2 = 'M',
  kNone = 'N',
  kBinPersId = 'Q',
  kReduce = 'R',
  kBinString = 'T',
  kShortBinString = 'U',
  kBinUnicode = 'X',
  kAppend = 'a',
  kBuild = 'b',
  kGlobal = 'c',
  kDict = 'd',
  kEmptyDict = '}',
  kAppends = 'e',
  kBinGet = 'h',
  kLongBinGet = 'j',
  kList = 'l',
  kEmptyList = ']',
  kBinPut = 'q',
  kLongBinPut = 'r',
  kSetItem = 's',
  kTuple = 't',
  kEmptyTuple = ')',
  kSetItems = 'u',
  kBinBytes = 'B',
  kShortBinBytes = 'C',
  kProto = 0x80,
  kNewObj = 0x81,
  kTuple1 = 0x85,
  kTuple2 = 0x86,
  kTuple3 = 0x87,
  kNewTrue = 0x88,
  kNewFalse = 0x89,
  kLong1 = 0x8a,
  kLong4 = 0x8b,
  kShortBinUnicode = 0x8c,
  kBinUnicode8 = 0x8d,
  kBinBytes8 = 0x8e,
  kEmptySet = 0x8f,
  kAddItems = 0x90,
  kFrozenSet = 0x91,
  kNewObjEx = 0x92,
  kStackGlobal = 0x93,
  kMemoize = 0x94,
  kFrame = 0x95,
  kByteArray8 = 0x96,
};

constexpr int kHighestProtocol = 5;

class Unpickler {
 public:
  Unpickler(const std::string& bytes, PickleHandler& handler) : bytes_(bytes), handler_(handler) {}
  ~Unpickler() { release_containers(containers_); }
  Unpickler(const Unpickler&) = delete;
  Unpickler& operator=(const Unpickler&) = delete;

  std::vector<PickleValuePtr> take_containers() { return std::move(containers_); }

  PickleValuePtr run() {
    while (true) {
      opcode_position_ = position_;
      const uint8_t opcode = read_u8();
      if (opcode == kStop) return pop();
      step(opcode);
    }
  }

  size_t opcode_position() const { return opcode_position_; }

 private:
  void step(uint8_t opcode) {
    switch (opcode) {
      case kProto: {
        const uint8_t version = read_u8();
        if (version > kHighestProtocol)
          error("pickle protocol " + std::to_string(version) + " is newer than 5");
        break;
      }
      case kFrame:
        read_uint(8);
        break;  // frames only group opcodes for buffered readers
      case kMark:
        marks_.push_back(stack_.size());
        break;
      case kPop:
        pop();
        break;
      case kPopMark:
        pop_mark();
        break;
      case kDup:
        push(top());
        break;
      case kNone:
        push(make_value(Kind::kNone));
        break;
      case kNewTrue:
        push(make_bool(true));
        break;
      case kNewFalse:
        push(make_bool(false));
        break;
      case kBinInt:
        push(make_int(static_cast<int32_t>(read_uint(4))));
        break;
      case kBinInt1:
        push(make_int(static_cast<int64_t>(read_uint(1))));
        break;
      case kBinInt2:
        push(make_int(static_cast<int64_t>(read_uint(2))));
        break;
      case kLong1:
        push(make_int(read_long(read_uint(1))));
        break;
      case kLong4:
        push(make_int(read_long(read_uint(4))));
        break;
      case kBinFloat:
        push(read_float());
        break;
      case kBinUnicode:
        push(make_text(Kind::kString, read_uint(4)));
        break;
      case kShortBinUnicode:
        push(make_text(Kind::kString, read_uint(1)));
        break;
      case kBinUnicode8:
        push(make_text(Kind::kString, read_uint(8)));
        break;
      case kShortBinString:
        push(make_text(Kind::kString, read_uint(1)));
        break;
      case kBinString:
        push(make_text(Kind::kString, read_uint(4)));
        break;
      case kBinBytes:
        push(make_text(Kind::kBytes, read_uint(4)));
        break;
      case kShortBinBytes:
        push(make_text(Kind::kBytes, read_uint(1)));
        break;
      case kBinBytes8:
        push(make_text(Kind::kBytes, read_uint(8)));
        break;
      case kByteArray8:
        push(make_text(Kind::kBytes, read_uint(8)));
        break;
      case kEmptyTuple:
        push(make_value(Kind::kTuple));
        break;
      case kTuple:
        push(make_sequence(Kind::kTuple, pop_mark()));
        break;
      case kTuple1:
        push_tuple_of(1);
        break;
      case kTuple2:
        push_tuple_of(2);
        break;
      case kTuple3:
        push_tuple_of(3);
        break;
      case kEmptyList:
        push(make_value(Kind::kList));
        break;
      case kList:
        push(make_sequence(Kind::kList, pop_mark()));
        break;
      case kEmptySet:
        push(make_value(Kind::kList));
        break;  // sets read as lists
      case kFrozenSet:
        push(make_sequence(Kind::kList, pop_mark()));
        break;
      case kAppend: {
        PickleValuePtr item = pop();
        container(Kind::kList, "APPEND").items.push_back(std::move(item));
        break;
      }
      case kAppends:
      case kAddItems: {
        std::vector<PickleValuePtr> items = pop_mark();
        PickleValue& list = container(Kind::kList, opcode == kAppends ? "APPENDS" : "ADDITEMS");
        list.items.insert(list.items.end(), items.begin(), items.end());
        break;
      }
      case kEmptyDict:
        push(make_value(Kind::kDict));
        break;
      case kDict: {
        PickleValuePtr dict = make_value(Kind::kDict);
        add_pairs(*dict, pop_mark());
        push(dict);
        break;
      }
      case kSetItem: {
        PickleValuePtr value = pop();
        PickleValuePtr key = pop();
        container(Kind::kDict, "SETITEM").entries.emplace_back(std::move(key), std::move(value));
        break;
      }
      case kSetItems: {
        std::vector<PickleValuePtr> items = pop_mark();
        add_pairs(container(Kind::kDict, "SETITEMS"), std::move(items));
        break;
      }
      case kGlobal: {
        const std::string module = read_line();
        const std::string name = read_line();
        push(charged(handler_.find_global(module, name)));
        break;
      }
      case kStackGlobal: {
        PickleValuePtr name = pop();
        PickleValuePtr module = pop();
        if (module->kind != Kind::kString || name->kind != Kind::kString) {
          error("STACK_GLOBAL needs two strings, got " + describe_pickle_value(*module) + " and " +
                describe_pickle_value(*name));
        }
        push(charged(handler_.find_global(module->text, name->text)));
        break;
      }
      case kReduce:
      case kNewObj: {
        PickleValuePtr args = pop();
        PickleValuePtr callable = pop();
        if (args->kind != Kind::kTuple)
          error("arguments are a " + describe_pickle_value(*args) + ", not a tuple");
        push(charged(handler_.call(*callable, *args)));
        break;
      }
      case kNewObjEx: {
        PickleValuePtr kwargs = pop();
        PickleValuePtr args = pop();
        PickleValuePtr callable = pop();
        if (args->kind != Kind::kTuple)
          error("arguments are a " + describe_pickle_value(*args) + ", not a tuple");
        if (kwargs->kind != Kind::kDict || !kwargs->entries.empty()) {
          error("NEWOBJ_EX with keyword arguments is not supported");
        }
        push(charged(handler_.call(*callable, *args)));
        break;
      }
      case kBuild:
        pop();
        break;  // __setstate__ data (module attributes, hooks): not needed
      case kBinPersId: {
        PickleValuePtr id = pop();
        push(charged(handler_.persistent_load(*id)));
        break;
      }
      case kBinPut:
        memo_put(read_uint(1));
        break;
      case kLongBinPut:
        memo_put(read_uint(4));
        break;
      case kMemoize:
        memo_put(memo_.size());
        break;
      case kBinGet:
        push(memo_get(read_uint(1)));
        break;
      case kLongBinGet:
        push(memo_get(read_uint(4)));
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        error(std::string("unsupported pickle opcode 0x") + kHex[opcode >> 4] + kHex[opcode & 15] +
              " (only protocols 2 to 5 are read)");
      }
    }
  }

  [[noreturn]] void error(const std::string& what) const { fail(ErrorCode::kArchive, what); }

  uint8_t read_u8() { return static_cast<uint8_t>(read_uint(1)); }

  uint64_t read_uint(int n) {
    need(static_cast<uint64_t>(n));
    uint64_t value = 0;
    for (int i = n - 1; i >= 0; --i) {
      value = (value << 8) | static_cast<uint8_t>(bytes_[position_ + static_cast<size_t>(i)]);
    }
    position_ += static_cast<size_t>(n);
    return value;
  }

  void need(uint64_t n) const {
    if (n > bytes_.size() - position_) error("pickle ends early (truncated data.pkl?)");
  }

  std::string read_bytes(uint64_t n) {
    need(n);
    std::string out = bytes_.substr(position_, n);
    position_ += n;
    return out;
  }

  std::string read_line() {
    const size_t end = bytes_.find('\n', position_);
    if (end == std::string::npos) error("pickle ends inside a GLOBAL name");
    std::string line = bytes_.substr(position_, end - position_);
    position_ = end + 1;
    return line;
  }

  // Little-endian two's complement of n bytes, as LONG1/LONG4 store it.
  int64_t read_long(uint64_t n) {
    if (n > 8) error("integer of " + std::to_string(n) + " bytes does not fit in 64 bits");
    const std::string digits = read_bytes(n);
    uint64_t value = 0;
    for (size_t i = n; i-- > 0;) value = (value << 8) | static_cast<uint8_t>(digits[i]);
    if (n > 0 && n < 8 && (static_cast<uint8_t>(digits[n - 1]) & 0x80))
      value |= ~uint64_t{0} << (8 * n);
    return static_cast<int64_t>(value);
  }

  PickleValuePtr read_float() {
    need(8);
    uint64_t bits = 0;  // BINFLOAT is big-endian
    for (int i = 0; i < 8; ++i)
      bits = (bits << 8) | static_cast<uint8_t>(bytes_[position_ + static_cast<size_t>(i)]);
    position_ += 8;
    PickleValuePtr value = make_value(Kind::kFloat);
    value->floating = std::bit_cast<double>(bits);
    return value;
  }

  PickleValuePtr make_text(Kind kind, uint64_t length) {
    PickleValuePtr value = make_value(kind);
    value->text = read_bytes(length);
    charge(length);
    return value;
  }

  // ---- the memory budget (limits().pickle_bytes) ----
  // Every value made, stack slot pushed, memo entry and byte of text is charged as it is made
  // and never refunded, so the total bounds what the document can hold at any moment, whatever
  // the opcodes do. Values from the handler are charged for the slots they copy (set(x),
  // dict(x) and torch.Size(x) copy a container that may be large).
  void charge(uint64_t bytes) {
    charged_bytes_ += bytes;
    if (charged_bytes_ > limits().pickle_bytes)
      limit_exceeded(ErrorCode::kArchive, "unpickling (" + std::to_string(charged_bytes_) + " bytes of values so far)",
                     "pickle-bytes");
  }

  PickleValuePtr make_value(Kind kind) {
    charge(sizeof(PickleValue) + 2 * sizeof(void*) + 16);  // the object, its control block, malloc's overhead
    return PickleValue::make(kind);
  }

  PickleValuePtr charged(PickleValuePtr value) {
    charge(sizeof(PickleValue) + value->items.size() * sizeof(PickleValuePtr) +
           value->entries.size() * 2 * sizeof(PickleValuePtr) + value->text.size());
    return value;
  }

  void memo_put(uint64_t index) {
    charge(sizeof(PickleValuePtr) + 4 * sizeof(void*));  // a hash node
    memo_[index] = top();
  }

  PickleValuePtr make_bool(bool b) {
    PickleValuePtr value = make_value(Kind::kBool);
    value->boolean = b;
    return value;
  }

  PickleValuePtr make_int(int64_t i) {
    PickleValuePtr value = make_value(Kind::kInt);
    value->integer = i;
    return value;
  }

  PickleValuePtr make_sequence(Kind kind, std::vector<PickleValuePtr> items) {
    PickleValuePtr value = make_value(kind);
    value->items = std::move(items);
    return value;
  }

  void push_tuple_of(size_t n) {
    if (stack_.size() < floor() + n) error("stack underflow");
    std::vector<PickleValuePtr> items(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
    stack_.resize(stack_.size() - n);
    push(make_sequence(Kind::kTuple, std::move(items)));
  }

  void add_pairs(PickleValue& dict, std::vector<PickleValuePtr> items) {
    if (items.size() % 2 != 0) error("odd number of items for a dict");
    for (size_t i = 0; i < items.size(); i += 2) dict.entries.emplace_back(items[i], items[i + 1]);
  }

  PickleValue& container(Kind kind, const char* opcode) {
    PickleValuePtr target = top();
    if (target->kind != kind) {
      error(std::string(opcode) + " on a " + describe_pickle_value(*target));
    }
    return *target;
  }

  PickleValuePtr memo_get(uint64_t index) {
    const auto found = memo_.find(index);
    if (found == memo_.end()) error("memo entry " + std::to_string(index) + " was never stored");
    return found->second;
  }

  // Values below the newest MARK belong to an outer frame.
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }

  // Every value reaches the stack, so registering containers here tracks them all.
  void push(PickleValuePtr value) {
    charge(sizeof(PickleValuePtr));
    if (value->kind == Kind::kTuple || value->kind == Kind::kList || value->kind == Kind::kDict) {
      containers_.push_back(value);
    }
    stack_.push_back(std::move(value));
  }

  PickleValuePtr top() const {
    if (stack_.size() <= floor()) error("stack underflow");
    return stack_.back();
  }

  PickleValuePtr pop() {
    PickleValuePtr value = top();
    stack_.pop_back();
    return value;
  }

  std::vector<PickleValuePtr> pop_mark() {
    if (marks_.empty()) error("no MARK to pop to");
    const size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<PickleValuePtr> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark),
                                      stack_.end());
    stack_.resize(mark);
    return items;
  }

  const std::string& bytes_;
  PickleHandler& handler_;
  size_t position_ = 0;
  size_t opcode_position_ = 0;
  uint64_t charged_bytes_ = 0;
  std::vector<PickleValuePtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PickleValuePtr> memo_;
  std::vector<PickleValuePtr> containers_;
};

}  // namespace

std::string describe_pickle_value(const PickleValue& value) {
  switch (value.kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kBytes:
      return "bytes";
    case Kind::kTuple:
      return "tuple";
    case Kind::kList:
      return "list";
    case Kind::kDict:
      return "dict";
    case Kind::kGlobal:
      return "global " + value.module + "." + value.name;
    case Kind::kStorage:
      return "storage";
    case Kind::kTensor:
      return "tensor";
  }
  return "value";
}

void release_containers(std::vector<PickleValuePtr>& containers) {
  for (const PickleValuePtr& container : containers) {
    container->items.clear();
    container->entries.clear();
  }
  containers.clear();
}

PickleDocument::~PickleDocument() {
  root_.reset();
  release_containers(containers_);
}

PickleDocument read_pickle(const std::string& bytes, PickleHandler& handler,
                           const std::string& label) {
  Unpickler unpickler(bytes, handler);
  try {
    PickleValuePtr root = unpickler.run();
    return PickleDocument(std::move(root), unpickler.take_containers());
  } catch (const Error& e) {
    throw e.with_context(label + ": byte " + std::to_string(unpickler.opcode_position()));
  }
}

}  // namespace pt2onnx::archive
