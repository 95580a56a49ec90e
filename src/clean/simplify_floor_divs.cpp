// Floor division of values that cannot be negative: integer floor division a // b is written as
// Div(Sub(a, Mod(a, b)), b), since ONNX's integer Div truncates toward zero. Where the sign
// analysis proves a >= 0 and b is a constant >= 1 (a dim split into tiles or strides), truncation
// is floor, so the Div reads a itself and the Mod and Sub go dead. Nothing becomes a constant.
#include <map>

#include "clean/const_tensor.h"
#include "clean/passes_internal.h"
#include "clean/signs.h"

namespace pt2onnx::clean {

namespace {

bool is_op(const onnx::NodeProto& node, const char* op, int inputs) {
  return node.op_type() == op && node.domain().empty() && node.input_size() == inputs;
}

}  // namespace

int simplify_floor_divs(Body& body) {
  // Before --hiera a Div may read a value of another instance; clean_functions runs it on the
  // function bodies instead.
  if (!body.hiera_types.empty()) return 0;
  std::map<std::string, const onnx::NodeProto*> made;
  for (const onnx::NodeProto& node : *body.nodes)
    for (const std::string& o : node.output()) made[o] = &node;
  auto producer = [&](const std::string& value) -> const onnx::NodeProto* {
    auto p = made.find(value);
    return p == made.end() ? nullptr : p->second;
  };
  std::optional<Signs> signs;  // built on the first candidate
  int simplified = 0;
  for (onnx::NodeProto& div : *body.nodes) {
    if (!is_op(div, "Div", 2)) continue;
    const onnx::NodeProto* sub = producer(div.input(0));
    if (!sub || !is_op(*sub, "Sub", 2)) continue;
    const onnx::NodeProto* mod = producer(sub->input(1));
    if (!mod || !is_op(*mod, "Mod", 2) || int_attribute(*mod, "fmod", 0) != 0) continue;
    const std::string& a = sub->input(0);
    if (mod->input(0) != a || mod->input(1) != div.input(1)) continue;
    if (!signs) signs.emplace(body);
    const ConstTensor* b = signs->constant(div.input(1));
    if (!b || !b->is_integer() || !all_at_least(*b, 1) || !signs->non_negative(a)) continue;
    div.set_input(0, a);
    ++simplified;
  }
  return simplified;
}

}  // namespace pt2onnx::clean
