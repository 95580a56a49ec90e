// TensorProto <-> ConstTensor for the element types shape arithmetic uses.
#include "clean/const_tensor.h"

#include <cstring>

#include "clean/body.h"

namespace pt2onnx::clean {

namespace {

template <typename T>
std::vector<T> raw_values(const std::string& raw, int64_t n) {
  std::vector<T> out(static_cast<size_t>(n));
  if (raw.size() != out.size() * sizeof(T)) return {};
  if (n > 0) std::memcpy(out.data(), raw.data(), raw.size());  // little-endian, as ONNX stores it
  return out;
}

}  // namespace

bool is_integer_type(int32_t t) {
  return t == onnx::TensorProto_DataType_INT64 || t == onnx::TensorProto_DataType_INT32 ||
         t == onnx::TensorProto_DataType_BOOL;
}

bool is_float_type(int32_t t) {
  return t == onnx::TensorProto_DataType_FLOAT || t == onnx::TensorProto_DataType_DOUBLE;
}

bool ConstTensor::is_integer() const { return is_integer_type(elem_type); }

int64_t ConstTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::optional<ConstTensor> read_const(const onnx::TensorProto& tensor) {
  ConstTensor c;
  c.elem_type = tensor.data_type();
  if (!is_integer_type(c.elem_type) && !is_float_type(c.elem_type)) return std::nullopt;
  if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) return std::nullopt;
  int64_t n = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0 || d > kMaxFoldElements) return std::nullopt;
    c.dims.push_back(d);
    n *= d;
    if (n > kMaxFoldElements) return std::nullopt;
  }
  const bool raw = tensor.has_raw_data();
  switch (c.elem_type) {
    case onnx::TensorProto_DataType_INT64:
      if (raw) c.ints = raw_values<int64_t>(tensor.raw_data(), n);
      else c.ints.assign(tensor.int64_data().begin(), tensor.int64_data().end());
      break;
    case onnx::TensorProto_DataType_INT32:
      if (raw) {
        for (int32_t v : raw_values<int32_t>(tensor.raw_data(), n)) c.ints.push_back(v);
      } else {
        c.ints.assign(tensor.int32_data().begin(), tensor.int32_data().end());
      }
      break;
    case onnx::TensorProto_DataType_BOOL:
      if (raw) {
        for (uint8_t v : raw_values<uint8_t>(tensor.raw_data(), n)) c.ints.push_back(v != 0);
      } else {
        for (int32_t v : tensor.int32_data()) c.ints.push_back(v != 0);
      }
      break;
    case onnx::TensorProto_DataType_FLOAT:
      if (raw) {
        for (float v : raw_values<float>(tensor.raw_data(), n)) c.floats.push_back(v);
      } else {
        c.floats.assign(tensor.float_data().begin(), tensor.float_data().end());
      }
      break;
    default:  // DOUBLE
      if (raw) c.floats = raw_values<double>(tensor.raw_data(), n);
      else c.floats.assign(tensor.double_data().begin(), tensor.double_data().end());
  }
  const size_t have = c.is_integer() ? c.ints.size() : c.floats.size();
  if (have != static_cast<size_t>(n)) return std::nullopt;
  return c;
}

std::optional<ConstTensor> constant_node_value(const onnx::NodeProto& node) {
  if (node.op_type() != "Constant" || !node.domain().empty() || node.attribute_size() != 1) return std::nullopt;
  const onnx::AttributeProto& a = node.attribute(0);
  ConstTensor c;
  if (a.name() == "value") return read_const(a.t());
  if (a.name() == "value_int") {
    c.elem_type = onnx::TensorProto_DataType_INT64;
    c.ints = {a.i()};
    return c;
  }
  if (a.name() == "value_ints") {
    c.elem_type = onnx::TensorProto_DataType_INT64;
    c.ints.assign(a.ints().begin(), a.ints().end());
    c.dims = {static_cast<int64_t>(c.ints.size())};
    return c;
  }
  if (a.name() == "value_float") {
    c.elem_type = onnx::TensorProto_DataType_FLOAT;
    c.floats = {a.f()};
    return c;
  }
  if (a.name() == "value_floats") {
    c.elem_type = onnx::TensorProto_DataType_FLOAT;
    c.floats.assign(a.floats().begin(), a.floats().end());
    c.dims = {static_cast<int64_t>(c.floats.size())};
    return c;
  }
  return std::nullopt;
}

onnx::TensorProto to_tensor_proto(const ConstTensor& value) {
  onnx::TensorProto t;
  t.set_data_type(value.elem_type);
  for (int64_t d : value.dims) t.add_dims(d);
  std::string& raw = *t.mutable_raw_data();
  auto put = [&raw](const auto& v) {
    const size_t at = raw.size();
    raw.resize(at + sizeof(v));
    std::memcpy(raw.data() + at, &v, sizeof(v));
  };
  switch (value.elem_type) {
    case onnx::TensorProto_DataType_INT64:
      for (int64_t v : value.ints) put(v);
      break;
    case onnx::TensorProto_DataType_INT32:
      for (int64_t v : value.ints) put(static_cast<int32_t>(v));
      break;
    case onnx::TensorProto_DataType_BOOL:
      for (int64_t v : value.ints) put(static_cast<uint8_t>(v != 0));
      break;
    case onnx::TensorProto_DataType_FLOAT:
      for (double v : value.floats) put(static_cast<float>(v));
      break;
    default:
      for (double v : value.floats) put(v);
  }
  return t;
}

std::optional<std::vector<int64_t>> reshape_target(const std::vector<int64_t>& dims, const ConstTensor& shape,
                                                   bool allow_zero) {
  if (!shape.is_integer() || shape.dims.size() != 1) return std::nullopt;
  int64_t numel = 1;
  for (int64_t d : dims) numel *= d;
  std::vector<int64_t> out;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.ints.size(); ++i) {
    int64_t d = shape.ints[i];
    if (d == 0 && !allow_zero) {
      if (i >= dims.size()) return std::nullopt;
      d = dims[i];
    }
    if (d == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(i);
    } else if (d < 0) {
      return std::nullopt;
    } else {
      known *= d;
    }
    out.push_back(d);
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) return std::nullopt;
    out[static_cast<size_t>(infer)] = numel / known;
  }
  return out;
}

}  // namespace pt2onnx::clean
