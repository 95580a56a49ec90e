// DType sizes, names and schema numbers, read from dtype_table.h.
#include "ir/dtype.h"

namespace pt2onnx::ir {

int64_t dtype_size(DType t) {
  const DTypeFacts* f = dtype_facts(t);
  return f ? f->size : 0;
}

std::string_view dtype_name(DType t) {
  const DTypeFacts* f = dtype_facts(t);
  return f ? f->torch_name : std::string_view("unknown");
}

bool dtype_from_schema(int64_t value, DType& out) {
  for (const DTypeFacts& f : kDTypeTable) {
    if (static_cast<int64_t>(f.dtype) == value) {
      out = f.dtype;
      return true;
    }
  }
  return false;
}

}  // namespace pt2onnx::ir
