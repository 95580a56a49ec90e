// Deterministic serialization of a ModelProto straight into a file, with the raw bytes of
// chosen initializers streamed in from elsewhere instead of held in the message.
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

// Streams `model` into `fd`, deterministically (the same input gives the same bytes) and without
// building the serialized model in memory. Each initializer listed in `payload_bytes` (index ->
// size; its raw_data must be unset) is written as if its raw_data held that many bytes, which
// `write_payload` puts straight into the file; the result equals the deterministic
// serialization of the model with those raw_data filled. `model` is rearranged during the call
// and restored before return, also on error. Throws Error(kOutput) naming `shown_path` on a
// write error, or when the graph is over protobuf's 2 GiB limit.
// model.ByteSizeLong(), with the graph's nodes sized on two threads (a large graph is mostly
// nodes). `model` is rearranged during the call and restored before return.
uint64_t model_byte_size(onnx::ModelProto& model);

void serialize_model(onnx::ModelProto& model, const std::map<int, uint64_t>& payload_bytes, int fd,
                     const std::filesystem::path& shown_path, const PayloadWriter& write_payload);

}  // namespace pt2onnx::emit
