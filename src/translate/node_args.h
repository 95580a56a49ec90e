// NodeArgs: typed access to a node's constant arguments and tensor metas by schema name, with no
// ONNX values (ArgReader adds those for rules; decompositions read their node through this). The
// importer fills omitted arguments with schema defaults, so a missing name is an error, except
// where a caller asks with a default (`int_or`). Errors say which argument and what was found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"

namespace pt2onnx::translate {

class NodeArgs {
 public:
  // `values`: where tensor metas are looked up (ArgReader looks through its EmitContext instead).
  NodeArgs(const ir::Node& node, const ir::TensorValues* values) : node_(node), values_(values) {}
  NodeArgs(const NodeArgs&) = default;
  NodeArgs& operator=(const NodeArgs&) = delete;
  virtual ~NodeArgs() = default;

  const ir::Node& node() const { return node_; }

  // Present and not None.
  bool has(const std::string& name) const;
  // The argument; throws Error(kUnsupported) listing the names present when it is missing.
  const ir::Argument& arg(const std::string& name) const;
  // The i-th input regardless of name (Python operator nodes name them a, b, ...).
  const ir::Argument& positional(size_t i) const;
  bool is_tensor(const std::string& name) const;

  // ---- tensors: FX names and metas --------------------------------------------------------
  // FX name and tensor_values entry of a tensor argument.
  const std::string& tensor_fx(const std::string& name) const;
  // FX names of a tensor list argument.
  const std::vector<std::string>& tensor_list_fx(const std::string& name) const;
  const ir::TensorMeta& meta(const std::string& name) const;
  // The meta of an FX value, or nullptr.
  const ir::TensorMeta* meta_of(const std::string& fx_name) const { return find_meta(fx_name); }
  ir::DType dtype_of(const std::string& name) const { return meta(name).dtype; }
  int64_t rank_of(const std::string& name) const { return static_cast<int64_t>(meta(name).sizes.size()); }

  // ---- ints ----------------------------------------------------------------------------
  // A static int; throws when the argument is symbolic.
  int64_t get_int(const std::string& name) const;
  int64_t int_or(const std::string& name, int64_t fallback) const;
  std::optional<int64_t> optional_int(const std::string& name) const;
  bool is_static_int(const std::string& name) const;
  // A static int list (a single int reads as a list of one); throws when an item is symbolic.
  std::vector<int64_t> ints(const std::string& name) const;
  std::optional<std::vector<int64_t>> optional_ints(const std::string& name) const;
  bool is_static_ints(const std::string& name) const;
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

 protected:
  virtual const ir::TensorMeta* find_meta(const std::string& fx_name) const;
  [[noreturn]] void wrong_kind(const std::string& name, const char* wanted) const;

  const ir::Node& node_;

 private:
  const ir::TensorValues* values_;
};

}  // namespace pt2onnx::translate
