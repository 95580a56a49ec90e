// op_type_facts: lookups in the generated schema table (onnx_type_table.h).
#include "model/onnx_type_table.h"

#include <algorithm>
#include <iterator>

namespace pt2onnx::model {

namespace {

// Sorted by domain (standard first), op, since_version, as the generator writes it.
constexpr OpTypeFacts kTable[] = {
#include "model/onnx_type_table.inc"
};

}  // namespace

const OpTypeFacts* op_type_facts(std::string_view op, int opset) {
  const OpTypeFacts* found = nullptr;
  auto first = std::lower_bound(std::begin(kTable), std::end(kTable), op, [](const OpTypeFacts& f, std::string_view name) {
    return !f.ml && std::string_view(f.op) < name;
  });
  for (auto it = first; it != std::end(kTable) && !it->ml && std::string_view(it->op) == op; ++it)
    if (it->since_version <= opset) found = &*it;
  return found;
}

bool is_onnx_op_name(std::string_view name) {
  return std::any_of(std::begin(kTable), std::end(kTable), [&](const OpTypeFacts& f) { return name == f.op; });
}

}  // namespace pt2onnx::model
