// NodeArgs: schema-named argument access with messages that say what was found.
#include "translate/node_args.h"

#include "common/error.h"

namespace pt2onnx::translate {

namespace {

const char* kind_name(const ir::Argument& a) {
  return std::visit(
      [](const auto& v) -> const char* {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, ir::NoneArg>) return "None";
        else if constexpr (std::is_same_v<T, ir::TensorArg>) return "Tensor";
        else if constexpr (std::is_same_v<T, ir::TensorListArg>) return "Tensor[]";
        else if constexpr (std::is_same_v<T, ir::OptionalTensorListArg>) return "Tensor?[]";
        else if constexpr (std::is_same_v<T, ir::SymIntArg>) return "int";
        else if constexpr (std::is_same_v<T, ir::SymIntListArg>) return "int[]";
        else if constexpr (std::is_same_v<T, ir::SymFloatArg>) return "float";
        else if constexpr (std::is_same_v<T, ir::SymFloatListArg>) return "float[]";
        else if constexpr (std::is_same_v<T, ir::SymBoolArg>) return "bool";
        else if constexpr (std::is_same_v<T, ir::SymBoolListArg>) return "bool[]";
        else if constexpr (std::is_same_v<T, std::string>) return "str";
        else if constexpr (std::is_same_v<T, ir::ScalarTypeArg>) return "ScalarType";
        else if constexpr (std::is_same_v<T, ir::DeviceArg>) return "Device";
        else if constexpr (std::is_same_v<T, ir::GraphArg>) return "Graph";
        else return "another kind";
      },
      a);
}

bool is_none(const ir::Argument& a) { return std::holds_alternative<ir::NoneArg>(a); }

}  // namespace

void NodeArgs::wrong_kind(const std::string& name, const char* wanted) const {
  fail(ErrorCode::kUnsupported,
       "argument '" + name + "' is " + kind_name(arg(name)) + ", expected " + wanted);
}

bool NodeArgs::has(const std::string& name) const {
  const ir::Argument* a = node_.input(name);
  return a && !is_none(*a);
}

const ir::Argument& NodeArgs::arg(const std::string& name) const {
  if (const ir::Argument* a = node_.input(name)) return *a;
  std::string present;
  for (const auto& in : node_.inputs) present += (present.empty() ? "" : ", ") + in.name;
  fail(ErrorCode::kUnsupported, "argument '" + name + "' is missing (present: " + present + ")");
}

const ir::Argument& NodeArgs::positional(size_t i) const {
  PT2ONNX_CHECK(i < node_.inputs.size(), ErrorCode::kUnsupported,
                "expected at least " + std::to_string(i + 1) + " arguments, found " + std::to_string(node_.inputs.size()));
  return node_.inputs[i].arg;
}

bool NodeArgs::is_tensor(const std::string& name) const {
  const ir::Argument* a = node_.input(name);
  return a && std::holds_alternative<ir::TensorArg>(*a);
}

// ---- tensors ----------------------------------------------------------------------------------

const std::string& NodeArgs::tensor_fx(const std::string& name) const {
  const auto* t = std::get_if<ir::TensorArg>(&arg(name));
  if (!t) wrong_kind(name, "a Tensor");
  return t->name;
}

const std::vector<std::string>& NodeArgs::tensor_list_fx(const std::string& name) const {
  const auto* list = std::get_if<ir::TensorListArg>(&arg(name));
  if (!list) wrong_kind(name, "a Tensor[]");
  return list->names;
}

const ir::TensorMeta* NodeArgs::find_meta(const std::string& fx_name) const {
  if (!values_) return nullptr;
  const auto found = values_->find(fx_name);
  return found == values_->end() ? nullptr : &found->second;
}

const ir::TensorMeta& NodeArgs::meta(const std::string& name) const {
  const std::string& fx = tensor_fx(name);
  const ir::TensorMeta* m = find_meta(fx);
  PT2ONNX_CHECK(m != nullptr, ErrorCode::kUnsupported, "tensor '" + fx + "' (argument '" + name + "') has no tensor_values entry");
  return *m;
}

// ---- ints -------------------------------------------------------------------------------------

bool NodeArgs::is_static_int(const std::string& name) const {
  const auto* s = std::get_if<ir::SymIntArg>(&arg(name));
  return s && std::holds_alternative<int64_t>(s->v);
}

int64_t NodeArgs::get_int(const std::string& name) const {
  const ir::Argument& a = arg(name);
  if (const auto* s = std::get_if<ir::SymIntArg>(&a)) {
    if (const auto* v = std::get_if<int64_t>(&s->v)) return *v;
    fail(ErrorCode::kUnsupported, "argument '" + name + "' is the symbolic int '" + std::get<std::string>(s->v) +
                                      "', but this rule needs it static");
  }
  if (const auto* b = std::get_if<ir::SymBoolArg>(&a))
    if (const auto* v = std::get_if<bool>(&b->v)) return *v ? 1 : 0;
  wrong_kind(name, "an int");
}

int64_t NodeArgs::int_or(const std::string& name, int64_t fallback) const {
  return has(name) ? get_int(name) : fallback;
}

std::optional<int64_t> NodeArgs::optional_int(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return get_int(name);
}

std::vector<ir::SymIntArg> NodeArgs::sym_ints(const std::string& name) const {
  const ir::Argument& a = arg(name);
  if (const auto* list = std::get_if<ir::SymIntListArg>(&a)) return list->items;
  if (const auto* one = std::get_if<ir::SymIntArg>(&a)) return {*one};  // int[1] given as an int
  wrong_kind(name, "an int list");
}

bool NodeArgs::is_static_ints(const std::string& name) const {
  for (const auto& item : sym_ints(name))
    if (!std::holds_alternative<int64_t>(item.v)) return false;
  return true;
}

std::vector<int64_t> NodeArgs::ints(const std::string& name) const {
  std::vector<int64_t> out;
  for (const auto& item : sym_ints(name)) {
    const auto* v = std::get_if<int64_t>(&item.v);
    PT2ONNX_CHECK(v != nullptr, ErrorCode::kUnsupported,
                  "argument '" + name + "' holds the symbolic int '" + std::get<std::string>(item.v) +
                      "', but this rule needs static ints");
    out.push_back(*v);
  }
  return out;
}

std::optional<std::vector<int64_t>> NodeArgs::optional_ints(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return ints(name);
}

// ---- other constants --------------------------------------------------------------------------

double NodeArgs::get_float(const std::string& name) const {
  const ir::Argument& a = arg(name);
  if (const auto* f = std::get_if<ir::SymFloatArg>(&a)) {
    if (const auto* v = std::get_if<double>(&f->v)) return *v;
    fail(ErrorCode::kUnsupported, "argument '" + name + "' is a symbolic float, which is not supported");
  }
  if (const auto* s = std::get_if<ir::SymIntArg>(&a))
    if (const auto* v = std::get_if<int64_t>(&s->v)) return static_cast<double>(*v);
  if (const auto* b = std::get_if<ir::SymBoolArg>(&a))
    if (const auto* v = std::get_if<bool>(&b->v)) return *v ? 1.0 : 0.0;
  wrong_kind(name, "a static number");
}

std::vector<double> NodeArgs::floats(const std::string& name) const {
  const ir::Argument& a = arg(name);
  std::vector<double> out;
  if (const auto* list = std::get_if<ir::SymFloatListArg>(&a)) {
    for (const auto& item : list->items) {
      const auto* v = std::get_if<double>(&item.v);
      PT2ONNX_CHECK(v != nullptr, ErrorCode::kUnsupported, "argument '" + name + "' holds a symbolic float");
      out.push_back(*v);
    }
    return out;
  }
  if (std::holds_alternative<ir::SymIntListArg>(a)) {
    for (int64_t v : ints(name)) out.push_back(static_cast<double>(v));
    return out;
  }
  wrong_kind(name, "a float list");
}

double NodeArgs::float_or(const std::string& name, double fallback) const {
  return has(name) ? get_float(name) : fallback;
}

std::optional<double> NodeArgs::optional_float(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return get_float(name);
}

bool NodeArgs::get_bool(const std::string& name) const {
  const ir::Argument& a = arg(name);
  if (const auto* b = std::get_if<ir::SymBoolArg>(&a)) {
    if (const auto* v = std::get_if<bool>(&b->v)) return *v;
    fail(ErrorCode::kUnsupported, "argument '" + name + "' is a symbolic bool, which is not supported");
  }
  if (const auto* s = std::get_if<ir::SymIntArg>(&a))
    if (const auto* v = std::get_if<int64_t>(&s->v)) return *v != 0;
  wrong_kind(name, "a bool");
}

bool NodeArgs::bool_or(const std::string& name, bool fallback) const {
  return has(name) ? get_bool(name) : fallback;
}

std::optional<ir::DType> NodeArgs::dtype(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  const ir::Argument& a = arg(name);
  if (const auto* t = std::get_if<ir::ScalarTypeArg>(&a)) return t->dtype;
  if (const auto* s = std::get_if<ir::SymIntArg>(&a)) {  // some writers spell a dtype as its number
    ir::DType out;
    if (const auto* v = std::get_if<int64_t>(&s->v); v && ir::dtype_from_schema(*v, out)) return out;
  }
  wrong_kind(name, "a ScalarType");
}

std::string NodeArgs::string_or(const std::string& name, const std::string& fallback) const {
  if (!has(name)) return fallback;
  const auto* s = std::get_if<std::string>(&arg(name));
  if (!s) wrong_kind(name, "a str");
  return *s;
}

// ---- Scalars ----------------------------------------------------------------------------------

bool NodeArgs::is_float_scalar(const std::string& name) const {
  return std::holds_alternative<ir::SymFloatArg>(arg(name));
}

double NodeArgs::scalar_number(const std::string& name) const { return get_float(name); }

}  // namespace pt2onnx::translate
