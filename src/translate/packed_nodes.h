// ONNX nodes held serialized while the IR they come from is still alive. A NodeProto in memory is
// the message plus a heap string for its name, op type, doc string and every input and output,
// several times its serialized size, and in a large program the IR and the ONNX graph are alive
// together at the end of translation. The driver packs the nodes of the FX
// nodes it has finished and convert() unpacks them once the IR is released.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace pt2onnx::translate {

class PackedNodes {
 public:
  using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;

  // Appends `nodes` in order and clears them (the cleared messages stay in `nodes` for reuse);
  // their names and doc strings may be cleared on the way (they come back when decoded).
  void pack(Nodes& nodes);
  // Counts `nodes` as packed and clears them, keeping nothing: for a translation whose graph no
  // one reads (inspect's, which wants its refusals). visit and unpack_before skip them.
  void drop(Nodes& nodes);
  int size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Calls fn with each packed node in order, decoded into one scratch message.
  void visit(const std::function<void(const onnx::NodeProto&)>& fn) const;
  // Puts the packed nodes in front of `nodes`' own, in order, and empties this. Each block of the
  // buffer is freed once its nodes are decoded.
  void unpack_before(Nodes& nodes);

 private:
  // Each node: a byte of what was left out (below), its length, its message. A new block past
  // kBlockBytes, so the buffer never doubles (and copies) one large string.
  static constexpr size_t kBlockBytes = size_t{1} << 20;
  // What the driver repeats is left out of the message and put back when it is decoded: the
  // name "node_<first output>" (append_node's), and a doc string equal to the previous packed
  // node's (the ONNX nodes of one FX node share its module's). A fifth of the bytes at 150,000
  // nodes.
  enum Omitted : uint8_t { kNameOfOutput = 1, kPreviousDoc = 2 };
  class Decoder;
  std::vector<std::string> blocks_;
  int count_ = 0;
  std::optional<std::string> last_doc_;  // doc string of the last node packed (unset: none)
};

}  // namespace pt2onnx::translate
