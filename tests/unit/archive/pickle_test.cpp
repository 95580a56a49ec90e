// The unpickler and its torch allow-list, over pickles from the test writer (protocols 2 and 4)
// and hand-made opcode sequences.
#include <doctest/doctest.h>

#include <cstring>

#include "archive/pickle_reader.h"
#include "archive/storages.h"
#include "archive/test_errors.h"
#include "archive/test_pickle.h"
#include "archive/test_zip.h"
#include "archive/torch_pickle.h"

namespace pt2onnx::archive {
namespace {

using Kind = PickleValue::Kind;
using testing::archive_error_of;
using testing::has;
using testing::PickleWriter;
using testing::SavedTensor;

// Storages "0".."9" in memory; the test decides their sizes.
class MemoryStorages {
 public:
  void add(const std::string& key, std::string bytes) {
    storages_[key] = std::make_shared<MemoryStorage>(
        std::vector<uint8_t>(bytes.begin(), bytes.end()), StorageLabel{"mem", "data/" + key});
  }
  StorageLookup lookup() {
    return [this](const std::string& key) -> std::shared_ptr<const Storage> {
      const auto found = storages_.find(key);
      if (found == storages_.end()) fail(ErrorCode::kArchive, "no data/" + key);
      return found->second;
    };
  }

 private:
  std::map<std::string, std::shared_ptr<const Storage>> storages_;
};

PickleDocument unpickle(const std::string& bytes, MemoryStorages& storages) {
  TorchPickleHandler handler(storages.lookup());
  return read_pickle(bytes, handler, "test.pt: archive/data.pkl");
}

const TensorData& tensor_named(const PickleValue& dict, const std::string& name) {
  for (const auto& [key, value] : dict.entries) {
    if (key->kind == Kind::kString && key->text == name) {
      REQUIRE(value->kind == Kind::kTensor);
      return value->tensor;
    }
  }
  FAIL("no tensor " << name);
  throw std::logic_error("unreachable");
}

TEST_CASE("state dicts unpickle to tensors, protocols 2 and 4") {
  const std::vector<SavedTensor> tensors = {
      {"fc.weight", "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}, true, ""},
      {"view", "FloatStorage", "0", 6, 1, {2, 2}, {1, 3}, false, ""},
      {"f8", "UntypedStorage", "1", 4, 0, {4}, {1}, false, "float8_e4m3fn"},
      {"buf", "LongStorage", "2", 2, 0, {2}, {1}, false, ""},
      {"scalar", "FloatStorage", "3", 1, 0, {}, {}, false, ""},
  };
  for (const int protocol : {2, 4}) {
    CAPTURE(protocol);
    MemoryStorages storages;
    storages.add("0", testing::float_bytes({1, 2, 3, 4, 5, 6}));
    storages.add("1", "\x38\x40\x48\x30");
    storages.add("2", testing::int64_bytes({-7, int64_t{1} << 40}));
    storages.add("3", testing::float_bytes({2.5f}));
    const PickleDocument document =
        unpickle(testing::state_dict_pickle(tensors, protocol), storages);
    const PickleValue& root = document.root();
    REQUIRE(root.kind == Kind::kDict);
    CHECK(root.entries.size() == 5);

    const TensorData& weight = tensor_named(root, "fc.weight");  // a Parameter is its data
    CHECK(weight.dtype == ir::DType::kFloat32);
    CHECK(weight.sizes == std::vector<int64_t>{2, 3});
    CHECK(weight.strides == std::vector<int64_t>{3, 1});
    const TensorData& view = tensor_named(root, "view");
    CHECK(view.storage == weight.storage);  // one storage per key
    CHECK(view.storage_offset == 1);
    const TensorData& f8 = tensor_named(root, "f8");
    CHECK(f8.dtype == ir::DType::kFloat8E4M3FN);  // v3: dtype from the argument, not the storage
    CHECK(tensor_named(root, "buf").dtype == ir::DType::kInt64);
    const TensorData& scalar = tensor_named(root, "scalar");
    CHECK(scalar.sizes.empty());
    CHECK(scalar.numel() == 1);
  }
}

TEST_CASE("scalars, strings, bytes and memo opcodes") {
  MemoryStorages storages;
  PickleWriter w(2);
  w.mark();
  w.integer(-5);
  w.integer(70000);
  w.integer(-(int64_t{1} << 40));
  w.bytes(
      std::string("\xff\x00"
                  "a",
                  3));
  w.text("h\xc3\xa9");  // UTF-8 stays as is
  w.none();
  w.boolean(true);
  w.opcode('t');
  const PickleDocument document = unpickle(w.finish(), storages);
  const PickleValue& root = document.root();
  REQUIRE(root.kind == Kind::kTuple);
  REQUIRE(root.items.size() == 7);
  CHECK(root.items[0]->integer == -5);
  CHECK(root.items[1]->integer == 70000);
  CHECK(root.items[2]->integer == -(int64_t{1} << 40));
  CHECK(root.items[3]->kind == Kind::kBytes);
  CHECK(root.items[3]->text == std::string("\xff\x00"
                                           "a",
                                           3));
  CHECK(root.items[4]->text == "h\xc3\xa9");
  CHECK(root.items[5]->kind == Kind::kNone);
  CHECK(root.items[6]->boolean);

  // Protocol-3 bytes and a big-endian BINFLOAT.
  const std::string protocol3 =
      std::string("\x80\x03(C\x02hiG\x3f\xf8\x00\x00\x00\x00\x00\x00t.", 18);
  const PickleDocument more = unpickle(protocol3, storages);
  CHECK(more.root().items[0]->text == "hi");
  CHECK(more.root().items[1]->floating == 1.5);
}

TEST_CASE("deep nesting and reference cycles neither overflow the stack nor leak") {
  MemoryStorages storages;
  // 500000 nested tuples: destroying them recursively would overflow the stack.
  const size_t depth = 500000;
  const std::string nested =
      "\x80\x02" + std::string(depth, '(') + ")" + std::string(depth, 't') + ".";
  CHECK(unpickle(nested, storages).root().kind == Kind::kTuple);
  // A list appended to itself through the memo (LeakSanitizer checks that it is freed).
  CHECK(unpickle(std::string("\x80\x02]q\x00h\x00"
                             "a.",
                             9),
                 storages)
            .root()
            .items.size() == 1);
  // The same, abandoned by an error half-way.
  CHECK(has(archive_error_of([&] {
              unpickle(std::string("\x80\x02]q\x00h\x00"
                                   "a",
                                   8),
                       storages);
            }),
            "ends early"));
}

TEST_CASE("globals outside the allow-list are refused by name") {
  MemoryStorages storages;
  SUBCASE("os.system") {
    PickleWriter w(2);
    w.global("os", "system");
    w.text("rm -rf /");
    w.opcode(0x85);
    w.opcode('R');
    const std::string message = archive_error_of([&] { unpickle(w.finish(), storages); });
    CHECK(message.find(
              "test.pt: archive/data.pkl: byte 2: global 'os.system' is not on the allow-list") ==
          0);
  }
  SUBCASE("STACK_GLOBAL builtins.eval") {
    PickleWriter w(4);
    w.global("builtins", "eval");
    CHECK(has(archive_error_of([&] { unpickle(w.finish(), storages); }),
              "'builtins.eval' is not on the allow-list"));
  }
  SUBCASE("a quantized tensor") {
    PickleWriter w(2);
    w.global("torch._utils", "_rebuild_qtensor");
    CHECK(has(archive_error_of([&] { unpickle(w.finish(), storages); }),
              "'torch._utils._rebuild_qtensor' (a quantized tensor) is not supported"));
  }
  SUBCASE("calling a dtype") {
    PickleWriter w(2);
    w.global("torch", "float32");
    w.opcode(')');
    w.opcode('R');
    CHECK(has(archive_error_of([&] { unpickle(w.finish(), storages); }),
              "calling torch.float32 is not supported"));
  }
}

TEST_CASE("damaged pickles fail with the byte position") {
  MemoryStorages storages;
  storages.add("0", testing::float_bytes({1, 2}));
  const std::string good =
      testing::state_dict_pickle({{"w", "FloatStorage", "0", 2, 0, {2}, {1}, false, ""}});

  SUBCASE("truncated") {
    const std::string message =
        archive_error_of([&] { unpickle(good.substr(0, good.size() / 2), storages); });
    CHECK(message.find("test.pt: archive/data.pkl: byte ") == 0);
    CHECK(has(message, "ends"));
  }
  SUBCASE("no STOP") {
    CHECK(has(archive_error_of([&] { unpickle(good.substr(0, good.size() - 1), storages); }),
              "ends early"));
  }
  SUBCASE("unknown opcode") {
    CHECK(has(archive_error_of([&] { unpickle(std::string("\x80\x02I1\n.", 6), storages); }),
              "byte 2: unsupported pickle opcode 0x49"));
  }
  SUBCASE("memo entry never stored") {
    CHECK(has(archive_error_of([&] { unpickle(std::string("\x80\x02h\x07.", 5), storages); }),
              "memo entry 7 was never stored"));
  }
  SUBCASE("stack underflow") {
    CHECK(has(archive_error_of([&] { unpickle(std::string("\x80\x02R.", 4), storages); }),
              "stack underflow"));
  }
  SUBCASE("huge length") {
    CHECK(has(
        archive_error_of([&] { unpickle(std::string("\x80\x02X\xff\xff\xff\xff", 7), storages); }),
        "ends early"));
  }
}

TEST_CASE("persistent ids must name a storage that holds numel elements") {
  MemoryStorages storages;
  storages.add("0", testing::float_bytes({1, 2}));
  SUBCASE("missing storage") {
    const std::string pickle =
        testing::state_dict_pickle({{"w", "FloatStorage", "5", 2, 0, {2}, {1}, false, ""}});
    CHECK(has(archive_error_of([&] { unpickle(pickle, storages); }), "no data/5"));
  }
  SUBCASE("storage shorter than numel * element size") {
    const std::string pickle =
        testing::state_dict_pickle({{"w", "FloatStorage", "0", 3, 0, {3}, {1}, false, ""}});
    const std::string message = archive_error_of([&] { unpickle(pickle, storages); });
    CHECK(has(message,
              "storage '0' (torch.FloatStorage of 3 elements) needs 12 bytes, but data/0 has 8"));
  }
}

}  // namespace
}  // namespace pt2onnx::archive
