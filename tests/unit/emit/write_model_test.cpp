// write_model end to end on fake archives: embedded and external layouts, tied weights, strided
// views, errors that leave nothing behind, determinism and the size-forced switch to external.
#include <doctest/doctest.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/checker.h>

#include "emit/fake_archive.h"
#include "emit/external_data_writer.h"
#include "emit/tensor_copier.h"
#include "emit/write_model.h"

namespace pt2onnx::emit {
namespace {

using testing::as_string;
using testing::external_entry;
using testing::FakeArchive;
using testing::FileStorage;
using testing::find_initializer;
using testing::iota_bytes;
using testing::list_dir;
using testing::load_model;
using testing::make_tensor;
using testing::MemoryStorage;
using testing::read_file;
using testing::TempDir;
using testing::TranslationBuilder;

using TensorMap = std::map<std::string, archive::TensorData>;

// An "archive" file with junk around the weights, as a zip's headers would be, and storages
// pointing into it like STORED entries.
struct FileArchiveFixture {
  TempDir dir;
  std::filesystem::path archive_path = dir / "model.pt2";
  std::vector<uint8_t> file_bytes;

  // Appends `bytes` after some junk and returns a storage over them.
  std::shared_ptr<FileStorage> add_entry(const std::vector<uint8_t>& bytes, const std::string& entry) {
    file_bytes.resize(file_bytes.size() + 37, 0xEE);
    const uint64_t offset = file_bytes.size();
    file_bytes.insert(file_bytes.end(), bytes.begin(), bytes.end());
    return std::make_shared<FileStorage>(archive_path, offset, bytes.size(), entry);
  }
  void save() const {
    std::ofstream out(archive_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(file_bytes.data()), static_cast<std::streamsize>(file_bytes.size()));
  }
};

WriteOptions options_for(const std::filesystem::path& output, bool external = false) {
  WriteOptions options;
  options.output = output;
  options.external_data = external;
  return options;
}

template <typename Fn>
Error capture_error(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected pt2onnx::Error");
  return Error(ErrorCode::kInternal, "unreachable");
}

std::string deterministic_bytes(const onnx::ModelProto& model) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    model.SerializeToCodedStream(&coded);
  }
  return bytes;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST_CASE("embedded: every weight lands in raw_data, in row-major order") {
  TempDir out;
  const std::vector<uint8_t> w_bytes = iota_bytes(24);
  const std::vector<uint8_t> b_bytes = iota_bytes(4 * 8, 50);
  const std::vector<uint8_t> c_bytes = {1, 0, 1};
  TensorMap weights{{"fc.weight", make_tensor(ir::DType::kFloat32, {2, 3}, std::make_shared<MemoryStorage>(w_bytes, "w0"))},
                    {"fc.bias", make_tensor(ir::DType::kInt64, {4}, std::make_shared<MemoryStorage>(b_bytes, "w1"))}};
  TensorMap constants{{"mask", make_tensor(ir::DType::kBool, {3}, std::make_shared<MemoryStorage>(c_bytes, "c0"))}};
  testing::TestModel translation = TranslationBuilder()
                                           .declare("fc.weight", ir::DType::kFloat32, {2, 3}, "fc.weight")
                                           .declare("fc.bias", ir::DType::kInt64, {4}, "fc.bias")
                                           .declare("mask", ir::DType::kBool, {3}, "mask", true)
                                           .build();

  WriteResult result = write_model(translation, FakeArchive(), weights, constants, options_for(out / "model.onnx"));

  CHECK(result.external_data.empty());
  CHECK(result.weight_count == 3);
  CHECK(result.weight_bytes == 24 + 32 + 3);
  CHECK(translation.warnings.empty());
  CHECK(list_dir(out.path()) == std::set<std::string>{"model.onnx"});
  const onnx::ModelProto model = load_model(out / "model.onnx");
  CHECK(find_initializer(model, "fc.weight").raw_data() == as_string(w_bytes));
  CHECK(find_initializer(model, "fc.bias").raw_data() == as_string(b_bytes));
  CHECK(find_initializer(model, "mask").raw_data() == as_string(c_bytes));
  CHECK(find_initializer(model, "fc.weight").data_location() == onnx::TensorProto_DataLocation_DEFAULT);
  CHECK(find_initializer(model, "fc.weight").external_data_size() == 0);
  // The caller's model keeps the declarations only; the bytes are in the file.
  CHECK_FALSE(find_initializer(translation.proto, "fc.weight").has_raw_data());
  CHECK(deterministic_bytes(model) == read_file(out / "model.onnx"));
  CHECK_NOTHROW(onnx::checker::check_model((out / "model.onnx").string()));
}

TEST_CASE("embedded: large weights are streamed into the .onnx, contiguous, in memory and strided") {
  FileArchiveFixture archive_file;
  const std::vector<uint8_t> in_file = iota_bytes(4 * 2000);
  std::vector<uint8_t> matrix(4 * 64 * 64);  // int32 [64,64], viewed transposed
  for (size_t i = 0; i < matrix.size(); ++i) matrix[i] = static_cast<uint8_t>(i * 13 + i / 256);
  std::vector<uint8_t> transposed;
  for (int col = 0; col < 64; ++col)
    for (int row = 0; row < 64; ++row)
      for (int b = 0; b < 4; ++b) transposed.push_back(matrix[(row * 64 + col) * 4 + b]);
  const std::vector<uint8_t> in_memory = iota_bytes(8 * 1000, 3);
  TensorMap weights{
      {"a", make_tensor(ir::DType::kFloat32, {2000}, archive_file.add_entry(in_file, "w0"))},
      {"b", make_tensor(ir::DType::kInt32, {64, 64}, std::make_shared<MemoryStorage>(matrix, "w1"), {1, 64})},
      {"c", make_tensor(ir::DType::kInt64, {1000}, std::make_shared<MemoryStorage>(in_memory, "w2"))},
      {"d", make_tensor(ir::DType::kFloat32, {2}, std::make_shared<MemoryStorage>(iota_bytes(8), "w3"))}};
  archive_file.save();
  testing::TestModel translation = TranslationBuilder()
                                           .declare("a", ir::DType::kFloat32, {2000}, "a")
                                           .declare("b", ir::DType::kInt32, {64, 64}, "b")
                                           .declare("c", ir::DType::kInt64, {1000}, "c")
                                           .declare("d", ir::DType::kFloat32, {2}, "d")
                                           .build();
  TempDir out;
  WriteResult result =
      write_model(translation, FakeArchive(archive_file.archive_path), weights, {}, options_for(out / "m.onnx"));
  CHECK(result.weight_bytes == 8000 + 16384 + 8000 + 8);
  const onnx::ModelProto model = load_model(out / "m.onnx");
  CHECK(find_initializer(model, "a").raw_data() == as_string(in_file));
  CHECK(find_initializer(model, "b").raw_data() == as_string(transposed));
  CHECK(find_initializer(model, "c").raw_data() == as_string(in_memory));
  CHECK(find_initializer(model, "d").raw_data() == as_string(iota_bytes(8)));
  CHECK(deterministic_bytes(model) == read_file(out / "m.onnx"));
  CHECK_NOTHROW(onnx::checker::check_model((out / "m.onnx").string()));
}

TEST_CASE("external: 4096-aligned regions copied from the archive file, small weights embedded") {
  FileArchiveFixture archive_file;
  const std::vector<uint8_t> big = iota_bytes(4 * 1000);        // in the archive file
  const std::vector<uint8_t> other = iota_bytes(8 * 300, 9);    // in memory (no file_offset)
  const std::vector<uint8_t> small = iota_bytes(16, 77);        // under external_min_bytes
  TensorMap weights{
      {"enc.weight", make_tensor(ir::DType::kFloat32, {10, 100}, archive_file.add_entry(big, "m/data/weights/weight_0"))},
      {"enc.table", make_tensor(ir::DType::kInt64, {300}, std::make_shared<MemoryStorage>(other, "m/data/weights/weight_1"))},
      {"enc.bias", make_tensor(ir::DType::kFloat32, {4}, archive_file.add_entry(small, "m/data/weights/weight_2"))}};
  archive_file.save();
  testing::TestModel translation = TranslationBuilder()
                                           .declare("enc.weight", ir::DType::kFloat32, {10, 100}, "enc.weight")
                                           .declare("enc.table", ir::DType::kInt64, {300}, "enc.table")
                                           .declare("enc.bias", ir::DType::kFloat32, {4}, "enc.bias")
                                           .build();
  TempDir out;
  WriteResult result = write_model(translation, FakeArchive(archive_file.archive_path), weights, {},
                                   options_for(out / "net.onnx", true));

  CHECK(result.external_data == out / "net.onnx.data");
  CHECK(result.weight_count == 3);
  CHECK(result.weight_bytes == 4000 + 2400 + 16);
  CHECK(list_dir(out.path()) == std::set<std::string>{"net.onnx", "net.onnx.data"});

  const onnx::ModelProto model = load_model(out / "net.onnx");
  const std::string data = read_file(out / "net.onnx.data");
  const onnx::TensorProto& weight = find_initializer(model, "enc.weight");
  const onnx::TensorProto& table = find_initializer(model, "enc.table");
  CHECK(weight.data_location() == onnx::TensorProto_DataLocation_EXTERNAL);
  CHECK(external_entry(weight, "location") == "net.onnx.data");
  CHECK(external_entry(weight, "offset") == "0");
  CHECK(external_entry(weight, "length") == "4000");
  CHECK_FALSE(weight.has_raw_data());
  CHECK(external_entry(table, "location") == "net.onnx.data");
  CHECK(external_entry(table, "offset") == "4096");
  CHECK(external_entry(table, "length") == "2400");
  CHECK(data.size() == 4096 + 2400);
  CHECK(data.substr(0, 4000) == as_string(big));
  CHECK(data.substr(4000, 96) == std::string(96, '\0'));  // padding reads as zeros
  CHECK(data.substr(4096) == as_string(other));
  const onnx::TensorProto& bias = find_initializer(model, "enc.bias");
  CHECK(bias.data_location() == onnx::TensorProto_DataLocation_DEFAULT);
  CHECK(bias.raw_data() == as_string(small));
  CHECK_NOTHROW(onnx::checker::check_model((out / "net.onnx").string()));
}

TEST_CASE("external: the user-space copy path gives the same bytes as copy_file_range") {
  FileArchiveFixture archive_file;
  const std::vector<uint8_t> bytes = iota_bytes(20000);
  auto storage = archive_file.add_entry(bytes, "w0");
  archive_file.save();
  archive::TensorData tensor = make_tensor(ir::DType::kUInt8, {20000}, storage);
  TensorLayout layout = make_layout(tensor, "w");

  TempDir out;
  for (bool in_kernel : {true, false}) {
    const std::filesystem::path path = out / (in_kernel ? "kernel.data" : "user.data");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    {
      TensorCopier copier(archive_file.archive_path);
      if (!in_kernel) copier.disable_in_kernel_copy();
      ExternalDataWriter writer(fd, path);
      const ExternalRegion first = writer.place(tensor, layout);
      CHECK(first.offset == 0);
      CHECK_FALSE(first.reused);
      CHECK(writer.place(tensor, layout).reused);  // the same view again: placed once
      const archive::TensorData part = make_tensor(ir::DType::kUInt8, {10000}, storage, {}, 5);
      const TensorLayout part_layout = make_layout(part, "w");
      const ExternalRegion second = writer.place(part, part_layout);
      CHECK(second.offset == 20480);
      CHECK(writer.bytes_written() == 30000);
      copier.copy(tensor, layout, writer.fd(), first.offset, writer.shown_path());
      copier.copy(part, part_layout, writer.fd(), second.offset, writer.shown_path());
    }
    ::close(fd);
    const std::string data = read_file(path);
    CHECK(data.size() == 20480 + 10000);
    CHECK(data.substr(0, 20000) == as_string(bytes));
    CHECK(data.substr(20480) == as_string(std::vector<uint8_t>(bytes.begin() + 5, bytes.begin() + 10005)));
  }
}

TEST_CASE("external: tied weights are written once and referenced twice") {
  FileArchiveFixture archive_file;
  const std::vector<uint8_t> bytes = iota_bytes(4 * 512);
  auto storage = archive_file.add_entry(bytes, "w0");
  auto copy_of_storage = std::make_shared<FileStorage>(*storage);  // another object, same file bytes
  archive_file.save();
  TensorMap weights{{"embed.weight", make_tensor(ir::DType::kFloat32, {16, 32}, storage)},
                    {"lm_head.weight", make_tensor(ir::DType::kFloat32, {16, 32}, storage)},
                    {"alias.weight", make_tensor(ir::DType::kFloat32, {16, 32}, copy_of_storage)},
                    {"half.weight", make_tensor(ir::DType::kFloat32, {8, 32}, storage, {}, 256)}};
  testing::TestModel translation = TranslationBuilder()
                                           .declare("embed.weight", ir::DType::kFloat32, {16, 32}, "embed.weight")
                                           .declare("lm_head.weight", ir::DType::kFloat32, {16, 32}, "lm_head.weight")
                                           .declare("alias.weight", ir::DType::kFloat32, {16, 32}, "alias.weight")
                                           .declare("half.weight", ir::DType::kFloat32, {8, 32}, "half.weight")
                                           .build();
  TempDir out;
  WriteResult result = write_model(translation, FakeArchive(archive_file.archive_path), weights, {},
                                   options_for(out / "m.onnx", true));
  const onnx::ModelProto model = load_model(out / "m.onnx");
  for (const char* name : {"embed.weight", "lm_head.weight", "alias.weight"}) {
    CHECK(external_entry(find_initializer(model, name), "offset") == "0");
    CHECK(external_entry(find_initializer(model, name), "length") == "2048");
  }
  // A different view of the same storage is its own region.
  CHECK(external_entry(find_initializer(model, "half.weight"), "offset") == "4096");
  CHECK(external_entry(find_initializer(model, "half.weight"), "length") == "1024");
  CHECK(result.weight_count == 4);
  CHECK(result.weight_bytes == 2048 + 1024);
  const std::string data = read_file(out / "m.onnx.data");
  CHECK(data.size() == 4096 + 1024);
  CHECK(data.substr(4096) == as_string(std::vector<uint8_t>(bytes.begin() + 1024, bytes.end())));
}

TEST_CASE("strided views are gathered row-major, embedded and external") {
  // A [2,3] float32 storage viewed as its transpose [3,2].
  std::vector<uint8_t> bytes(24);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i);
  std::vector<uint8_t> transposed;
  for (int col = 0; col < 3; ++col)
    for (int row = 0; row < 2; ++row)
      for (int b = 0; b < 4; ++b) transposed.push_back(static_cast<uint8_t>((row * 3 + col) * 4 + b));

  FileArchiveFixture archive_file;
  auto in_file = archive_file.add_entry(bytes, "w0");
  archive_file.save();
  auto in_memory = std::make_shared<MemoryStorage>(bytes, "w1");
  for (bool external : {false, true}) {
    for (std::shared_ptr<const archive::Storage> storage : {std::shared_ptr<const archive::Storage>(in_file),
                                                            std::shared_ptr<const archive::Storage>(in_memory)}) {
      CAPTURE(external);
      TensorMap weights{{"t", make_tensor(ir::DType::kFloat32, {3, 2}, storage, {1, 3})}};
      testing::TestModel translation = TranslationBuilder().declare("t", ir::DType::kFloat32, {3, 2}, "t").build();
      TempDir out;
      WriteOptions options = options_for(out / "m.onnx", external);
      options.external_min_bytes = 1;
      write_model(translation, FakeArchive(archive_file.archive_path), weights, {}, options);
      const onnx::ModelProto model = load_model(out / "m.onnx");
      if (external)
        CHECK(read_file(out / "m.onnx.data") == as_string(transposed));
      else
        CHECK(find_initializer(model, "t").raw_data() == as_string(transposed));
    }
  }
}

TEST_CASE("a short storage fails naming the FQN and the entry, and leaves no files") {
  for (bool external : {false, true}) {
    CAPTURE(external);
    TempDir out;
    auto storage = std::make_shared<MemoryStorage>(iota_bytes(2000), "archive/data/weights/weight_3");
    TensorMap weights{{"ok.weight", make_tensor(ir::DType::kFloat32, {500}, storage)},
                      {"layers.0.weight", make_tensor(ir::DType::kFloat32, {20, 30}, storage)}};
    testing::TestModel translation = TranslationBuilder()
                                             .declare("ok.weight", ir::DType::kFloat32, {500}, "ok.weight")
                                             .declare("layers.0.weight", ir::DType::kFloat32, {20, 30}, "layers.0.weight")
                                             .build();
    const Error error = capture_error(
        [&] { write_model(translation, FakeArchive(), weights, {}, options_for(out / "m.onnx", external)); });
    CHECK(error.code() == ErrorCode::kArchive);
    CHECK(contains(error.what(), "layers.0.weight"));
    CHECK(contains(error.what(), "archive/data/weights/weight_3"));
    CHECK(list_dir(out.path()).empty());
  }
}

TEST_CASE("an archive file that ends inside a weight fails during the copy and leaves no files") {
  FileArchiveFixture archive_file;
  const std::vector<uint8_t> bytes = iota_bytes(8192);
  auto whole = archive_file.add_entry(bytes, "w0");
  archive_file.save();
  // The storage claims 4096 bytes more than the file holds, as a truncated archive would.
  auto truncated = std::make_shared<FileStorage>(archive_file.archive_path, *whole->file_offset(), 8192 + 4096,
                                                 "m/data/weights/weight_9");
  TensorMap weights{{"first", make_tensor(ir::DType::kUInt8, {8192}, whole)},
                    {"decoder.weight", make_tensor(ir::DType::kUInt8, {8192 + 4096}, truncated)}};
  testing::TestModel translation = TranslationBuilder()
                                           .declare("first", ir::DType::kUInt8, {8192}, "first")
                                           .declare("decoder.weight", ir::DType::kUInt8, {8192 + 4096}, "decoder.weight")
                                           .build();
  TempDir out;
  // An earlier good output must survive a failed rewrite untouched.
  std::ofstream(out / "m.onnx") << "previous";
  std::ofstream(out / "m.onnx.data") << "previous data";
  const Error error = capture_error([&] {
    write_model(translation, FakeArchive(archive_file.archive_path), weights, {}, options_for(out / "m.onnx", true));
  });
  CHECK(error.code() == ErrorCode::kArchive);
  CHECK(contains(error.what(), "decoder.weight"));
  CHECK(contains(error.what(), "m/data/weights/weight_9"));
  CHECK(list_dir(out.path()) == std::set<std::string>{"m.onnx", "m.onnx.data"});
  CHECK(read_file(out / "m.onnx") == "previous");
  CHECK(read_file(out / "m.onnx.data") == "previous data");
}

TEST_CASE("a tiny weight that fails while the model is written (CRC, past the end) leaves no files") {
  for (bool truncated : {false, true}) {
    for (bool external : {false, true}) {
      CAPTURE(truncated);
      CAPTURE(external);
      FileArchiveFixture archive_file;
      auto big = archive_file.add_entry(iota_bytes(8192), "m/data/weights/weight_0");
      std::shared_ptr<FileStorage> tiny = archive_file.add_entry(iota_bytes(64, 5), "m/data/weights/weight_1");
      archive_file.save();
      // Past the end: the entry claims 64 bytes more than the file holds. CRC: the zip records
      // another checksum than the bytes give.
      if (truncated)
        tiny = std::make_shared<FileStorage>(archive_file.archive_path, *tiny->file_offset(), 128,
                                             "m/data/weights/weight_1");
      else
        tiny->record_crc(0x12345678);
      const int64_t tiny_bytes = truncated ? 128 : 64;
      // The big weight comes first: it is streamed (or written external) before the tiny one fails.
      TensorMap weights{{"big", make_tensor(ir::DType::kUInt8, {8192}, big)},
                        {"tiny.weight", make_tensor(ir::DType::kUInt8, {tiny_bytes}, tiny)}};
      testing::TestModel translation = TranslationBuilder()
                                               .declare("big", ir::DType::kUInt8, {8192}, "big")
                                               .declare("tiny.weight", ir::DType::kUInt8, {tiny_bytes}, "tiny.weight")
                                               .build();
      TempDir out;
      std::ofstream(out / "m.onnx") << "previous";
      const Error error = capture_error([&] {
        write_model(translation, FakeArchive(archive_file.archive_path), weights, {},
                    options_for(out / "m.onnx", external));
      });
      CHECK(error.code() == ErrorCode::kArchive);
      CHECK(contains(error.what(), "weight 'tiny.weight' (initializer 'tiny.weight')"));
      CHECK(contains(error.what(), "m/data/weights/weight_1"));
      CHECK(contains(error.what(), truncated ? "short read" : "CRC-32 mismatch"));
      CHECK(list_dir(out.path()) == std::set<std::string>{"m.onnx"});
      CHECK(read_file(out / "m.onnx") == "previous");
    }
  }
}

TEST_CASE("of several damaged weights, the first in initializer order is reported, whichever thread copies it") {
  // Streamed weights are copied on two threads, largest first; tiny ones are filled while the
  // model is serialized. `damaged` lists which weights record a wrong CRC; the one reported is
  // the first in initializer order, and with external data the external ones come first.
  struct Case {
    std::vector<int> damaged;
    int embedded, external;
  };
  const std::vector<uint64_t> sizes = {8192, 12288, 64, 4096, 16384, 32, 20480};
  for (const Case& c : {Case{{1, 4}, 1, 1}, Case{{4, 6}, 4, 4}, Case{{5, 6}, 5, 6}, Case{{2, 6}, 2, 6},
                        Case{{3, 5}, 3, 3}}) {
    for (bool external : {false, true}) {
      for (int round = 0; round < 10; ++round) {
        CAPTURE(c.embedded);
        CAPTURE(external);
        FileArchiveFixture archive_file;
        TensorMap weights;
        TranslationBuilder builder;
        for (size_t i = 0; i < sizes.size(); ++i) {
          std::string name = "w";
          name.append(std::to_string(i));
          std::string entry_name = "m/data/weights/weight_";
          entry_name.append(std::to_string(i));
          auto entry = archive_file.add_entry(iota_bytes(sizes[i], static_cast<uint8_t>(i)), entry_name);
          if (std::find(c.damaged.begin(), c.damaged.end(), static_cast<int>(i)) != c.damaged.end())
            entry->record_crc(0x12345678);
          const auto numel = static_cast<int64_t>(sizes[i]);
          weights.emplace(name, make_tensor(ir::DType::kUInt8, {numel}, entry));
          builder.declare(name, ir::DType::kUInt8, {numel}, name);
        }
        archive_file.save();
        testing::TestModel translation = builder.build();
        TempDir out;
        const Error error = capture_error([&] {
          write_model(translation, FakeArchive(archive_file.archive_path), weights, {},
                      options_for(out / "m.onnx", external));
        });
        CHECK(error.code() == ErrorCode::kArchive);
        std::string want = "w";
        want.append(std::to_string(external ? c.external : c.embedded));
        CHECK(contains(error.what(), "weight '" + want + "' (initializer '" + want + "')"));
        CHECK(contains(error.what(), "CRC-32 mismatch"));
        CHECK(list_dir(out.path()).empty());
      }
    }
  }
}

TEST_CASE("progress counts every weight's bytes once: external, streamed and tiny ones") {
  FileArchiveFixture archive_file;
  auto big = archive_file.add_entry(iota_bytes(8192), "w0");
  auto middle = archive_file.add_entry(iota_bytes(2048, 1), "w1");
  auto tiny = archive_file.add_entry(iota_bytes(64, 2), "w2");
  archive_file.save();
  TensorMap weights{{"big", make_tensor(ir::DType::kUInt8, {8192}, big)},
                    {"middle", make_tensor(ir::DType::kUInt8, {2048}, middle)},
                    {"tiny", make_tensor(ir::DType::kUInt8, {64}, tiny)}};
  for (bool external : {false, true}) {
    CAPTURE(external);
    testing::TestModel translation = TranslationBuilder()
                                             .declare("tiny", ir::DType::kUInt8, {64}, "tiny")
                                             .declare("big", ir::DType::kUInt8, {8192}, "big")
                                             .declare("middle", ir::DType::kUInt8, {2048}, "middle")
                                             .build();
    TempDir out;
    WriteOptions options = options_for(out / "m.onnx", external);
    std::vector<std::pair<int64_t, int64_t>> calls;
    options.on_progress = [&](int64_t done, int64_t total) { calls.emplace_back(done, total); };
    write_model(translation, FakeArchive(archive_file.archive_path), weights, {}, options);
    REQUIRE(calls.size() == 3);
    CHECK(calls.back() == std::pair<int64_t, int64_t>{8192 + 2048 + 64, 8192 + 2048 + 64});
    for (size_t i = 1; i < calls.size(); ++i) CHECK(calls[i].first > calls[i - 1].first);
    const onnx::ModelProto model = load_model(out / "m.onnx");
    CHECK(find_initializer(model, "tiny").raw_data() == as_string(iota_bytes(64, 2)));
    CHECK_FALSE(find_initializer(translation.proto, "tiny").has_raw_data());
  }
}

TEST_CASE("an unwritable output path fails with kOutput naming it, and leaves nothing") {
  TempDir out;
  std::ofstream(out / "a_file") << "x";
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(16), "w0");
  TensorMap weights{{"w", make_tensor(ir::DType::kFloat32, {4}, storage)}};
  for (const std::filesystem::path& output : {out / "missing_dir" / "m.onnx", out / "a_file" / "m.onnx"}) {
    for (bool external : {false, true}) {
      testing::TestModel translation = TranslationBuilder().declare("w", ir::DType::kFloat32, {4}, "w").build();
      WriteOptions options = options_for(output, external);
      options.external_min_bytes = 1;
      const Error error = capture_error([&] { write_model(translation, FakeArchive(), weights, {}, options); });
      CHECK(error.code() == ErrorCode::kOutput);
      CHECK(contains(error.what(), output.string()));
      CHECK(list_dir(out.path()) == std::set<std::string>{"a_file"});
    }
  }
  // An output path that is an existing directory fails at the final rename; the temp files and
  // a data file already renamed into place go away.
  std::filesystem::create_directory(out / "dir.onnx");
  for (bool external : {false, true}) {
    testing::TestModel translation = TranslationBuilder().declare("w", ir::DType::kFloat32, {4}, "w").build();
    WriteOptions options = options_for(out / "dir.onnx", external);
    options.external_min_bytes = 1;
    const Error error = capture_error([&] { write_model(translation, FakeArchive(), weights, {}, options); });
    CHECK(error.code() == ErrorCode::kOutput);
    CHECK(list_dir(out.path()) == std::set<std::string>{"a_file", "dir.onnx"});
  }
}

TEST_CASE("missing weights, type or shape disagreements and complex tensors are refused before writing") {
  TempDir out;
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(64), "w0");
  SUBCASE("missing FQN") {
    testing::TestModel translation = TranslationBuilder().declare("w", ir::DType::kFloat32, {4}, "blocks.3.w").build();
    const Error error = capture_error([&] { write_model(translation, FakeArchive(), {}, {}, options_for(out / "m.onnx")); });
    CHECK(error.code() == ErrorCode::kArchive);
    CHECK(contains(error.what(), "blocks.3.w"));
  }
  SUBCASE("constant found by FQN even when flagged a weight") {
    TensorMap constants{{"c", make_tensor(ir::DType::kFloat32, {4}, storage)}};
    testing::TestModel translation = TranslationBuilder().declare("c", ir::DType::kFloat32, {4}, "c").build();
    CHECK_NOTHROW(write_model(translation, FakeArchive(), {}, constants, options_for(out / "m.onnx")));
  }
  SUBCASE("dtype mismatch") {
    TensorMap weights{{"w", make_tensor(ir::DType::kFloat16, {4}, storage)}};
    testing::TestModel translation = TranslationBuilder().declare("w", ir::DType::kFloat32, {4}, "w").build();
    const Error error =
        capture_error([&] { write_model(translation, FakeArchive(), weights, {}, options_for(out / "m.onnx")); });
    CHECK(error.code() == ErrorCode::kArchive);
    CHECK(contains(error.what(), "FLOAT16"));
    CHECK(contains(error.what(), "FLOAT[4]"));
  }
  SUBCASE("shape mismatch") {
    TensorMap weights{{"w", make_tensor(ir::DType::kFloat32, {2, 2}, storage)}};
    testing::TestModel translation = TranslationBuilder().declare("w", ir::DType::kFloat32, {4}, "w").build();
    const Error error =
        capture_error([&] { write_model(translation, FakeArchive(), weights, {}, options_for(out / "m.onnx")); });
    CHECK(error.code() == ErrorCode::kArchive);
    CHECK(contains(error.what(), "[2,2]"));
    CHECK(contains(error.what(), "[4]"));
  }
  SUBCASE("complex not declared as real pairs") {
    // A complex64 [4] weight is float32 [4, 2] in the ONNX (translate/complex_values.h).
    TensorMap weights{{"w", make_tensor(ir::DType::kComplex64, {4}, storage)}};
    testing::TestModel translation = TranslationBuilder().declare("w", ir::DType::kFloat32, {4}, "w").build();
    const Error error =
        capture_error([&] { write_model(translation, FakeArchive(), weights, {}, options_for(out / "m.onnx")); });
    CHECK(error.code() == ErrorCode::kArchive);
    CHECK(contains(error.what(), "complex64"));
  }
  SUBCASE("complex32 has no real pairs ONNX runtimes compute like torch") {
    TensorMap weights{{"w", make_tensor(ir::DType::kComplex32, {4}, storage)}};
    testing::TestModel translation = TranslationBuilder().declare("w", ir::DType::kFloat16, {4, 2}, "w").build();
    const Error error =
        capture_error([&] { write_model(translation, FakeArchive(), weights, {}, options_for(out / "m.onnx")); });
    CHECK(error.code() == ErrorCode::kUnsupported);
    CHECK(contains(error.what(), "complex32"));
  }
  CHECK(list_dir(out.path()).size() <= 1);  // only the one success case writes m.onnx
}

TEST_CASE("identical input gives byte-identical files, wherever they are written") {
  FileArchiveFixture archive_file;
  auto storage = archive_file.add_entry(iota_bytes(4 * 2048), "w0");
  archive_file.save();
  auto memory = std::make_shared<MemoryStorage>(iota_bytes(4 * 6), "w1");
  TensorMap weights{{"a", make_tensor(ir::DType::kFloat32, {2048}, storage)},
                    {"b", make_tensor(ir::DType::kFloat32, {3, 2}, memory, {1, 3})},
                    {"c", make_tensor(ir::DType::kFloat32, {1024}, storage, {}, 1024)}};
  for (bool external : {false, true}) {
    CAPTURE(external);
    TempDir first, second;
    for (const TempDir* dir : {&first, &second}) {
      testing::TestModel translation = TranslationBuilder()
                                               .declare("a", ir::DType::kFloat32, {2048}, "a")
                                               .declare("b", ir::DType::kFloat32, {3, 2}, "b")
                                               .declare("c", ir::DType::kFloat32, {1024}, "c")
                                               .build();
      write_model(translation, FakeArchive(archive_file.archive_path), weights, {},
                  options_for(dir->path() / "model.onnx", external));
    }
    CHECK(read_file(first / "model.onnx") == read_file(second / "model.onnx"));
    CHECK(list_dir(first.path()) == list_dir(second.path()));
    if (external) CHECK(read_file(first / "model.onnx.data") == read_file(second / "model.onnx.data"));
  }
}

TEST_CASE("a model over the embedded limit switches to external data with a warning") {
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(4 * 4096), "w0");
  TensorMap weights{{"big", make_tensor(ir::DType::kFloat32, {4096}, storage)}};
  testing::TestModel translation = TranslationBuilder().declare("big", ir::DType::kFloat32, {4096}, "big").build();
  TempDir out;
  WriteOptions options = options_for(out / "m.onnx");
  options.embedded_limit_bytes = 10000;
  WriteResult result = write_model(translation, FakeArchive(), weights, {}, options);
  CHECK(result.external_data == out / "m.onnx.data");
  REQUIRE(translation.warnings.size() == 1);
  CHECK(contains(translation.warnings[0], "external data"));
  const onnx::ModelProto model = load_model(out / "m.onnx");
  CHECK(find_initializer(model, "big").data_location() == onnx::TensorProto_DataLocation_EXTERNAL);
  CHECK(read_file(out / "m.onnx.data") == as_string(iota_bytes(4 * 4096)));

  // Under the limit it stays embedded.
  testing::TestModel again = TranslationBuilder().declare("big", ir::DType::kFloat32, {4096}, "big").build();
  TempDir out2;
  options.output = out2 / "m.onnx";
  options.embedded_limit_bytes = 20000;
  CHECK(write_model(again, FakeArchive(), weights, {}, options).external_data.empty());
}

TEST_CASE("a stale data file is replaced by an external write and removed by an embedded one") {
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(4 * 1024), "w0");
  TensorMap weights{{"w", make_tensor(ir::DType::kFloat32, {1024}, storage)}};
  auto translation = [] { return TranslationBuilder().declare("w", ir::DType::kFloat32, {1024}, "w").build(); };
  TempDir out;
  std::ofstream(out / "m.onnx.data") << "stale stale stale";

  testing::TestModel external = translation();
  write_model(external, FakeArchive(), weights, {}, options_for(out / "m.onnx", true));
  CHECK(read_file(out / "m.onnx.data") == as_string(iota_bytes(4 * 1024)));

  testing::TestModel embedded = translation();
  write_model(embedded, FakeArchive(), weights, {}, options_for(out / "m.onnx"));
  CHECK(list_dir(out.path()) == std::set<std::string>{"m.onnx"});
  REQUIRE(embedded.warnings.size() == 1);
  CHECK(contains(embedded.warnings[0], "stale"));
}

TEST_CASE("external mode with only small weights writes no data file") {
  auto storage = std::make_shared<MemoryStorage>(iota_bytes(16), "w0");
  TensorMap weights{{"w", make_tensor(ir::DType::kFloat32, {4}, storage)}};
  testing::TestModel translation = TranslationBuilder().declare("w", ir::DType::kFloat32, {4}, "w").build();
  TempDir out;
  WriteResult result = write_model(translation, FakeArchive(), weights, {}, options_for(out / "m.onnx", true));
  CHECK(result.external_data.empty());
  CHECK(list_dir(out.path()) == std::set<std::string>{"m.onnx"});
  CHECK(translation.warnings.size() == 1);
}

TEST_CASE("derived weights are written from their sources, after the archive's, also when the source is gone") {
  TempDir out;
  const std::vector<float> w = {1, 2, 3, 4, 5, 6};  // [2, 3]
  std::vector<uint8_t> w_bytes(w.size() * sizeof(float));
  std::memcpy(w_bytes.data(), w.data(), w_bytes.size());
  const std::vector<uint8_t> b_bytes = iota_bytes(8);
  TensorMap weights{{"fc.weight", make_tensor(ir::DType::kFloat32, {2, 3}, std::make_shared<MemoryStorage>(w_bytes, "w0"), {3, 1})},
                    {"fc.bias", make_tensor(ir::DType::kUInt8, {8}, std::make_shared<MemoryStorage>(b_bytes, "w1"))}};
  // As clean leaves it: fc.weight scaled per row (its declaration and binding gone), and the
  // scaled weight's Transpose folded (a derived source: no fqn).
  testing::TestModel translation = TranslationBuilder()
                                       .declare("fc.weight.s.T", ir::DType::kFloat32, {3, 2}, "unused")
                                       .declare("fc.bias", ir::DType::kUInt8, {8}, "fc.bias")
                                       .declare("fc.weight.s", ir::DType::kFloat32, {2, 3}, "unused")
                                       .build();
  translation.weights = {{"fc.bias", "fc.bias", false}};
  const std::vector<model::DerivedWeight> derived = {
      {"fc.weight.s", {"fc.weight", "fc.weight", false}, model::DerivedWeight::Scaled{{10.0, 100.0}, 3}},
      {"fc.weight.s.T", {"fc.weight.s", "", false}, model::DerivedWeight::Permuted{{1, 0}}}};

  WriteResult result = write_model(translation, FakeArchive(), weights, {}, options_for(out / "m.onnx"), derived);
  CHECK(result.weight_count == 3);
  const onnx::ModelProto model = load_model(out / "m.onnx");
  auto floats = [&](const std::string& name) {
    const std::string& raw = find_initializer(model, name).raw_data();
    std::vector<float> v(raw.size() / sizeof(float));
    std::memcpy(v.data(), raw.data(), raw.size());
    return v;
  };
  CHECK(floats("fc.weight.s") == std::vector<float>{10, 20, 30, 400, 500, 600});
  CHECK(floats("fc.weight.s.T") == std::vector<float>{10, 400, 20, 500, 30, 600});
  CHECK(find_initializer(model, "fc.bias").raw_data() == as_string(b_bytes));

  // One that cannot be made (an unknown source) is clean-up's error, not the input's.
  const std::vector<model::DerivedWeight> unknown = {
      {"fc.weight.s", {"nothing", "nothing", false}, model::DerivedWeight::Scaled{{1.0}, 1}}};
  const Error error = capture_error([&] {
    testing::TestModel again = translation;
    write_model(again, FakeArchive(), weights, {}, options_for(out / "m2.onnx"), unknown);
  });
  CHECK(error.code() == ErrorCode::kInternal);
  CHECK_FALSE(std::filesystem::exists(out / "m2.onnx"));
}

}  // namespace
}  // namespace pt2onnx::emit
