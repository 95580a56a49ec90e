#include "translate/packed_nodes.h"

#include <google/protobuf/io/coded_stream.h>

#include "common/error.h"

namespace pt2onnx::translate {

namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

// Calls fn(bytes, size) for each message of a block.
template <typename Fn>
void for_each_message(const std::string& block, Fn&& fn) {
  const auto* p = reinterpret_cast<const uint8_t*>(block.data());
  const uint8_t* end = p + block.size();
  while (p < end) {
    uint32_t size = 0;
    CodedInputStream in(p, static_cast<int>(end - p));
    PT2ONNX_CHECK(in.ReadVarint32(&size), ErrorCode::kInternal, "a packed ONNX node has no length");
    p += in.CurrentPosition();
    PT2ONNX_CHECK(size <= static_cast<size_t>(end - p), ErrorCode::kInternal, "a packed ONNX node is cut short");
    fn(p, static_cast<int>(size));
    p += size;
  }
}

void decode(onnx::NodeProto& node, const uint8_t* bytes, int size) {
  PT2ONNX_CHECK(node.ParseFromArray(bytes, size), ErrorCode::kInternal, "a packed ONNX node does not decode");
}

}  // namespace

void PackedNodes::pack(Nodes& nodes) {
  for (const onnx::NodeProto& node : nodes) {
    const size_t size = node.ByteSizeLong();
    PT2ONNX_CHECK(size <= INT32_MAX, ErrorCode::kUnsupported, "an ONNX node of " + std::to_string(size) + " bytes");
    const size_t needed = CodedOutputStream::VarintSize32(static_cast<uint32_t>(size)) + size;
    if (blocks_.empty() || blocks_.back().size() + needed > std::max(kBlockBytes, needed)) {
      blocks_.emplace_back();
      blocks_.back().reserve(std::max(kBlockBytes, needed));
    }
    std::string& block = blocks_.back();
    const size_t at = block.size();
    block.resize(at + needed);
    auto* p = reinterpret_cast<uint8_t*>(block.data() + at);
    p = CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(size), p);
    node.SerializeWithCachedSizesToArray(p);
  }
  count_ += nodes.size();
  nodes.Clear();
}

void PackedNodes::visit(const std::function<void(const onnx::NodeProto&)>& fn) const {
  onnx::NodeProto scratch;
  for (const std::string& block : blocks_)
    for_each_message(block, [&](const uint8_t* bytes, int size) {
      decode(scratch, bytes, size);
      fn(scratch);
    });
}

void PackedNodes::unpack_before(Nodes& nodes) {
  if (count_ == 0) return;
  Nodes all;
  all.Reserve(count_ + nodes.size());
  for (std::string& block : blocks_) {
    for_each_message(block, [&](const uint8_t* bytes, int size) { decode(*all.Add(), bytes, size); });
    std::string().swap(block);
  }
  // The nodes added after the last pack (the graph's outputs) follow, moved, not copied.
  std::vector<onnx::NodeProto*> tail(static_cast<size_t>(nodes.size()));
  nodes.ExtractSubrange(0, nodes.size(), tail.data());
  for (onnx::NodeProto* node : tail) all.AddAllocated(node);
  nodes.Swap(&all);
  blocks_.clear();
  count_ = 0;
}

}  // namespace pt2onnx::translate
