// Small helpers of the program IR.
#include "ir/program.h"
#include "ir/value_names.h"

namespace pt2onnx::ir {

namespace {

// Appends the names an argument refers to, as strings or as views of the argument's own.
template <typename Name>
class NameCollector {
 public:
  explicit NameCollector(std::vector<Name>& out) : out_(out) {}
  void add(const std::string& name) { out_.push_back(Name(name)); }
  template <typename Sym>
  void add_sym(const Sym& sym) {
    if (const auto* name = std::get_if<std::string>(&sym.v)) add(*name);
  }

  void collect(const Argument& arg) {
    if (const auto* t = std::get_if<TensorArg>(&arg)) {
      add(t->name);
    } else if (const auto* list = std::get_if<TensorListArg>(&arg)) {
      for (const auto& n : list->names) add(n);
    } else if (const auto* opt = std::get_if<OptionalTensorListArg>(&arg)) {
      for (const auto& n : opt->names)
        if (n) add(*n);
    } else if (const auto* s = std::get_if<SymIntArg>(&arg)) {
      add_sym(*s);
    } else if (const auto* sl = std::get_if<SymIntListArg>(&arg)) {
      for (const auto& item : sl->items) add_sym(item);
    } else if (const auto* f = std::get_if<SymFloatArg>(&arg)) {
      add_sym(*f);
    } else if (const auto* fl = std::get_if<SymFloatListArg>(&arg)) {
      for (const auto& item : fl->items) add_sym(item);
    } else if (const auto* b = std::get_if<SymBoolArg>(&arg)) {
      add_sym(*b);
    } else if (const auto* bl = std::get_if<SymBoolListArg>(&arg)) {
      for (const auto& item : bl->items) add_sym(item);
    } else if (const auto* nested = std::get_if<NestedTensorListArg>(&arg)) {
      for (const auto& inner : nested->names)
        for (const auto& n : inner) add(n);
    } else if (const auto* c = std::get_if<CustomObjArg>(&arg)) {
      add(c->name);
    } else if (const auto* tok = std::get_if<TokenArg>(&arg)) {
      add(tok->name);
    }
  }

 private:
  std::vector<Name>& out_;
};

}  // namespace

const Argument* Node::input(const std::string& arg_name) const {
  for (const auto& in : inputs)
    if (in.name == arg_name) return &in.arg;
  return nullptr;
}

void collect_value_names(const Argument& arg, std::vector<std::string>& out) { NameCollector<std::string>(out).collect(arg); }

void collect_value_name_views(const Argument& arg, std::vector<std::string_view>& out) {
  NameCollector<std::string_view>(out).collect(arg);
}

}  // namespace pt2onnx::ir
