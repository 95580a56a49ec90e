// Small helpers of the program IR.
#include "ir/program.h"

namespace pt2onnx::ir {

namespace {

template <typename T>
void add_name(const T& sym, std::vector<std::string>& out) {
  if (const auto* name = std::get_if<std::string>(&sym.v)) out.push_back(*name);
}

}  // namespace

const Argument* Node::input(const std::string& arg_name) const {
  for (const auto& in : inputs)
    if (in.name == arg_name) return &in.arg;
  return nullptr;
}

void collect_value_names(const Argument& arg, std::vector<std::string>& out) {
  if (const auto* t = std::get_if<TensorArg>(&arg)) {
    out.push_back(t->name);
  } else if (const auto* list = std::get_if<TensorListArg>(&arg)) {
    out.insert(out.end(), list->names.begin(), list->names.end());
  } else if (const auto* opt = std::get_if<OptionalTensorListArg>(&arg)) {
    for (const auto& n : opt->names)
      if (n) out.push_back(*n);
  } else if (const auto* s = std::get_if<SymIntArg>(&arg)) {
    add_name(*s, out);
  } else if (const auto* sl = std::get_if<SymIntListArg>(&arg)) {
    for (const auto& item : sl->items) add_name(item, out);
  } else if (const auto* f = std::get_if<SymFloatArg>(&arg)) {
    add_name(*f, out);
  } else if (const auto* fl = std::get_if<SymFloatListArg>(&arg)) {
    for (const auto& item : fl->items) add_name(item, out);
  } else if (const auto* b = std::get_if<SymBoolArg>(&arg)) {
    add_name(*b, out);
  } else if (const auto* bl = std::get_if<SymBoolListArg>(&arg)) {
    for (const auto& item : bl->items) add_name(item, out);
  } else if (const auto* nested = std::get_if<NestedTensorListArg>(&arg)) {
    for (const auto& inner : nested->names) out.insert(out.end(), inner.begin(), inner.end());
  } else if (const auto* c = std::get_if<CustomObjArg>(&arg)) {
    out.push_back(c->name);
  } else if (const auto* tok = std::get_if<TokenArg>(&arg)) {
    out.push_back(tok->name);
  }
}

}  // namespace pt2onnx::ir
