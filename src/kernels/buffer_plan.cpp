#include "kernels/buffer_plan.h"

#include "common/error.h"
#include "ir/onnx_dtype.h"
#include "kernels/codegen_internal.h"
#include "kernels/expr.h"

namespace pt2onnx::kernels::detail {

using onnx::TensorProto;

std::string storage_c_type(int dtype) {
  switch (dtype) {
    case TensorProto::FLOAT: case TensorProto::FLOAT16: case TensorProto::BFLOAT16: case TensorProto::INT64:
    case TensorProto::INT32: case TensorProto::BOOL: return std::string(ir::dtype_facts_for_onnx(dtype)->c_type);
    default: fail(ErrorCode::kUnsupported, "--compile: dtype " + ir::onnx_type_name(dtype) + " is not supported");
  }
}

int workspace_dtype(int dtype) {
  if (is_float_dtype(dtype)) return TensorProto::FLOAT;
  if (is_int_dtype(dtype)) return TensorProto::INT64;
  return TensorProto::BOOL;
}

std::string load_converted(const std::string& raw, int storage_dtype) {
  switch (storage_dtype) {
    case TensorProto::FLOAT16: return "p2_h2f(" + raw + ")";
    case TensorProto::BFLOAT16: return "p2_b2f(" + raw + ")";
    case TensorProto::INT32: return "(long long)(" + raw + ")";
    case TensorProto::BOOL: return "(" + raw + " != 0)";
    default: return raw;
  }
}

std::string store_converted(const std::string& v, int from_dtype, int storage_dtype) {
  const int compute_dtype = is_float_dtype(storage_dtype) ? TensorProto::FLOAT
                            : is_int_dtype(storage_dtype) ? TensorProto::INT64
                                                          : TensorProto::BOOL;
  std::string c = convert(v, from_dtype, compute_dtype);
  switch (storage_dtype) {
    case TensorProto::FLOAT16: return "p2_f2h(" + c + ")";
    case TensorProto::BFLOAT16: return "p2_f2b(" + c + ")";
    case TensorProto::INT32: return "(int)(" + c + ")";
    case TensorProto::BOOL: return "(unsigned char)(" + c + ")";
    default: return c;
  }
}

BufferPlan::BufferPlan(const onnx::FunctionProto& function) : function_(function) {
  for (int o = 0; o < function.output_size(); ++o) {
    outputs_pending_.insert(function.output(o));
    output_index_.emplace(function.output(o), o);
  }
}

void BufferPlan::add(const std::string& pointer, int dtype, ArgBinding binding) {
  info_[pointer] = {storage_c_type(dtype), dtype, std::move(binding)};
  order_.push_back(pointer);
}

Dest BufferPlan::bind_input(int i, int dtype) {
  const std::string pointer = "in" + std::to_string(i);
  add(pointer, dtype, {BindingKind::kInput, function_.input(i)});
  return {pointer, dtype};
}

Dest BufferPlan::destination(const std::string& name, int dtype, const std::vector<ir::SymExpr>& shape) {
  if (outputs_pending_.count(name)) {
    outputs_pending_.erase(name);
    const std::string pointer = output_pointer(output_index_.at(name));
    add(pointer, dtype, {BindingKind::kOutput, name});
    return {pointer, dtype};
  }
  const int storage = workspace_dtype(dtype);
  WorkspaceBuffer buf;
  buf.name = "ws" + std::to_string(buffers_.size());
  buf.holds = name;
  buf.dtype = storage;
  buf.shape = shape;
  buf.bytes = ir::sym_apply(ir::SymOp::kMul, {product(shape), ir::sym_int(ir::onnx_type_size(storage))});
  buf.offset = buffers_.empty() ? ir::sym_int(0) : end_of_buffers();
  add(buf.name, storage, {BindingKind::kBuffer, buf.name});
  buffers_.push_back(buf);
  return {buf.name, storage};
}

Dest BufferPlan::bind_output(int o, int dtype) {
  const std::string pointer = output_pointer(o);
  add(pointer, dtype, {BindingKind::kOutput, function_.output(o)});
  return {pointer, dtype};
}

ir::SymExpr BufferPlan::end_of_buffers() const {
  return sym_align(ir::sym_apply(ir::SymOp::kAdd, {buffers_.back().offset, buffers_.back().bytes}), 256);
}

ir::SymExpr BufferPlan::workspace_bytes() const { return buffers_.empty() ? ir::sym_int(0) : end_of_buffers(); }

}  // namespace pt2onnx::kernels::detail
