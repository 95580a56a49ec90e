// ModelProto -> file, deterministic and streamed. Protobuf writes a message's fields in
// field-number order, so a message whose field F must be produced piecemeal is written as: the
// fields below F, F framed by hand (tag, length, content), then the fields above F. Each piece
// is made by swapping fields out of the message (no copies) and serialized by protobuf itself.
// The graph's nodes (field 1, most of a large model) are framed by hand too: their sizes are
// computed once, and they are serialized on two threads into ordered buffers. A filled
// initializer borrows one reused string as its raw_data while protobuf writes it.
#include "emit/serialize_model.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "common/error.h"
#include "common/side_task.h"
#include "emit/output_file.h"

namespace pt2onnx::emit {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::io::CodedOutputStream;

// Protobuf's default 8 KiB blocks would turn a large graph into many small writes.
constexpr int kStreamBlockBytes = 1 << 20;
constexpr uint32_t kWireTypeLengthDelimited = 2;
// Below this many nodes a second thread costs more than it saves; nodes are serialized in
// batches of twice this, half on each thread (a batch of 1-byte-op nodes is a few MB at most).
constexpr int kParallelNodes = 4096;

using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;

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

  // `message` as a length-delimited field, sized once.
  void append_field(int field_number, const Message& message) {
    CodedOutputStream coded(&stream_);
    coded.SetSerializationDeterministic(true);
    coded.WriteTag((static_cast<uint32_t>(field_number) << 3) | kWireTypeLengthDelimited);
    coded.WriteVarint64(message.ByteSizeLong());
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

  void append_bytes(const std::string& bytes) {
    CodedOutputStream coded(&stream_);
    coded.WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
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
  Message& upper() { return *upper_; }

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

// A filled initializer's bytes, moved into its raw_data for as long as the initializer is being
// written and back out after, also on error: the string is reused for the next one (one small
// allocation for all of them), and the tensor is left without raw_data, as it came.
class LentRawData {
 public:
  LentRawData(onnx::TensorProto& tensor, std::unique_ptr<std::string>& bytes) : tensor_(tensor), bytes_(bytes) {
    tensor_.set_allocated_raw_data(bytes_.release());
  }
  ~LentRawData() { bytes_.reset(tensor_.release_raw_data()); }
  LentRawData(const LentRawData&) = delete;
  LentRawData& operator=(const LentRawData&) = delete;

 private:
  onnx::TensorProto& tensor_;
  std::unique_ptr<std::string>& bytes_;
};

// Runs fn(begin, end) over [0, n): the upper half beside when n is large (on this thread when no
// second one can be started; an error of either half is rethrown here, the lower half's first).
template <typename Fn>
void split_in_two(int begin, int end, Fn&& fn) {
  if (end - begin < kParallelNodes) {
    fn(begin, end);
    return;
  }
  const int middle = begin + (end - begin) / 2;
  SideTask<bool> upper([&] {
    fn(middle, end);
    return true;
  });
  fn(begin, middle);
  upper.get();
}

// Each node's serialized size, cached in the node for SerializeWithCachedSizes; returns the
// bytes of all of them framed as graph field 1.
uint64_t size_nodes(const Nodes& nodes) {
  uint64_t halves[2] = {0, 0};
  split_in_two(0, nodes.size(), [&](int begin, int end) {
    uint64_t sum = 0;
    for (int i = begin; i < end; ++i) sum += framed_size(onnx::GraphProto::kNodeFieldNumber, nodes[i].ByteSizeLong());
    halves[begin == 0 ? 0 : 1] = sum;
  });
  return halves[0] + halves[1];
}

// Nodes [begin, end) framed as graph field 1, with the sizes size_nodes() cached.
void serialize_nodes(const Nodes& nodes, int begin, int end, std::string& out) {
  google::protobuf::io::StringOutputStream stream(&out);
  CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  for (int i = begin; i < end; ++i) {
    coded.WriteTag((static_cast<uint32_t>(onnx::GraphProto::kNodeFieldNumber) << 3) | kWireTypeLengthDelimited);
    coded.WriteVarint64(static_cast<uint64_t>(nodes[i].GetCachedSize()));
    nodes[i].SerializeWithCachedSizes(&coded);
  }
}

void append_nodes(FileCursor& cursor, const Nodes& nodes) {
  for (int begin = 0; begin < nodes.size(); begin += 2 * kParallelNodes) {
    const int end = std::min(nodes.size(), begin + 2 * kParallelNodes);
    std::string halves[2];
    split_in_two(begin, end, [&](int from, int to) { serialize_nodes(nodes, from, to, halves[from == begin ? 0 : 1]); });
    cursor.append_bytes(halves[0]);
    cursor.append_bytes(halves[1]);
  }
}

}  // namespace

uint64_t model_byte_size(onnx::ModelProto& model) {
  if (!model.has_graph()) return model.ByteSizeLong();
  FieldSplit model_split(model, onnx::ModelProto::kGraphFieldNumber);
  onnx::GraphProto& graph = *static_cast<onnx::ModelProto&>(model_split.middle()).mutable_graph();
  FieldSplit node_split(graph, onnx::GraphProto::kNodeFieldNumber);
  const uint64_t graph_bytes =
      size_nodes(static_cast<onnx::GraphProto&>(node_split.middle()).node()) + node_split.upper().ByteSizeLong();
  return model_split.lower().ByteSizeLong() + framed_size(onnx::ModelProto::kGraphFieldNumber, graph_bytes) +
         model_split.upper().ByteSizeLong();
}

void serialize_model(onnx::ModelProto& model, const DeferredRawData& deferred, int fd,
                     const std::filesystem::path& shown_path) {
  FileCursor cursor(fd, shown_path);
  if (!model.has_graph()) {
    if (model.ByteSizeLong() > static_cast<size_t>(INT_MAX))
      fail(ErrorCode::kOutput,
           "cannot write '" + shown_path.string() + "': the model is over protobuf's 2 GiB limit");
    cursor.append_message(model);
    cursor.flush();
    return;
  }

  // Pieces: the model's fields below the graph, the graph's nodes, its fields up to the
  // initializers, each initializer (raw_data streamed or filled where asked), the graph's and
  // the model's fields above. Sizes first: the graph's length prefix precedes its content.
  FieldSplit model_split(model, onnx::ModelProto::kGraphFieldNumber);
  onnx::GraphProto& graph = *static_cast<onnx::ModelProto&>(model_split.middle()).mutable_graph();
  FieldSplit node_split(graph, onnx::GraphProto::kNodeFieldNumber);
  const Nodes& nodes = static_cast<onnx::GraphProto&>(node_split.middle()).node();
  onnx::GraphProto& rest = static_cast<onnx::GraphProto&>(node_split.upper());
  uint64_t graph_bytes = size_nodes(nodes) + rest.ByteSizeLong();
  // The initializer's serialized size with its raw_data of n bytes; adds the growth to the graph's.
  auto grow = [&](int index, uint64_t n) {
    const uint64_t without = rest.initializer(index).ByteSizeLong();
    const uint64_t with = without + framed_size(onnx::TensorProto::kRawDataFieldNumber, n);
    graph_bytes += framed_size(onnx::GraphProto::kInitializerFieldNumber, with) -
                   framed_size(onnx::GraphProto::kInitializerFieldNumber, without);
    return with;
  };
  std::map<int, uint64_t> streamed_tensor_bytes;  // index -> serialized TensorProto size with its payload
  for (const auto& [index, n] : deferred.streamed) streamed_tensor_bytes[index] = grow(index, n);
  for (const auto& [index, n] : deferred.filled) grow(index, n);
  if (deferred.streamed.empty()) {
    const uint64_t model_bytes = model_split.lower().ByteSizeLong() +
                                 framed_size(onnx::ModelProto::kGraphFieldNumber, graph_bytes) +
                                 model_split.upper().ByteSizeLong();
    if (model_bytes > static_cast<uint64_t>(INT_MAX))
      fail(ErrorCode::kOutput,
           "cannot write '" + shown_path.string() + "': the model is over protobuf's 2 GiB limit");
  }
  if (graph_bytes > static_cast<uint64_t>(INT_MAX))
    fail(ErrorCode::kOutput, "cannot write '" + shown_path.string() + "': the model's graph is " +
                                 std::to_string(graph_bytes) + " bytes, over protobuf's 2 GiB limit");

  cursor.append_message(model_split.lower());
  cursor.append_field_header(onnx::ModelProto::kGraphFieldNumber, graph_bytes);
  append_nodes(cursor, nodes);
  {
    FieldSplit graph_split(rest, onnx::GraphProto::kInitializerFieldNumber);
    cursor.append_message(graph_split.lower());
    auto& initializers = *static_cast<onnx::GraphProto&>(graph_split.middle()).mutable_initializer();
    // Both maps are walked alongside the initializers, in index order.
    auto next_streamed = deferred.streamed.begin();
    auto next_filled = deferred.filled.begin();
    auto filled_bytes = std::make_unique<std::string>();
    for (int index = 0; index < initializers.size(); ++index) {
      onnx::TensorProto& tensor = initializers[index];
      if (next_filled != deferred.filled.end() && next_filled->first == index) {
        filled_bytes->resize(next_filled->second);
        ++next_filled;
        deferred.fill(index, reinterpret_cast<uint8_t*>(filled_bytes->data()));
        LentRawData lent(tensor, filled_bytes);
        cursor.append_field(onnx::GraphProto::kInitializerFieldNumber, tensor);
        continue;
      }
      if (next_streamed == deferred.streamed.end() || next_streamed->first != index) {
        cursor.append_field(onnx::GraphProto::kInitializerFieldNumber, tensor);
        continue;
      }
      const uint64_t payload = next_streamed->second;
      ++next_streamed;
      cursor.append_field_header(onnx::GraphProto::kInitializerFieldNumber, streamed_tensor_bytes.at(index));
      FieldSplit tensor_split(tensor, onnx::TensorProto::kRawDataFieldNumber);
      cursor.append_message(tensor_split.lower());
      cursor.append_field_header(onnx::TensorProto::kRawDataFieldNumber, payload);
      deferred.write_payload(index, cursor.skip(payload));
      cursor.append_message(tensor_split.upper());
    }
    cursor.append_message(graph_split.upper());
  }
  cursor.append_message(model_split.upper());
  cursor.flush();
}

}  // namespace pt2onnx::emit
