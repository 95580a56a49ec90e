// The buffer plan of one bundle: which pointer each stored value lives behind (a function input,
// a function output, or a buffer of the float32/int64/u8 workspace), each pointer's C element
// type and storage dtype, how the runtime binds it, and the workspace's buffers with their sizes
// and offsets (256-byte aligned, in the order they were placed; no reuse yet). Knows nothing of
// values or kernel text.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernels/codegen.h"

namespace pt2onnx::kernels::detail {

// Where a kernel writes a value: the pointer and the dtype stored there (which may be wider than
// the value's: fp16 values live in the float32 workspace).
struct Dest {
  std::string pointer;
  int storage_dtype;
};

// C element type of a pointer holding `dtype`; Error(kUnsupported) for dtypes kernels do not read.
std::string storage_c_type(int dtype);
// The workspace's storage of a value of `dtype`: float32 for floats, int64 for ints, u8 for bool.
int workspace_dtype(int dtype);
// Expression converting the raw element `raw` stored as `storage_dtype` to its compute type.
std::string load_converted(const std::string& raw, int storage_dtype);
// Expression converting `v` (compute type of `from_dtype`) to what a `storage_dtype` slot holds.
std::string store_converted(const std::string& v, int from_dtype, int storage_dtype);

class BufferPlan {
 public:
  explicit BufferPlan(const onnx::FunctionProto& function);

  // Input i ("in<i>").
  Dest bind_input(int i, int dtype);
  // Where value `name` is stored when a kernel writes it: the function output it is (the first
  // time), else a new workspace buffer.
  Dest destination(const std::string& name, int dtype, const std::vector<ir::SymExpr>& shape);
  bool output_pending(const std::string& name) const { return outputs_pending_.count(name) > 0; }
  // Output o, when nothing wrote it yet (it is an input or an earlier output): bound for a copy.
  bool output_bound(int o) const { return info_.count(output_pointer(o)) > 0; }
  Dest bind_output(int o, int dtype);

  const std::string& c_type(const std::string& pointer) const { return info_.at(pointer).c_type; }
  int storage_dtype(const std::string& pointer) const { return info_.at(pointer).dtype; }
  ArgBinding binding(const std::string& pointer) const { return info_.at(pointer).binding; }
  const std::vector<std::string>& pointers() const { return order_; }  // in the order they were bound

  const std::vector<WorkspaceBuffer>& buffers() const { return buffers_; }
  ir::SymExpr workspace_bytes() const;

 private:
  struct Pointer {
    std::string c_type;
    int dtype = 0;
    ArgBinding binding;  // input/output/buffer and its name
  };
  static std::string output_pointer(int o) { return "out" + std::to_string(o); }
  void add(const std::string& pointer, int dtype, ArgBinding binding);
  ir::SymExpr end_of_buffers() const;

  const onnx::FunctionProto& function_;
  std::map<std::string, Pointer> info_;
  std::vector<std::string> order_;
  std::set<std::string> outputs_pending_;
  std::map<std::string, int> output_index_;
  std::vector<WorkspaceBuffer> buffers_;
};

}  // namespace pt2onnx::kernels::detail
