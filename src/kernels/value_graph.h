// The value graph of one function body as the generator sees it: every value by name (dtype,
// shape, known contents, how a kernel loads it), the top-level nodes that read each value, the
// function's outputs, and the symbols its input shapes bring (each read from one input axis).
// Knows nothing of buffers or kernel text.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/opsets.h"
#include "kernels/codegen_internal.h"

namespace pt2onnx::kernels::detail {

class ValueGraph {
 public:
  explicit ValueGraph(const onnx::FunctionProto& function);

  const onnx::FunctionProto& function() const { return function_; }
  const onnx::NodeProto& node(int i) const { return function_.node(i); }
  int opset() const { return opset_; }

  // The free symbols of the input shapes, sorted, each with the first input axis that is it.
  // Throws Error(kUnsupported) for a symbol no input axis equals.
  void find_symbols(const std::vector<TensorType>& inputs);
  const std::vector<std::string>& symbols() const { return symbols_; }
  const std::vector<SymbolSource>& symbol_sources() const { return sources_; }

  Value& value(const std::string& name);
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  void define(const std::string& name, Value v) { values_[name] = std::move(v); }
  // The C expression of `name` at `idx` in block `b` (memoised per block).
  std::string load(Body& b, const std::string& name, const Idx& idx);

  // Top-level nodes reading `name`, in body order (empty when none).
  const std::vector<int>& consumers(const std::string& name) const;
  // The node defining `name` at top level, or nullptr.
  const onnx::NodeProto* producer(const std::string& name) const;
  bool is_output(const std::string& name) const { return output_index_.count(name) > 0; }
  int output_index(const std::string& name) const { return output_index_.at(name); }

 private:
  const onnx::FunctionProto& function_;
  int opset_ = kDefaultOpset;
  std::map<std::string, Value> values_;
  std::map<std::string, std::vector<int>> consumers_;
  std::map<std::string, int> output_index_;
  std::vector<std::string> symbols_;
  std::vector<SymbolSource> sources_;
};

}  // namespace pt2onnx::kernels::detail
