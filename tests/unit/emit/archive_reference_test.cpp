// --external-data=archive in write_model: initializers that reference their bytes in the archive
// file (offset = the entry's + the view's), no data file, and the refusals, which leave nothing.
#include <doctest/doctest.h>

#include <onnx/checker.h>

#include "emit/archive_reference.h"
#include "emit/fake_archive.h"
#include "emit/write_model.h"

namespace pt2onnx::emit {
namespace {

using testing::external_entry;
using testing::FakeArchive;
using testing::FileStorage;
using testing::find_initializer;
using testing::iota_bytes;
using testing::list_dir;
using testing::load_model;
using testing::make_tensor;
using testing::MemoryStorage;
using testing::TempDir;
using testing::TranslationBuilder;

using TensorMap = std::map<std::string, archive::TensorData>;

// An archive file of 100 junk bytes, 4000 weight bytes (an entry at offset 100), 16 more junk bytes.
struct ArchiveFile {
  TempDir dir;
  std::filesystem::path path = dir / "nested" / "model.pt2";
  std::shared_ptr<FileStorage> entry = std::make_shared<FileStorage>(path, 100, 4000, "m/data/weights/weight_0");
  ArchiveFile() {
    std::filesystem::create_directories(path.parent_path());
    std::vector<uint8_t> bytes(100, 0xEE);
    const std::vector<uint8_t> weight = iota_bytes(4000);
    bytes.insert(bytes.end(), weight.begin(), weight.end());
    bytes.resize(bytes.size() + 16, 0xEE);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
  }
};

WriteOptions archive_options(const std::filesystem::path& output) {
  WriteOptions options;
  options.output = output;
  options.reference_archive = true;
  return options;
}

std::string refusal(testing::TestModel& translation, const std::filesystem::path& archive, const TensorMap& weights,
                    const std::filesystem::path& output) {
  try {
    write_model(translation, FakeArchive(archive), weights, {}, archive_options(output));
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
    return e.what();
  }
  FAIL("expected a refusal");
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_CASE("weights reference the archive: location relative to the output, offset of the entry plus the view") {
  ArchiveFile file;
  // Rows 5..9 of a [10,100] float32 weight: a contiguous view 2000 bytes into the entry.
  TensorMap weights{{"a.weight", make_tensor(ir::DType::kFloat32, {10, 100}, file.entry)},
                    {"b.half", make_tensor(ir::DType::kFloat32, {5, 100}, file.entry, {}, 500)},
                    {"c.bias", make_tensor(ir::DType::kFloat32, {4}, std::make_shared<MemoryStorage>(iota_bytes(16), "c"))}};
  testing::TestModel translation = TranslationBuilder()
                                           .declare("a.weight", ir::DType::kFloat32, {10, 100}, "a.weight")
                                           .declare("b.half", ir::DType::kFloat32, {5, 100}, "b.half")
                                           .declare("c.bias", ir::DType::kFloat32, {4}, "c.bias")
                                           .build();
  const WriteResult result =
      write_model(translation, FakeArchive(file.path), weights, {}, archive_options(file.dir / "m.onnx"));
  CHECK(result.external_data.empty());
  CHECK(result.archive_location == "nested/model.pt2");
  CHECK(result.referenced_bytes == 4000 + 2000);
  CHECK(result.weight_bytes == 16);  // the small bias is embedded
  CHECK(list_dir(file.dir.path()) == std::set<std::string>{"m.onnx", "nested"});

  const onnx::ModelProto model = load_model(file.dir / "m.onnx");
  const onnx::TensorProto& a = find_initializer(model, "a.weight");
  CHECK(external_entry(a, "location") == "nested/model.pt2");
  CHECK(external_entry(a, "offset") == "100");
  CHECK(external_entry(a, "length") == "4000");
  const onnx::TensorProto& b = find_initializer(model, "b.half");
  CHECK(external_entry(b, "offset") == "2100");
  CHECK(external_entry(b, "length") == "2000");
  CHECK(find_initializer(model, "c.bias").raw_data().size() == 16);
  CHECK_NOTHROW(onnx::checker::check_model((file.dir / "m.onnx").string()));
}

TEST_CASE("a strided view or bytes not in the file are refused by name, nothing written") {
  ArchiveFile file;
  TensorMap weights{{"t.weight", make_tensor(ir::DType::kFloat32, {100, 10}, file.entry, {1, 100})},
                    {"m.table", make_tensor(ir::DType::kFloat32, {300}, std::make_shared<MemoryStorage>(iota_bytes(1200), "m"))}};
  testing::TestModel translation = TranslationBuilder()
                                           .declare("m.table", ir::DType::kFloat32, {300}, "m.table")
                                           .declare("t.weight", ir::DType::kFloat32, {100, 10}, "t.weight")
                                           .build();
  const std::string message = refusal(translation, file.path, weights, file.dir / "m.onnx");
  CHECK(contains(message, "weight 'm.table'"));  // the first in binding order
  CHECK(contains(message, "and 1 more weights"));
  CHECK(contains(message, "--external-data"));
  CHECK(list_dir(file.dir.path()) == std::set<std::string>{"nested"});

  TensorMap strided{{"t.weight", weights.at("t.weight")}};
  testing::TestModel one = TranslationBuilder().declare("t.weight", ir::DType::kFloat32, {100, 10}, "t.weight").build();
  const std::string strided_message = refusal(one, file.path, strided, file.dir / "m.onnx");
  CHECK(contains(strided_message, "strided view"));
  CHECK(contains(strided_message, "strides [1,100]"));
}

TEST_CASE("the archive must lie in the output's folder tree, through symbolic links too") {
  ArchiveFile file;
  CHECK(archive_location(file.path, file.dir / "m.onnx") == "nested/model.pt2");
  CHECK(archive_location(file.path, file.dir / "nested" / "m.onnx") == "model.pt2");
  TempDir elsewhere;
  CHECK_THROWS_AS(archive_location(file.path, elsewhere / "m.onnx"), Error);
  CHECK_THROWS_AS(archive_location(file.path, file.dir / "nested" / "deeper" / "m.onnx"), Error);
  // A link inside the output's folder to the archive elsewhere: the location would leave the folder.
  std::filesystem::create_symlink(file.path, elsewhere / "link.pt2");
  CHECK_THROWS_AS(archive_location(elsewhere / "link.pt2", elsewhere / "m.onnx"), Error);
  // A second hard link: onnx's checker refuses the data file.
  std::filesystem::create_hard_link(file.path, file.dir / "again.pt2");
  CHECK_THROWS_AS(archive_location(file.path, file.dir / "m.onnx"), Error);
}

}  // namespace
}  // namespace pt2onnx::emit
