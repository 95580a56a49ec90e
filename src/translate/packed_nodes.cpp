#include "translate/packed_nodes.h"

#include <google/protobuf/io/coded_stream.h>

#include "common/error.h"
#include "translate/node_name.h"

namespace pt2onnx::translate {

namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

bool has_output_name(const onnx::NodeProto& node) {
  return node.has_name() && node.output_size() > 0 && is_node_name_for(node.name(), node.output(0));
}

}  // namespace

// Decodes the nodes of the blocks in order, putting back what pack() left out.
class PackedNodes::Decoder {
 public:
  // Calls fn(node) for each node of `block`, decoded into a message that next(block) provides.
  template <typename Next, typename Fn>
  void block(const std::string& block, Next&& next, Fn&& fn) {
    const auto* p = reinterpret_cast<const uint8_t*>(block.data());
    const uint8_t* end = p + block.size();
    while (p < end) {
      const uint8_t omitted = *p++;
      uint32_t size = 0;
      CodedInputStream in(p, static_cast<int>(end - p));
      PT2ONNX_CHECK(in.ReadVarint32(&size), ErrorCode::kInternal, "a packed ONNX node has no length");
      p += in.CurrentPosition();
      PT2ONNX_CHECK(size <= static_cast<size_t>(end - p), ErrorCode::kInternal, "a packed ONNX node is cut short");
      onnx::NodeProto& node = next();
      PT2ONNX_CHECK(node.ParseFromArray(p, static_cast<int>(size)), ErrorCode::kInternal,
                    "a packed ONNX node does not decode");
      p += size;
      if (omitted & kNameOfOutput) node.set_name(node_name_for(node.output(0)));
      if (omitted & kPreviousDoc) node.set_doc_string(last_doc_);
      else if (node.has_doc_string()) last_doc_ = node.doc_string();
      fn(node);
    }
  }

 private:
  std::string last_doc_;
};

void PackedNodes::pack(Nodes& nodes) {
  for (onnx::NodeProto& node : nodes) {
    uint8_t omitted = 0;
    if (has_output_name(node)) {
      omitted |= kNameOfOutput;
      node.clear_name();
    }
    if (node.has_doc_string()) {
      if (last_doc_ && *last_doc_ == node.doc_string()) {
        omitted |= kPreviousDoc;
        node.clear_doc_string();
      } else {
        last_doc_ = node.doc_string();
      }
    }
    const size_t size = node.ByteSizeLong();
    PT2ONNX_CHECK(size <= INT32_MAX, ErrorCode::kUnsupported, "an ONNX node of " + std::to_string(size) + " bytes");
    const size_t needed = 1 + CodedOutputStream::VarintSize32(static_cast<uint32_t>(size)) + size;
    if (blocks_.empty() || blocks_.back().size() + needed > std::max(kBlockBytes, needed)) {
      blocks_.emplace_back();
      blocks_.back().reserve(std::max(kBlockBytes, needed));
    }
    std::string& block = blocks_.back();
    const size_t at = block.size();
    block.resize(at + needed);
    auto* p = reinterpret_cast<uint8_t*>(block.data() + at);
    *p++ = omitted;
    p = CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(size), p);
    node.SerializeWithCachedSizesToArray(p);
  }
  count_ += nodes.size();
  nodes.Clear();
}

void PackedNodes::drop(Nodes& nodes) {
  count_ += nodes.size();
  nodes.Clear();
}

void PackedNodes::visit(const std::function<void(const onnx::NodeProto&)>& fn) const {
  onnx::NodeProto scratch;
  Decoder decoder;
  for (const std::string& block : blocks_)
    decoder.block(block, [&]() -> onnx::NodeProto& { return scratch; }, fn);
}

void PackedNodes::unpack_before(Nodes& nodes) {
  if (count_ == 0) return;
  Nodes all;
  all.Reserve(count_ + nodes.size());
  Decoder decoder;
  for (std::string& block : blocks_) {
    decoder.block(block, [&]() -> onnx::NodeProto& { return *all.Add(); }, [](const onnx::NodeProto&) {});
    std::string().swap(block);
  }
  // The nodes added after the last pack (the graph's outputs) follow, moved, not copied.
  std::vector<onnx::NodeProto*> tail(static_cast<size_t>(nodes.size()));
  nodes.ExtractSubrange(0, nodes.size(), tail.data());
  for (onnx::NodeProto* node : tail) all.AddAllocated(node);
  nodes.Swap(&all);
  blocks_.clear();
  count_ = 0;
  last_doc_.reset();
}

}  // namespace pt2onnx::translate
