// Deterministic serialization of a ModelProto straight into a file, with the raw bytes of
// chosen initializers supplied while it is written instead of held in the message.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>

#include <onnx/onnx_pb.h>

namespace pt2onnx::emit {

// Writes exactly the announced number of payload bytes of initializer `index` (its position in
// graph().initializer()) at byte `offset` of the file being written.
using PayloadWriter = std::function<void(int index, uint64_t offset)>;

// Writes exactly the announced number of raw bytes of initializer `index` to `dst`.
using RawDataFiller = std::function<void(int index, uint8_t* dst)>;

// The initializers whose raw_data serialize_model obtains while it writes them, by index in
// graph().initializer() -> bytes (an index in one of the two maps only); raw_data must be unset
// in each. Streamed ones go straight into the file (write_payload): large tensors, never in
// memory. Filled ones are put in raw_data (fill) just before their initializer is serialized and
// taken out right after: small tensors, for which a write of their own would cost more than
// their bytes, one in memory at a time.
struct DeferredRawData {
  std::map<int, uint64_t> streamed;
  PayloadWriter write_payload;
  std::map<int, uint64_t> filled;
  RawDataFiller fill;
};

// model.ByteSizeLong(), with the graph's nodes sized on two threads (a large graph is mostly
// nodes). `model` is rearranged during the call and restored before return.
uint64_t model_byte_size(onnx::ModelProto& model);

// Streams `model` into `fd`, deterministically (the same input gives the same bytes) and without
// building the serialized model in memory. The result equals the deterministic serialization of
// the model with the raw_data of every `deferred` initializer filled. `model` is rearranged
// during the call and restored before return, also on error (deferred raw_data unset again).
// Throws Error(kOutput) naming `shown_path` on a write error, or when the graph is over
// protobuf's 2 GiB limit; errors of the callbacks pass through.
void serialize_model(onnx::ModelProto& model, const DeferredRawData& deferred, int fd,
                     const std::filesystem::path& shown_path);

}  // namespace pt2onnx::emit
