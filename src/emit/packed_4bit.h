// 4-bit weights packed two per byte. ONNX's INT4/UINT4 tensors (opset 21+) pack the whole
// tensor as one run: element 2i in the low nibble of byte i, element 2i + 1 in its high nibble, a
// last odd element padded with a zero nibble. onnxruntime's com.microsoft.MatMulNBits packs each
// row (of K weights, or of a row's zero points) the same way, padded to whole bytes per row, and
// takes unsigned values: signed ones are offset by 8 (its default zero point).
//
// The source is the int8/uint8 tensor of the archive that torch's 4-bit flows (torchao int4
// weight-only, dequantize_per_channel_group with a -8..7 range) keep their values in; the packed
// bytes are computed from it on each read, a block at a time, so a weight is never held whole in
// memory, and the source's reads check its CRC as any weight's do. A value outside the 4-bit
// range stops the write naming the weight: packing it would change the model.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "archive/archive.h"
#include "ir/onnx_dtype.h"

namespace pt2onnx::emit {

struct FourBitPacking {
  bool is_signed = true;            // int4 (-8..7, int8 source) or uint4 (0..15, uint8 source)
  bool offset_to_unsigned = false;  // store v + 8 (signed values as MatMulNBits reads them)
  int64_t row = 0;                  // elements packed per row, each row padded to whole bytes; 0: one row
  std::vector<int64_t> dims;        // dims of the packed uint8 tensor; empty: [bytes]
};

// The packed tensor of `source` (int8 for signed, uint8 for unsigned; contiguous) as a uint8
// tensor, or nullopt when `source` cannot be packed so (another dtype, a strided view, no
// storage, a row that does not divide it, dims of another byte count).
std::optional<archive::TensorData> packed_4bit(const archive::TensorData& source, const FourBitPacking& how);

// Whether `tensor` is what packed_4bit() makes (one row, no offset) for an initializer declared
// with `data_type` (INT4/UINT4) and `dims`: the check emit makes instead of comparing dtype and dims.
bool is_packed_4bit_of(const archive::TensorData& tensor, int32_t data_type, const std::vector<int64_t>& dims);

}  // namespace pt2onnx::emit
