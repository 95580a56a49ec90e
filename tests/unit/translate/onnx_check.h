// Runs libonnx's checker and strict shape inference on a translation (a copy whose weight
// declarations get zero data, as the writer would give them real data).
#pragma once

#include <string>

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

namespace pt2onnx::translate::testing {

inline int64_t element_bytes(int32_t data_type) {
  switch (data_type) {
    case onnx::TensorProto_DataType_DOUBLE: case onnx::TensorProto_DataType_INT64: case onnx::TensorProto_DataType_UINT64: return 8;
    case onnx::TensorProto_DataType_FLOAT16: case onnx::TensorProto_DataType_BFLOAT16: case onnx::TensorProto_DataType_INT16:
    case onnx::TensorProto_DataType_UINT16: return 2;
    case onnx::TensorProto_DataType_INT8: case onnx::TensorProto_DataType_UINT8: case onnx::TensorProto_DataType_BOOL: return 1;
    default: return 4;
  }
}

// Returns the model after shape inference (value_info filled in); throws on any checker error.
inline onnx::ModelProto check_and_infer(const onnx::ModelProto& model) {
  onnx::ModelProto copy = model;
  for (auto& init : *copy.mutable_graph()->mutable_initializer()) {
    int64_t n = 1;
    for (int64_t d : init.dims()) n *= d;
    init.set_raw_data(std::string(static_cast<size_t>(n * element_bytes(init.data_type())), '\0'));
  }
  onnx::checker::check_model(copy);
  onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), onnx::ShapeInferenceOptions(true, 1, false));
  return copy;
}

}  // namespace pt2onnx::translate::testing
