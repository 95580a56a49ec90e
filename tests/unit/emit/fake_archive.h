// Test doubles for emit: storages in memory, in a file (with file_offset, like a STORED zip
// entry), or synthesized on the fly; an Archive that only knows its path; and small helpers to
// declare initializers and inspect what write_model left on disk.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "archive/archive.h"
#include "archive/model_text.h"
#include "archive/zip_crc.h"
#include "common/error.h"
#include "emit/write_model.h"
#include "ir/onnx_dtype.h"
#include "model/onnx_model.h"

namespace pt2onnx::emit::testing {

class MemoryStorage final : public archive::Storage {
 public:
  MemoryStorage(std::vector<uint8_t> bytes, std::string entry) : bytes_(std::move(bytes)), entry_(std::move(entry)) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t offset, uint64_t n, void* dst) const override {
    if (offset > bytes_.size() || n > bytes_.size() - offset) fail(ErrorCode::kArchive, entry_ + ": read past the end");
    if (n > 0) std::memcpy(dst, bytes_.data() + offset, n);
    ++reads;
  }
  std::optional<uint64_t> file_offset() const override { return std::nullopt; }
  std::string entry_name() const override { return entry_; }
  mutable int reads = 0;

 private:
  std::vector<uint8_t> bytes_;
  std::string entry_;
};

// Bytes [offset, offset + size) of a file, as an uncompressed entry of an archive would be. The
// size may claim more than the file holds, to model a truncated archive. record_crc() gives it
// the zip's CRC check, which copies of the whole entry then make.
class FileStorage final : public archive::Storage {
 public:
  FileStorage(std::filesystem::path file, uint64_t offset, uint64_t size, std::string entry)
      : file_(std::move(file)), offset_(offset), size_(size), entry_(std::move(entry)) {}
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, uint64_t n, void* dst) const override {
    if (offset > size_ || n > size_ - offset) fail(ErrorCode::kArchive, entry_ + ": read past the end");
    const int fd = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC);
    const ssize_t got = ::pread(fd, dst, n, static_cast<off_t>(offset_ + offset));
    ::close(fd);
    if (got != static_cast<ssize_t>(n)) fail(ErrorCode::kArchive, entry_ + ": short read");
  }
  std::optional<uint64_t> file_offset() const override { return offset_; }
  std::string entry_name() const override { return entry_; }
  const archive::EntryCrc* entry_crc() const override { return crc_.get(); }
  void verify() const override {
    if (!crc_ || crc_->done()) return;
    std::vector<uint8_t> bytes(size_);
    read(0, size_, bytes.data());
    crc_->check(archive::crc32_update(0, bytes.data(), bytes.size()));
  }
  void record_crc(uint32_t expected) { crc_ = std::make_shared<archive::EntryCrc>(expected, label_); }

 private:
  std::filesystem::path file_;
  uint64_t offset_;
  uint64_t size_;
  std::string entry_;
  archive::StorageLabel label_{entry_, std::string()};  // the CRC's messages say the entry alone
  std::shared_ptr<archive::EntryCrc> crc_;
};

// A large storage whose byte i is pattern_byte(i), so views of hundreds of MiB cost no memory.
inline uint8_t pattern_byte(uint64_t i) { return static_cast<uint8_t>((i * 131 + (i >> 8) * 7 + 3) & 0xff); }

// pattern_byte(0..n), as a buffer.
inline std::vector<uint8_t> pattern_bytes(uint64_t n) {
  std::vector<uint8_t> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = pattern_byte(i);
  return out;
}

class PatternStorage final : public archive::Storage {
 public:
  explicit PatternStorage(uint64_t size) : size_(size) {}
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, uint64_t n, void* dst) const override {
    if (offset > size_ || n > size_ - offset) fail(ErrorCode::kArchive, "pattern: read past the end");
    auto* out = static_cast<uint8_t*>(dst);
    for (uint64_t i = 0; i < n; ++i) out[i] = pattern_byte(offset + i);
    ++reads;
  }
  std::optional<uint64_t> file_offset() const override { return std::nullopt; }
  mutable int reads = 0;

 private:
  uint64_t size_;
};

class FakeArchive final : public archive::Archive {
 public:
  explicit FakeArchive(std::filesystem::path path = "/nonexistent/fake.pt2") : path_(std::move(path)) {}
  const std::filesystem::path& path() const override { return path_; }
  archive::ArchiveLayout layout() const override { return archive::ArchiveLayout::kPt2RawWeights; }
  std::vector<std::string> model_names() const override { return {"model"}; }
  std::string model_json(const std::string&) const override { return "{}"; }
  std::unique_ptr<ReadOnceText> model_text(const std::string& model) const override {
    return std::make_unique<archive::StringText>(model_json(model));
  }
  std::string model_entry(const std::string&) const override { return "models/model.json"; }
  std::map<std::string, archive::TensorData> weights(const std::string&) const override { return {}; }
  std::map<std::string, archive::TensorData> constants(const std::string&) const override { return {}; }

 private:
  std::filesystem::path path_;
};

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pt2onnx_emit_XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline std::vector<uint8_t> iota_bytes(size_t n, uint8_t start = 1) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(start + i * 7);
  return out;
}

inline archive::TensorData make_tensor(ir::DType dtype, std::vector<int64_t> sizes,
                                       std::shared_ptr<const archive::Storage> storage,
                                       std::vector<int64_t> strides = {}, int64_t storage_offset = 0) {
  archive::TensorData tensor;
  tensor.dtype = dtype;
  tensor.sizes = std::move(sizes);
  tensor.strides = std::move(strides);
  tensor.storage_offset = storage_offset;
  tensor.storage = std::move(storage);
  return tensor;
}

// A model under test, with the warnings its write reported.
struct TestModel : model::OnnxModel {
  std::vector<std::string> warnings;
};

// A model with one Identity per declared weight, so the graph is valid for the checker.
class TranslationBuilder {
 public:
  TranslationBuilder() {
    translation_.proto.set_ir_version(8);
    translation_.proto.add_opset_import()->set_version(17);
    translation_.proto.mutable_graph()->set_name("g");
  }
  TranslationBuilder& declare(const std::string& name, ir::DType dtype, const std::vector<int64_t>& dims,
                              const std::string& fqn, bool is_constant = false) {
    onnx::GraphProto& graph = *translation_.proto.mutable_graph();
    onnx::TensorProto& initializer = *graph.add_initializer();
    initializer.set_name(name);
    initializer.set_data_type(ir::onnx_type(dtype));
    for (int64_t d : dims) initializer.add_dims(d);
    onnx::NodeProto& node = *graph.add_node();
    node.set_op_type("Identity");
    node.set_name("node_" + name);
    node.add_input(name);
    node.add_output("out_" + name);
    onnx::ValueInfoProto& output = *graph.add_output();
    output.set_name("out_" + name);
    output.mutable_type()->mutable_tensor_type()->set_elem_type(ir::onnx_type(dtype));
    for (int64_t d : dims) output.mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
    translation_.weights.push_back({name, fqn, is_constant});
    return *this;
  }
  TestModel build() const { return translation_; }

 private:
  TestModel translation_;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline onnx::ModelProto load_model(const std::filesystem::path& path) {
  onnx::ModelProto model;
  std::ifstream in(path, std::ios::binary);
  if (!model.ParseFromIstream(&in)) fail(ErrorCode::kInternal, "cannot parse " + path.string());
  return model;
}

inline std::set<std::string> list_dir(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

inline const onnx::TensorProto& find_initializer(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& initializer : model.graph().initializer())
    if (initializer.name() == name) return initializer;
  fail(ErrorCode::kInternal, "no initializer " + name);
}

inline std::string external_entry(const onnx::TensorProto& tensor, const std::string& key) {
  for (const auto& entry : tensor.external_data())
    if (entry.key() == key) return entry.value();
  return {};
}

inline std::string as_string(const std::vector<uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }

}  // namespace pt2onnx::emit::testing

namespace pt2onnx::emit {

// write_model for a test's model (no derived weights unless given): the warnings of the write
// are kept on it.
inline WriteResult write_model(testing::TestModel& test_model, const archive::Archive& archive,
                               const std::map<std::string, archive::TensorData>& weights,
                               const std::map<std::string, archive::TensorData>& constants, const WriteOptions& options,
                               const std::vector<model::DerivedWeight>& derived = {}) {
  model::Diagnostics diagnostics;
  WriteResult result = write_model(static_cast<model::OnnxModel&>(test_model), archive, weights, constants, derived,
                                   options, diagnostics);
  for (std::string& warning : diagnostics.messages()) test_model.warnings.push_back(std::move(warning));
  return result;
}

}  // namespace pt2onnx::emit
