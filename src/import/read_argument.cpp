// Argument union members (pt2-format.md 4.3) -> ir::Argument.
#include "import/read_argument.h"

#include <memory>
#include <string_view>
#include <unordered_map>

#include "import/read_graph.h"

namespace pt2onnx::import {

namespace {

constexpr std::string_view kTorchOpsPrefix = "torch.ops.";

ir::SymIntArg read_sym_int_arg(const JsonNode& node) {
  auto [kind, value] = node.union_member();
  if (kind == "as_name") return {value.as_string()};
  if (kind == "as_int") return {value.as_int()};
  node.fail("unknown SymIntArgument kind '" + kind + "'");
}

ir::SymFloatArg read_sym_float_arg(const JsonNode& node) {
  auto [kind, value] = node.union_member();
  if (kind == "as_name") return {value.as_string()};
  if (kind == "as_float") return {value.as_double()};
  node.fail("unknown SymFloatArgument kind '" + kind + "'");
}

ir::SymBoolArg read_sym_bool_arg(const JsonNode& node) {
  auto [kind, value] = node.union_member();
  if (kind == "as_name") return {value.as_string()};
  if (kind == "as_bool") return {value.as_bool()};
  node.fail("unknown SymBoolArgument kind '" + kind + "'");
}

// OptionalTensorArgument: {"as_tensor": {"name"} | "name"} or {"as_none": ...}.
std::optional<std::string> read_optional_tensor(const JsonNode& node) {
  auto [kind, value] = node.union_member();
  if (kind == "as_tensor") return read_tensor_name(value);
  if (kind == "as_none") return std::nullopt;
  node.fail("unknown OptionalTensorArgument kind '" + kind + "'");
}

template <typename T, typename ReadOne>
std::vector<T> read_list(const JsonNode& node, ReadOne read_one) {
  std::vector<T> out;
  for (const auto& element : node.elements()) out.push_back(read_one(element));
  return out;
}

ir::DeviceArg read_device(const JsonNode& node) {
  ir::DeviceArg device;
  if (node.is_string()) {  // tolerate "cuda:0"
    std::string text = node.as_string();
    size_t colon = text.find(':');
    device.type = text.substr(0, colon);
    if (colon != std::string::npos) {
      try {
        device.index = std::stoll(text.substr(colon + 1));
      } catch (const std::exception&) {
        node.fail("malformed device '" + text + "'");
      }
    }
    return device;
  }
  device.type = node.at("type").as_string();
  if (auto index = node.find("index")) device.index = index->as_int();
  return device;
}

template <typename Enum>
Enum read_enum(const JsonNode& node, int64_t max_value, const char* what) {
  int64_t v = node.as_int();
  if (v < 0 || v > max_value) node.fail("unknown " + std::string(what) + " " + std::to_string(v));
  return static_cast<Enum>(v);
}

ir::ScalarTypeArg read_scalar_type(const JsonNode& node) {
  ir::DType dtype = ir::DType::kUnknown;
  // A number this reader does not know stays kUnknown: it matters only if a rule uses it.
  ir::dtype_from_schema(node.as_int(), dtype);
  return {dtype};
}

ir::Argument read_graph_argument(const JsonNode& node) {
  ir::GraphArg arg;
  arg.name = node.string_or("name", "");
  arg.graph = std::make_shared<const ir::Graph>(read_graph(node.at("graph")));
  return arg;
}

ir::Argument read_custom_obj(const JsonNode& node) {
  // The 2.1 form {blob} carried the object itself; it has no name or class to report.
  return ir::CustomObjArg{node.string_or("name", ""), node.string_or("class_fqn", "")};
}

ir::Argument read_string_to_argument(const JsonNode& node) {
  ir::StringToArgumentArg out;
  for (const auto& [key, value] : node.members()) {
    if (value.is_null()) continue;
    out.entries.push_back({key, read_argument(value), true});
  }
  return out;
}

using ArgumentReader = ir::Argument (*)(const JsonNode&);

// Scalars are built in place (std::in_place_type): moving a temporary SymIntArg into the variant
// trips a false -Wmaybe-uninitialized in GCC 12 at -O3 with the sanitizers.

const std::unordered_map<std::string_view, ArgumentReader>& argument_readers() {
  static const std::unordered_map<std::string_view, ArgumentReader> kReaders = {
      {"as_none", [](const JsonNode&) -> ir::Argument { return ir::NoneArg{}; }},
      {"as_tensor", [](const JsonNode& n) -> ir::Argument { return ir::TensorArg{read_tensor_name(n)}; }},
      {"as_tensors",
       [](const JsonNode& n) -> ir::Argument { return ir::TensorListArg{read_list<std::string>(n, read_tensor_name)}; }},
      {"as_int", [](const JsonNode& n) -> ir::Argument { return ir::Argument(std::in_place_type<ir::SymIntArg>, n.as_int()); }},
      {"as_ints",
       [](const JsonNode& n) -> ir::Argument {
         return ir::SymIntListArg{read_list<ir::SymIntArg>(n, [](const JsonNode& e) { return ir::SymIntArg{e.as_int()}; })};
       }},
      {"as_float", [](const JsonNode& n) -> ir::Argument { return ir::Argument(std::in_place_type<ir::SymFloatArg>, n.as_double()); }},
      {"as_floats",
       [](const JsonNode& n) -> ir::Argument {
         return ir::SymFloatListArg{
             read_list<ir::SymFloatArg>(n, [](const JsonNode& e) { return ir::SymFloatArg{e.as_double()}; })};
       }},
      {"as_string", [](const JsonNode& n) -> ir::Argument { return n.as_string(); }},
      {"as_strings",
       [](const JsonNode& n) -> ir::Argument {
         return read_list<std::string>(n, [](const JsonNode& e) { return e.as_string(); });
       }},
      {"as_sym_int", [](const JsonNode& n) -> ir::Argument { return read_sym_int_arg(n); }},
      {"as_sym_ints",
       [](const JsonNode& n) -> ir::Argument { return ir::SymIntListArg{read_list<ir::SymIntArg>(n, read_sym_int_arg)}; }},
      {"as_scalar_type", [](const JsonNode& n) -> ir::Argument { return read_scalar_type(n); }},
      {"as_memory_format",
       [](const JsonNode& n) -> ir::Argument {
         return ir::MemoryFormatArg{read_enum<ir::MemoryFormat>(n, 4, "memory format")};
       }},
      {"as_layout",
       [](const JsonNode& n) -> ir::Argument { return ir::LayoutArg{read_enum<ir::Layout>(n, 7, "layout")}; }},
      {"as_device", [](const JsonNode& n) -> ir::Argument { return read_device(n); }},
      {"as_bool", [](const JsonNode& n) -> ir::Argument { return ir::Argument(std::in_place_type<ir::SymBoolArg>, n.as_bool()); }},
      {"as_bools",
       [](const JsonNode& n) -> ir::Argument {
         return ir::SymBoolListArg{read_list<ir::SymBoolArg>(n, [](const JsonNode& e) { return ir::SymBoolArg{e.as_bool()}; })};
       }},
      {"as_sym_bool", [](const JsonNode& n) -> ir::Argument { return read_sym_bool_arg(n); }},
      {"as_sym_bools",
       [](const JsonNode& n) -> ir::Argument { return ir::SymBoolListArg{read_list<ir::SymBoolArg>(n, read_sym_bool_arg)}; }},
      {"as_optional_tensors",
       [](const JsonNode& n) -> ir::Argument {
         return ir::OptionalTensorListArg{read_list<std::optional<std::string>>(n, read_optional_tensor)};
       }},
      {"as_optional_tensor",
       [](const JsonNode& n) -> ir::Argument {
         auto name = read_optional_tensor(n);
         if (name) return ir::TensorArg{*name};
         return ir::NoneArg{};
       }},
      {"as_graph", read_graph_argument},
      {"as_custom_obj", read_custom_obj},
      {"as_operator", [](const JsonNode& n) -> ir::Argument { return ir::OperatorArg{strip_torch_ops(n.as_string())}; }},
      {"as_sym_float", [](const JsonNode& n) -> ir::Argument { return read_sym_float_arg(n); }},
      {"as_sym_floats",
       [](const JsonNode& n) -> ir::Argument {
         return ir::SymFloatListArg{read_list<ir::SymFloatArg>(n, read_sym_float_arg)};
       }},
      {"as_complex",
       [](const JsonNode& n) -> ir::Argument { return ir::ComplexArg{n.at("real").as_double(), n.at("imag").as_double()}; }},
      {"as_nested_tensors",
       [](const JsonNode& n) -> ir::Argument {
         return ir::NestedTensorListArg{read_list<std::vector<std::string>>(
             n, [](const JsonNode& e) { return read_list<std::string>(e, read_tensor_name); })};
       }},
      {"as_int_lists",
       [](const JsonNode& n) -> ir::Argument {
         return ir::IntListListArg{read_list<std::vector<int64_t>>(
             n, [](const JsonNode& e) { return read_list<int64_t>(e, [](const JsonNode& v) { return v.as_int(); }); })};
       }},
      {"as_float_lists",
       [](const JsonNode& n) -> ir::Argument {
         return ir::FloatListListArg{read_list<std::vector<double>>(
             n, [](const JsonNode& e) { return read_list<double>(e, [](const JsonNode& v) { return v.as_double(); }); })};
       }},
      {"as_string_to_argument", read_string_to_argument},
  };
  return kReaders;
}

}  // namespace

std::string read_tensor_name(const JsonNode& node) {
  if (node.is_string()) return node.as_string();
  return node.at("name").as_string();
}

std::string strip_torch_ops(std::string target) {
  if (target.starts_with(kTorchOpsPrefix)) target.erase(0, kTorchOpsPrefix.size());
  return target;
}

ir::Argument read_argument(const JsonNode& node) {
  auto [kind, value] = node.union_member();
  const auto& readers = argument_readers();
  auto it = readers.find(kind);
  if (it == readers.end()) node.fail("unknown argument kind '" + kind + "'");
  return it->second(value);
}

}  // namespace pt2onnx::import
