// serialize_model: streamed and filled raw_data give exactly protobuf's own deterministic bytes,
// and the model is left as it was.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/unknown_field_set.h>

#include "emit/fake_archive.h"
#include "emit/serialize_model.h"

namespace pt2onnx::emit {
namespace {

using testing::read_file;
using testing::TempDir;

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

std::string payload_for(int index, uint64_t n) {
  std::string bytes(n, '\0');
  for (uint64_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 31 + static_cast<uint64_t>(index) * 7) & 0xff);
  return bytes;
}

// "w3" (built by append: GCC 12 misreports `numbered("w", i)` under -Wrestrict).
std::string numbered(const char* prefix, int i) {
  std::string name = prefix;
  name += std::to_string(i);
  return name;
}

// Fields on both sides of graph (7), initializer (5) and raw_data (9), plus unknown fields.
onnx::ModelProto rich_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("pt2onnx");
  model.set_doc_string("before the graph");
  model.add_opset_import()->set_version(18);
  auto* meta = model.add_metadata_props();
  meta->set_key("k");
  meta->set_value("v");
  model.add_functions()->set_name("Block");
  model.GetReflection()->MutableUnknownFields(&model)->AddVarint(999, 42);

  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("main");
  for (int i = 0; i < 3; ++i) {
    onnx::NodeProto& node = *graph.add_node();
    node.set_op_type("Identity");
    node.add_input(numbered("w", i));
    node.add_output(numbered("y", i));
  }
  for (int i = 0; i < 4; ++i) {
    onnx::TensorProto& tensor = *graph.add_initializer();
    tensor.set_name(numbered("w", i));
    tensor.set_data_type(2);
    tensor.add_dims(i == 1 ? 3 : 300 * (i + 1));
    if (i == 1) tensor.set_raw_data("abc");  // an ordinary embedded tensor between streamed ones
    if (i == 2) tensor.set_doc_string("after raw_data");
    if (i == 3) tensor.GetReflection()->MutableUnknownFields(&tensor)->AddVarint(998, 7);
  }
  graph.set_doc_string("after the initializers");
  graph.add_output()->set_name("y0");
  graph.GetReflection()->MutableUnknownFields(&graph)->AddLengthDelimited(997, "unknown");
  return model;
}

// A file for the test to write, opened write-only.
int open_output(const std::filesystem::path& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

TEST_CASE("streamed payloads give the same bytes as the filled model serialized by protobuf") {
  onnx::ModelProto model = rich_model();
  const std::string before = deterministic_bytes(model);
  const std::map<int, uint64_t> payload_bytes{{0, 300}, {2, 900}, {3, 200000}};  // 200000: 3-byte varint

  TempDir dir;
  const std::filesystem::path path = dir / "m.onnx";
  const int fd = open_output(path);
  REQUIRE(fd >= 0);
  std::vector<int> written;
  DeferredRawData deferred;
  deferred.streamed = payload_bytes;
  deferred.write_payload = [&](int index, uint64_t offset) {
    const std::string bytes = payload_for(index, payload_bytes.at(index));
    REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)) == static_cast<ssize_t>(bytes.size()));
    written.push_back(index);
  };
  serialize_model(model, deferred, fd, path);
  ::close(fd);

  CHECK(written == std::vector<int>{0, 2, 3});
  CHECK(deterministic_bytes(model) == before);  // restored, unknown fields included

  onnx::ModelProto filled = model;
  for (const auto& [index, n] : payload_bytes) filled.mutable_graph()->mutable_initializer(index)->set_raw_data(payload_for(index, n));
  CHECK(read_file(path) == deterministic_bytes(filled));
}

TEST_CASE("filled raw_data gives the same bytes as the model with every initializer filled first") {
  onnx::ModelProto model = rich_model();
  for (int i = 4; i < 6; ++i) {  // an empty tensor and one more after it
    onnx::TensorProto& tensor = *model.mutable_graph()->add_initializer();
    tensor.set_name(numbered("w", i));
    tensor.set_data_type(2);
    tensor.add_dims(i == 4 ? 0 : 200);
  }
  const std::string before = deterministic_bytes(model);
  DeferredRawData deferred;
  deferred.streamed = {{0, 300}, {3, 200000}};
  deferred.filled = {{2, 900}, {4, 0}, {5, 200}};

  TempDir dir;
  const std::filesystem::path path = dir / "m.onnx";
  const int fd = open_output(path);
  REQUIRE(fd >= 0);
  std::vector<std::string> supplied;  // in the order asked: "s0" streamed, "f2" filled
  deferred.write_payload = [&](int index, uint64_t offset) {
    const std::string bytes = payload_for(index, deferred.streamed.at(index));
    REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)) == static_cast<ssize_t>(bytes.size()));
    supplied.push_back(numbered("s", index));
  };
  deferred.fill = [&](int index, uint8_t* dst) {
    const std::string bytes = payload_for(index, deferred.filled.at(index));
    std::copy(bytes.begin(), bytes.end(), dst);
    supplied.push_back(numbered("f", index));
  };
  serialize_model(model, deferred, fd, path);
  ::close(fd);

  CHECK(supplied == std::vector<std::string>{"s0", "f2", "s3", "f4", "f5"});
  CHECK(deterministic_bytes(model) == before);  // no raw_data left in the filled ones
  CHECK_FALSE(model.graph().initializer(2).has_raw_data());

  onnx::ModelProto filled = model;
  for (const auto* sizes : {&deferred.streamed, &deferred.filled})
    for (const auto& [index, n] : *sizes)
      filled.mutable_graph()->mutable_initializer(index)->set_raw_data(payload_for(index, n));
  CHECK(read_file(path) == deterministic_bytes(filled));
}

TEST_CASE("a failing fill leaves the model as it was, the earlier filled initializers too") {
  onnx::ModelProto model = rich_model();
  const std::string before = deterministic_bytes(model);
  TempDir dir;
  const std::filesystem::path path = dir / "m.onnx";
  const int fd = open_output(path);
  REQUIRE(fd >= 0);
  DeferredRawData deferred;
  deferred.filled = {{0, 300}, {2, 900}};
  deferred.fill = [](int index, uint8_t* dst) {
    if (index == 2) fail(ErrorCode::kArchive, "crc mismatch");
    std::fill(dst, dst + 300, uint8_t{7});
  };
  CHECK_THROWS_WITH_AS(serialize_model(model, deferred, fd, path), "crc mismatch", Error);
  ::close(fd);
  CHECK(deterministic_bytes(model) == before);
}

TEST_CASE("a write error while a filled initializer is written leaves the model as it was") {
  onnx::ModelProto model = rich_model();
  const std::string before = deterministic_bytes(model);
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  DeferredRawData deferred;
  deferred.filled = {{2, uint64_t{2} << 20}};  // over the stream's 1 MiB block: written while lent
  deferred.fill = [](int, uint8_t* dst) { std::fill(dst, dst + (size_t{2} << 20), uint8_t{1}); };
  try {
    serialize_model(model, deferred, fd, "out/m.onnx");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kOutput);
  }
  ::close(fd);
  CHECK(deterministic_bytes(model) == before);
}

TEST_CASE("without payloads the file is the deterministic serialization") {
  onnx::ModelProto model = rich_model();
  TempDir dir;
  const std::filesystem::path path = dir / "m.onnx";
  const int fd = open_output(path);
  REQUIRE(fd >= 0);
  serialize_model(model, {}, fd, path);
  ::close(fd);
  CHECK(read_file(path) == deterministic_bytes(model));
}

TEST_CASE("a failing payload writer leaves the model as it was") {
  onnx::ModelProto model = rich_model();
  const std::string before = deterministic_bytes(model);
  TempDir dir;
  const std::filesystem::path path = dir / "m.onnx";
  const int fd = open_output(path);
  REQUIRE(fd >= 0);
  DeferredRawData deferred;
  deferred.streamed = {{2, 900}};
  deferred.write_payload = [](int, uint64_t) { fail(ErrorCode::kArchive, "short"); };
  CHECK_THROWS_AS(serialize_model(model, deferred, fd, path), Error);
  ::close(fd);
  CHECK(deterministic_bytes(model) == before);
}

TEST_CASE("a write error names the output path") {
  onnx::ModelProto model = rich_model();
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  try {
    serialize_model(model, {}, fd, "out/m.onnx");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kOutput);
    CHECK(std::string(e.what()).find("out/m.onnx") != std::string::npos);
  }
  ::close(fd);
}

}  // namespace
}  // namespace pt2onnx::emit
