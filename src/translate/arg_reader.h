// ArgReader: a node's arguments for a translation rule. NodeArgs (node_args.h) reads constants,
// FX names and metas; this adds the ONNX values bound to them. Errors say which argument and what
// was found; the driver adds the node.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "translate/emit_context.h"
#include "translate/node_args.h"

namespace pt2onnx::translate {

class ArgReader : public NodeArgs {
 public:
  ArgReader(EmitContext& ctx, const ir::Node& node) : NodeArgs(node, nullptr), ctx_(ctx) {}

  // ---- tensors: the ONNX value bound to the FX value -------------------------------------
  std::string tensor(const std::string& name) const;
  std::optional<std::string> optional_tensor(const std::string& name) const;
  std::vector<std::string> tensors(const std::string& name) const;
  std::vector<std::optional<std::string>> optional_tensors(const std::string& name) const;

  // ---- ints ----------------------------------------------------------------------------
  // A 0-D int64 value of an int or SymInt argument.
  std::string int_value(const std::string& name) const;
  // A 1-D int64 value of an int list whose items may be symbolic.
  std::string ints_value(const std::string& name) const;

  // ---- Scalars ---------------------------------------------------------------------------
  // A 0-D value of `dtype`: a cached constant for static scalars, a Cast of symbolic ones.
  std::string scalar(const std::string& name, ir::DType dtype) const;

  // ---- the node's outputs ---------------------------------------------------------------
  const ir::TensorMeta* out_meta(size_t i = 0) const;
  ir::DType out_dtype(size_t i = 0) const;  // kUnknown when the output has no tensor meta

 protected:
  const ir::TensorMeta* find_meta(const std::string& fx_name) const override { return ctx_.meta(fx_name); }

 private:
  EmitContext& ctx_;
};

}  // namespace pt2onnx::translate
