// 4-bit weights packed two per byte, as ONNX stores INT4/UINT4 tensors (opset 21+): element 2i
// in the low nibble of byte i, element 2i + 1 in its high nibble, a last odd element padded with
// a zero nibble. The source is the int8/uint8 tensor of the archive that torch's 4-bit flows
// (torchao int4 weight-only, dequantize_per_channel_group with a -8..7 range) keep their values
// in; the packed bytes are computed from it on each read, a block at a time, so a weight is never
// held whole in memory, and the source's reads check its CRC as any weight's do. A value outside
// the 4-bit range stops the write naming the weight: packing it would change the model.
#pragma once

#include <cstdint>
#include <optional>

#include "archive/archive.h"
#include "translate/onnx_types.h"

namespace pt2onnx::emit {

// The packed tensor of `source` (int8 for INT4, uint8 for UINT4; contiguous) as a uint8 tensor of
// ceil(numel / 2) bytes, or nullopt when `source` cannot be packed (another dtype, a strided
// view, no storage).
std::optional<archive::TensorData> packed_4bit(const archive::TensorData& source, bool is_signed);

// Whether `tensor` is what packed_4bit() makes for an initializer declared with `data_type`
// (INT4/UINT4) and `dims`: the check emit makes instead of comparing dtype and dims.
bool is_packed_4bit_of(const archive::TensorData& tensor, int32_t data_type, const std::vector<int64_t>& dims);

}  // namespace pt2onnx::emit
