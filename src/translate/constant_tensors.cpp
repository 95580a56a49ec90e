// Filling TensorProtos: typed fields for the common types, little-endian raw_data otherwise.
#include "translate/constant_tensors.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "common/error.h"
#include "translate/onnx_types.h"

namespace pt2onnx::translate {

namespace {
template <typename T>
void append_raw(std::string& raw, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // x86/ARM little-endian, as ONNX raw_data wants
  raw.append(bytes, sizeof(T));
}

// Saturating double -> int64 (aten passes INT64_MAX through Python floats in places).
int64_t to_int64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}
}  // namespace

uint16_t float_to_half_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: inf
  if (abs < 0x38800000u) {  // subnormal half (or zero)
    const float magnitude = std::bit_cast<float>(abs);
    const auto scaled = static_cast<uint32_t>(std::nearbyint(magnitude * 16777216.0f));  // 2^24
    return static_cast<uint16_t>(sign | scaled);
  }
  const uint32_t rounded = abs + 0x0fffu + ((abs >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

onnx::TensorProto filled_tensor(double v, ir::DType dtype, const std::vector<int64_t>& dims) {
  using ir::DType;
  onnx::TensorProto t;
  t.set_data_type(onnx_dtype(dtype));
  for (int64_t d : dims) t.add_dims(d);
  const int64_t n = element_count(dims);
  std::string raw;
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype) {
      case DType::kFloat32: t.add_float_data(static_cast<float>(v)); break;
      case DType::kFloat64: t.add_double_data(v); break;
      case DType::kInt64: t.add_int64_data(to_int64(v)); break;
      case DType::kInt32: t.add_int32_data(static_cast<int32_t>(to_int64(v))); break;
      case DType::kBool: t.add_int32_data(v != 0 ? 1 : 0); break;
      case DType::kFloat16: append_raw(raw, float_to_half_bits(static_cast<float>(v))); break;
      case DType::kBFloat16: append_raw(raw, float_to_bfloat16_bits(static_cast<float>(v))); break;
      case DType::kInt8: append_raw(raw, static_cast<int8_t>(to_int64(v))); break;
      case DType::kUInt8: append_raw(raw, static_cast<uint8_t>(to_int64(v))); break;
      case DType::kInt16: append_raw(raw, static_cast<int16_t>(to_int64(v))); break;
      case DType::kUInt16: append_raw(raw, static_cast<uint16_t>(to_int64(v))); break;
      case DType::kUInt32: append_raw(raw, static_cast<uint32_t>(to_int64(v))); break;
      case DType::kUInt64: append_raw(raw, static_cast<uint64_t>(to_int64(v))); break;
      default:
        // onnx_dtype above accepted it (float8, complex): no constant of these is ever needed.
        throw Error(ErrorCode::kUnsupported, "cannot make a constant of element type " + std::string(ir::dtype_name(dtype)));
    }
  }
  if (!raw.empty()) t.set_raw_data(raw);
  return t;
}

onnx::TensorProto int64_tensor(const std::vector<int64_t>& v, bool scalar) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_INT64);
  if (!(scalar && v.size() == 1)) t.add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t.add_int64_data(x);
  return t;
}

}  // namespace pt2onnx::translate
