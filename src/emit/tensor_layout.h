// Where a tensor's elements lie inside its storage, checked against the storage's size, and a
// chunked gather that yields them in row-major order without holding the whole tensor. Emit does
// this arithmetic itself (rather than TensorData's helpers) because it needs the byte span and
// the contiguous runs, and must reject layouts that would overflow or read past the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "archive/archive.h"

namespace pt2onnx::emit {

struct TensorLayout {
  int64_t element_size = 0;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // in elements; row-major when the archive gave none
  int64_t storage_offset = 0;    // in elements
  uint64_t numel = 0;
  uint64_t nbytes = 0;           // numel * element_size: the bytes the tensor is made of
  bool contiguous = false;       // dense row-major from storage_offset (size-1 dims ignored)
  uint64_t span_begin = 0;       // byte range of the storage the view touches; empty if numel 0
  uint64_t span_end = 0;
};

// Checks the view (non-negative sizes, strides and offset, no overflow, within storage.size())
// and computes its layout. `what` names the tensor in messages, e.g. "weight 'fc.weight'".
// Throws Error(kArchive) naming `what` and the storage's archive entry.
TensorLayout make_layout(const archive::TensorData& tensor, const std::string& what);
// The same, with the name made only for a message (a 100k-weight model binds every weight).
TensorLayout make_layout(const archive::TensorData& tensor, const std::function<std::string()>& what);

// "[2,3]", for messages.
std::string format_dims(const std::vector<int64_t>& dims);

// "archive entry 'x/data/weights/weight_0'" or "its storage" when the storage has no name.
std::string describe_storage(const archive::Storage& storage);

// Receives consecutive pieces of a tensor's row-major bytes.
using ChunkSink = std::function<void(const uint8_t* data, size_t n)>;

// Reads the tensor's bytes in row-major order and hands them to `sink` in pieces of at most
// `chunk_bytes` (the last may be shorter; nothing for an empty tensor). Contiguous views are
// read straight through; strided views are read as runs of contiguous elements, or, when the
// span they touch is small enough, by reading the span once and gathering in memory.
void gather_tensor(const TensorLayout& layout, const archive::Storage& storage, size_t chunk_bytes,
                   const ChunkSink& sink);

}  // namespace pt2onnx::emit
