// ArgReader: typed access to a node's arguments by schema name. The importer fills omitted
// arguments with schema defaults, so a missing name is an error, except where a rule asks with a
// default (`int_or`). Errors say which argument and what was found; the driver adds the node.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "translate/emit_context.h"

namespace pt2onnx::translate {

class ArgReader {
 public:
  ArgReader(EmitContext& ctx, const ir::Node& node) : ctx_(ctx), node_(node) {}

  // Present and not None.
  bool has(const std::string& name) const;
  // The argument; throws Error(kUnsupported) listing the names present when it is missing.
  const ir::Argument& arg(const std::string& name) const;
  // The i-th input regardless of name (Python operator nodes name them a, b, ...).
  const ir::Argument& positional(size_t i) const;
  bool is_tensor(const std::string& name) const;

  // ---- tensors: the ONNX value bound to the FX value -------------------------------------
  std::string tensor(const std::string& name) const;
  std::optional<std::string> optional_tensor(const std::string& name) const;
  std::vector<std::string> tensors(const std::string& name) const;
  std::vector<std::optional<std::string>> optional_tensors(const std::string& name) const;
  // FX name and tensor_values entry of a tensor argument.
  const std::string& tensor_fx(const std::string& name) const;
  const ir::TensorMeta& meta(const std::string& name) const;
  ir::DType dtype_of(const std::string& name) const { return meta(name).dtype; }
  int64_t rank_of(const std::string& name) const { return static_cast<int64_t>(meta(name).sizes.size()); }

  // ---- ints ----------------------------------------------------------------------------
  // A static int; throws when the argument is symbolic.
  int64_t get_int(const std::string& name) const;
  int64_t int_or(const std::string& name, int64_t fallback) const;
  std::optional<int64_t> optional_int(const std::string& name) const;
  bool is_static_int(const std::string& name) const;
  // A 0-D int64 value of an int or SymInt argument.
  std::string int_value(const std::string& name) const;
  // A static int list (a single int reads as a list of one); throws when an item is symbolic.
  std::vector<int64_t> ints(const std::string& name) const;
  std::optional<std::vector<int64_t>> optional_ints(const std::string& name) const;
  bool is_static_ints(const std::string& name) const;
  // A 1-D int64 value of an int list whose items may be symbolic.
  std::string ints_value(const std::string& name) const;
  // The items of a SymInt list.
  std::vector<ir::SymIntArg> sym_ints(const std::string& name) const;

  // ---- other constants ------------------------------------------------------------------
  double get_float(const std::string& name) const;  // ints read as floats
  // A static float list (float[]); ints read as floats.
  std::vector<double> floats(const std::string& name) const;
  double float_or(const std::string& name, double fallback) const;
  std::optional<double> optional_float(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  bool bool_or(const std::string& name, bool fallback) const;
  std::optional<ir::DType> dtype(const std::string& name) const;  // None -> nullopt
  std::string string_or(const std::string& name, const std::string& fallback) const;

  // ---- Scalars (aten "Scalar": int, float, bool or a symbolic int) ------------------------
  bool is_float_scalar(const std::string& name) const;
  // Constant number of a static Scalar argument.
  double scalar_number(const std::string& name) const;
  // A 0-D value of `dtype`: a cached constant for static scalars, a Cast of symbolic ones.
  std::string scalar(const std::string& name, ir::DType dtype) const;

  // ---- the node's outputs ---------------------------------------------------------------
  const ir::TensorMeta* out_meta(size_t i = 0) const;
  ir::DType out_dtype(size_t i = 0) const;  // kUnknown when the output has no tensor meta

 private:
  [[noreturn]] void wrong_kind(const std::string& name, const char* wanted) const;

  EmitContext& ctx_;
  const ir::Node& node_;
};

}  // namespace pt2onnx::translate
