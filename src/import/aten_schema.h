// Operator schemas of aten and prims overloads (argument names, types, keyword-only flags,
// defaults, return counts), generated from torch by scripts/gen_aten_schemas.py. Exported programs
// omit arguments left at their defaults, so readers need the schema to see every argument.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "ir/program.h"

namespace pt2onnx::import {

enum class DefaultKind : uint8_t {
  kNoDefault,  // the argument is required
  kNone,       // = None
  kInt,
  kFloat,
  kBool,
  kComplex,
  kIntList,
  kFloatList,
  kBoolList,
  kString,
  kScalarType,    // int_value: export-schema ScalarType number (ir::DType)
  kMemoryFormat,  // int_value: ir::MemoryFormat
  kLayout,        // int_value: ir::Layout
  kDevice,        // text: "cpu", "cuda:0"
};

struct SchemaDefault {
  DefaultKind kind = DefaultKind::kNoDefault;
  int64_t int_value = 0;  // kInt, kBool (0/1) and the enum kinds
  double float_value = 0;  // kFloat; the real part of kComplex
  double imag_value = 0;   // kComplex
  std::string_view text{};  // kString, kDevice
  std::span<const int64_t> ints{};  // kIntList, kBoolList (0/1)
  std::span<const double> floats{};  // kFloatList
};

struct SchemaArg {
  std::string_view name{};
  std::string_view type{};  // as native_functions.yaml writes it: "Tensor", "SymInt[2]", "Scalar?", "Tensor(a!)"
  bool kwarg_only = false;
  SchemaDefault default_value{};

  bool has_default() const { return default_value.kind != DefaultKind::kNoDefault; }
};

struct OpSchema {
  std::string_view name{};  // "aten.add.Tensor", "aten.relu.default", "prims.convert_element_type.default"
  std::span<const SchemaArg> args{};  // schema order
  int num_returns = 0;

  // The argument called `arg_name`, or nullptr.
  const SchemaArg* find_arg(std::string_view arg_name) const;
};

// The schema of `target` ("aten.add.Tensor"; a leading "torch.ops." is ignored), or nullptr for
// targets outside the table (other namespaces, HOPs, out-variants, operators newer than the table).
const OpSchema* find_aten_schema(std::string_view target);

// The default of `arg` as the IR value the exporter would have written (ints as SymIntArg, lists
// as SymIntListArg, None as NoneArg, ...); nullopt when the argument has no default.
std::optional<ir::Argument> default_argument(const SchemaArg& arg);

// The torch version the table was generated from, e.g. "2.15.0+cu132".
std::string_view aten_schema_torch_version();

// Every schema in the table, sorted by name.
std::span<const OpSchema> all_aten_schemas();

}  // namespace pt2onnx::import
