// Lookup in the generated operator schema table, and defaults as IR values.
#include "import/aten_schema.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>

namespace pt2onnx::import {

namespace {

// Builders the generated table uses for its defaults.
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr SchemaDefault none_default() { return {DefaultKind::kNone}; }
constexpr SchemaDefault int_default(int64_t v) { return {DefaultKind::kInt, v}; }
constexpr SchemaDefault float_default(double v) { return {DefaultKind::kFloat, 0, v}; }
constexpr SchemaDefault bool_default(bool v) { return {DefaultKind::kBool, v ? 1 : 0}; }
constexpr SchemaDefault complex_default(double real, double imag) { return {DefaultKind::kComplex, 0, real, imag}; }
constexpr SchemaDefault string_default(std::string_view v) { return {DefaultKind::kString, 0, 0, 0, v}; }
constexpr SchemaDefault device_default(std::string_view v) { return {DefaultKind::kDevice, 0, 0, 0, v}; }
constexpr SchemaDefault scalar_type_default(int64_t v) { return {DefaultKind::kScalarType, v}; }
constexpr SchemaDefault memory_format_default(int64_t v) { return {DefaultKind::kMemoryFormat, v}; }
constexpr SchemaDefault layout_default(int64_t v) { return {DefaultKind::kLayout, v}; }
constexpr SchemaDefault int_list_default(std::span<const int64_t> v) { return {DefaultKind::kIntList, 0, 0, 0, {}, v}; }
constexpr SchemaDefault bool_list_default(std::span<const int64_t> v) { return {DefaultKind::kBoolList, 0, 0, 0, {}, v}; }
constexpr SchemaDefault float_list_default(std::span<const double> v) {
  return {DefaultKind::kFloatList, 0, 0, 0, {}, {}, v};
}

#include "import/aten_schema_table.inc"

constexpr std::string_view kTorchOpsPrefix = "torch.ops.";

ir::DeviceArg parse_device(std::string_view text) {
  ir::DeviceArg device;
  size_t colon = text.find(':');
  device.type = std::string(text.substr(0, colon));
  if (colon != std::string_view::npos) {
    int64_t index = 0;
    for (char c : text.substr(colon + 1)) {
      if (c < '0' || c > '9') return device;  // not "type:N"; keep the type only
      index = index * 10 + (c - '0');
    }
    device.index = index;
  }
  return device;
}

}  // namespace

const SchemaArg* OpSchema::find_arg(std::string_view arg_name) const {
  for (const auto& arg : args)
    if (arg.name == arg_name) return &arg;
  return nullptr;
}

namespace {

const OpSchema* search_aten_schema(std::string_view target) {
  const auto* begin = std::begin(kOpSchemas);
  const auto* end = std::end(kOpSchemas);
  const auto* it = std::lower_bound(begin, end, target, [](const OpSchema& s, std::string_view t) { return s.name < t; });
  if (it == end || it->name != target) return nullptr;
  return it;
}

}  // namespace

const OpSchema* find_aten_schema(std::string_view target) {
  if (target.starts_with(kTorchOpsPrefix)) target.remove_prefix(kTorchOpsPrefix.size());
  // Every node asks: one hash lookup instead of a binary search of string
  // compares, holding what the search finds for each name of the table.
  static const std::unordered_map<std::string_view, const OpSchema*> kIndex = [] {
    std::unordered_map<std::string_view, const OpSchema*> index;
    for (const OpSchema& schema : kOpSchemas)
      if (const OpSchema* found = search_aten_schema(schema.name)) index.emplace(schema.name, found);
    return index;
  }();
  const auto found = kIndex.find(target);
  return found == kIndex.end() ? nullptr : found->second;
}

std::optional<ir::Argument> default_argument(const SchemaArg& arg) {
  const SchemaDefault& d = arg.default_value;
  // Scalars are built in place: moving a temporary SymIntArg into the variant trips a false
  // -Wmaybe-uninitialized in GCC 12 at -O3 with the sanitizers.
  switch (d.kind) {
    case DefaultKind::kNoDefault:
      return std::nullopt;
    case DefaultKind::kNone:
      return ir::NoneArg{};
    case DefaultKind::kInt:
      return ir::Argument(std::in_place_type<ir::SymIntArg>, d.int_value);
    case DefaultKind::kFloat:
      return ir::Argument(std::in_place_type<ir::SymFloatArg>, d.float_value);
    case DefaultKind::kBool:
      return ir::Argument(std::in_place_type<ir::SymBoolArg>, d.int_value != 0);
    case DefaultKind::kComplex:
      return ir::ComplexArg{d.float_value, d.imag_value};
    case DefaultKind::kIntList: {
      ir::SymIntListArg list;
      for (int64_t v : d.ints) list.items.emplace_back(v);
      return list;
    }
    case DefaultKind::kFloatList: {
      ir::SymFloatListArg list;
      for (double v : d.floats) list.items.emplace_back(v);
      return list;
    }
    case DefaultKind::kBoolList: {
      ir::SymBoolListArg list;
      for (int64_t v : d.ints) list.items.emplace_back(v != 0);
      return list;
    }
    case DefaultKind::kString:
      return std::string(d.text);
    case DefaultKind::kScalarType: {
      ir::DType dtype = ir::DType::kUnknown;
      ir::dtype_from_schema(d.int_value, dtype);
      return ir::ScalarTypeArg{dtype};
    }
    case DefaultKind::kMemoryFormat:
      return ir::MemoryFormatArg{static_cast<ir::MemoryFormat>(d.int_value)};
    case DefaultKind::kLayout:
      return ir::LayoutArg{static_cast<ir::Layout>(d.int_value)};
    case DefaultKind::kDevice:
      return parse_device(d.text);
  }
  return std::nullopt;
}

std::string_view aten_schema_torch_version() { return kSchemaTorchVersion; }

std::span<const OpSchema> all_aten_schemas() { return kOpSchemas; }

}  // namespace pt2onnx::import
