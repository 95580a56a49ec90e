// ModelProto -> file, deterministic and streamed. Protobuf writes a message's fields in
// field-number order, so a message whose field F must be produced piecemeal is written as: the
// fields below F, F framed by hand (tag, length, content), then the fields above F. Each piece
// is made by swapping fields out of the message (no copies) and serialized by protobuf itself.
#include "emit/serialize_model.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <memory>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include "common/error.h"
#include "emit/output_file.h"

namespace pt2onnx::emit {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::io::CodedOutputStream;

// Protobuf's default 8 KiB blocks would turn a large graph into many small writes.
constexpr int kStreamBlockBytes = 1 << 20;
constexpr uint32_t kWireTypeLengthDelimited = 2;

uint64_t varint_size(uint64_t value) { return CodedOutputStream::VarintSize64(value); }
uint64_t framed_size(int field_number, uint64_t length) {
  return varint_size((static_cast<uint64_t>(field_number) << 3) | kWireTypeLengthDelimited) + varint_size(length) +
         length;
}

// Sequential writes to the file through protobuf's buffered stream, plus holes of known size
// that someone else fills with pwrite/copy_file_range.
class FileCursor {
 public:
  FileCursor(int fd, const std::filesystem::path& shown_path)
      : fd_(fd), shown_path_(shown_path), stream_(fd, kStreamBlockBytes) {}

  void append_message(const Message& message) {
    CodedOutputStream coded(&stream_);
    coded.SetSerializationDeterministic(true);
    message.ByteSizeLong();  // SerializeWithCachedSizes needs fresh cached sizes
    message.SerializeWithCachedSizes(&coded);
    check(!coded.HadError());
  }

  // The tag and length of a length-delimited field whose content follows.
  void append_field_header(int field_number, uint64_t length) {
    CodedOutputStream coded(&stream_);
    coded.WriteTag((static_cast<uint32_t>(field_number) << 3) | kWireTypeLengthDelimited);
    coded.WriteVarint64(length);
    check(!coded.HadError());
  }

  // Leaves `n` bytes for the caller to write at the returned offset.
  uint64_t skip(uint64_t n) {
    flush();
    const off_t offset = ::lseek(fd_, 0, SEEK_CUR);
    if (offset < 0 || ::lseek(fd_, offset + static_cast<off_t>(n), SEEK_SET) < 0)
      fail_output(shown_path_, "cannot write", errno);
    return static_cast<uint64_t>(offset);
  }

  void flush() { check(stream_.Flush()); }

 private:
  void check(bool ok) {
    if (ok) return;
    const int err = stream_.GetErrno();
    fail_output(shown_path_, "cannot write", err != 0 ? err : EIO);
  }

  int fd_;
  const std::filesystem::path& shown_path_;
  google::protobuf::io::FileOutputStream stream_;
};

// Splits `message` around one field: its fields numbered above it (and unknown fields, which
// protobuf writes last) move to upper(), the field itself to middle(), the ones below stay.
// The destructor swaps everything back.
class FieldSplit {
 public:
  FieldSplit(Message& message, int field_number)
      : message_(message), middle_(message.New()), upper_(message.New()) {
    const google::protobuf::Reflection& reflection = *message.GetReflection();
    std::vector<const FieldDescriptor*> fields;
    reflection.ListFields(message, &fields);
    for (const FieldDescriptor* field : fields) {
      if (field->number() > field_number) above_.push_back(field);
      if (field->number() == field_number) at_.push_back(field);
    }
    swap();
  }
  ~FieldSplit() { swap(); }
  FieldSplit(const FieldSplit&) = delete;
  FieldSplit& operator=(const FieldSplit&) = delete;

  const Message& lower() const { return message_; }
  Message& middle() { return *middle_; }
  const Message& upper() const { return *upper_; }

 private:
  void swap() {
    const google::protobuf::Reflection& reflection = *message_.GetReflection();
    reflection.SwapFields(&message_, upper_.get(), above_);
    reflection.MutableUnknownFields(&message_)->Swap(reflection.MutableUnknownFields(upper_.get()));
    reflection.SwapFields(&message_, middle_.get(), at_);
  }

  Message& message_;
  std::unique_ptr<Message> middle_;
  std::unique_ptr<Message> upper_;
  std::vector<const FieldDescriptor*> above_;
  std::vector<const FieldDescriptor*> at_;
};

}  // namespace

void serialize_model(onnx::ModelProto& model, const std::map<int, uint64_t>& payload_bytes, int fd,
                     const std::filesystem::path& shown_path, const PayloadWriter& write_payload) {
  FileCursor cursor(fd, shown_path);
  if (payload_bytes.empty()) {
    if (model.ByteSizeLong() > static_cast<size_t>(INT_MAX))
      fail(ErrorCode::kOutput,
           "cannot write '" + shown_path.string() + "': the model is over protobuf's 2 GiB limit");
    cursor.append_message(model);
    cursor.flush();
    return;
  }

  // Sizes first: the graph's length prefix precedes its content.
  const onnx::GraphProto& graph = model.graph();
  std::map<int, uint64_t> tensor_bytes;  // index -> serialized TensorProto size with its payload
  uint64_t graph_bytes = graph.ByteSizeLong();
  for (const auto& [index, n] : payload_bytes) {
    const uint64_t without = graph.initializer(index).ByteSizeLong();
    const uint64_t with = without + framed_size(onnx::TensorProto::kRawDataFieldNumber, n);
    tensor_bytes[index] = with;
    graph_bytes += framed_size(onnx::GraphProto::kInitializerFieldNumber, with) -
                   framed_size(onnx::GraphProto::kInitializerFieldNumber, without);
  }
  if (graph_bytes > static_cast<uint64_t>(INT_MAX))
    fail(ErrorCode::kOutput, "cannot write '" + shown_path.string() + "': the model's graph is " +
                                 std::to_string(graph_bytes) + " bytes, over protobuf's 2 GiB limit");

  FieldSplit model_split(model, onnx::ModelProto::kGraphFieldNumber);
  cursor.append_message(model_split.lower());
  cursor.append_field_header(onnx::ModelProto::kGraphFieldNumber, graph_bytes);
  onnx::GraphProto& moved_graph = *static_cast<onnx::ModelProto&>(model_split.middle()).mutable_graph();
  {
    FieldSplit graph_split(moved_graph, onnx::GraphProto::kInitializerFieldNumber);
    cursor.append_message(graph_split.lower());
    auto& initializers = *static_cast<onnx::GraphProto&>(graph_split.middle()).mutable_initializer();
    for (int index = 0; index < initializers.size(); ++index) {
      onnx::TensorProto& tensor = initializers[index];
      auto payload = payload_bytes.find(index);
      if (payload == payload_bytes.end()) {
        cursor.append_field_header(onnx::GraphProto::kInitializerFieldNumber, tensor.ByteSizeLong());
        cursor.append_message(tensor);
        continue;
      }
      cursor.append_field_header(onnx::GraphProto::kInitializerFieldNumber, tensor_bytes.at(index));
      FieldSplit tensor_split(tensor, onnx::TensorProto::kRawDataFieldNumber);
      cursor.append_message(tensor_split.lower());
      cursor.append_field_header(onnx::TensorProto::kRawDataFieldNumber, payload->second);
      write_payload(index, cursor.skip(payload->second));
      cursor.append_message(tensor_split.upper());
    }
    cursor.append_message(graph_split.upper());
  }
  cursor.append_message(model_split.upper());
  cursor.flush();
}

}  // namespace pt2onnx::emit
