// Builds small ir::Programs by hand for translation tests, and reads back what a translation made.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/program.h"
#include "ir/sym_expr.h"

namespace pt2onnx::translate::testing {

// Argument shorthands.
inline ir::Argument tensor(std::string name) { return ir::TensorArg{std::move(name)}; }
inline ir::Argument integer(int64_t v) { return ir::SymIntArg{v}; }
inline ir::Argument sym(std::string name) { return ir::SymIntArg{std::move(name)}; }
inline ir::Argument floating(double v) { return ir::SymFloatArg{v}; }
inline ir::Argument boolean(bool v) { return ir::SymBoolArg{v}; }
inline ir::Argument none() { return ir::NoneArg{}; }
inline ir::Argument str(std::string s) { return ir::Argument(std::move(s)); }
inline ir::Argument dtype(ir::DType t) { return ir::ScalarTypeArg{t}; }
inline ir::Argument ints(std::vector<int64_t> v) {
  ir::SymIntListArg list;
  for (int64_t x : v) list.items.push_back(ir::SymIntArg{x});
  return list;
}
inline ir::Argument sym_ints(std::vector<ir::SymIntArg> items) { return ir::SymIntListArg{std::move(items)}; }
inline ir::Argument tensors(std::vector<std::string> names) { return ir::TensorListArg{std::move(names)}; }

// A dimension: a number, or a symbolic expression in either printed form ("s0", "2*s0").
struct D {
  ir::Dim dim;
  D(int v) : dim{int64_t{v}} {}
  D(const char* expr) : dim{ir::parse_sym_expr(expr)} {}
};

class ProgramBuilder {
 public:
  ProgramBuilder() {
    program_.schema_version = {8, 20};
    program_.torch_version = "2.15.0";
  }

  ProgramBuilder& value(const std::string& name, ir::DType dtype, const std::vector<D>& sizes) {
    ir::TensorMeta meta;
    meta.dtype = dtype;
    for (const D& d : sizes) meta.sizes.push_back(d.dim);
    program_.graph.tensor_values[name] = meta;
    return *this;
  }

  ProgramBuilder& user_input(const std::string& name, ir::DType dtype, const std::vector<D>& sizes) {
    value(name, dtype, sizes);
    program_.graph.inputs.push_back(tensor(name));
    program_.signature.inputs.push_back({ir::InputKind::kUserInput, tensor(name), "", true});
    return *this;
  }

  ProgramBuilder& weight(ir::InputKind kind, const std::string& name, const std::string& fqn, ir::DType dtype,
                         const std::vector<D>& sizes, bool persistent = true) {
    value(name, dtype, sizes);
    program_.graph.inputs.push_back(tensor(name));
    program_.signature.inputs.push_back({kind, tensor(name), fqn, persistent});
    return *this;
  }
  ProgramBuilder& parameter(const std::string& name, const std::string& fqn, const std::vector<D>& sizes) {
    return weight(ir::InputKind::kParameter, name, fqn, ir::DType::kFloat32, sizes);
  }

  // Adds a node whose single tensor output `name` has the given meta.
  ProgramBuilder& op(const std::string& name, const std::string& target, std::vector<ir::NamedArgument> inputs,
                     ir::DType dtype, const std::vector<D>& sizes, const std::string& module_path = "",
                     const std::string& module_type = "") {
    value(name, dtype, sizes);
    return node(name, target, std::move(inputs), {tensor(name)}, module_path, module_type);
  }

  // Adds a node with the given outputs (their metas are the caller's business).
  ProgramBuilder& node(const std::string& name, const std::string& target, std::vector<ir::NamedArgument> inputs,
                       std::vector<ir::Argument> outputs, const std::string& module_path = "",
                       const std::string& module_type = "") {
    ir::Node n;
    n.name = name;
    n.target = target;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    std::vector<ir::ModuleFrame> frames{{"L__self__", "", "__main__.Model"}};
    if (!module_path.empty()) frames.push_back({"L__self___" + module_path, module_path, module_type});
    n.module_stack = std::move(frames);
    program_.graph.nodes.push_back(std::move(n));
    return *this;
  }

  ProgramBuilder& sym_value(const std::string& name, const char* expr) {
    program_.graph.sym_int_values[name] = ir::Dim{ir::parse_sym_expr(expr)};
    return *this;
  }

  ProgramBuilder& output(const std::string& name) {
    program_.graph.outputs.push_back(tensor(name));
    program_.signature.outputs.push_back({ir::OutputKind::kUserOutput, tensor(name), ""});
    return *this;
  }

  ProgramBuilder& buffer_mutation(const std::string& name, const std::string& fqn) {
    program_.graph.outputs.push_back(tensor(name));
    program_.signature.outputs.push_back({ir::OutputKind::kBufferMutation, tensor(name), fqn});
    return *this;
  }

  const ir::Program& program() const { return program_; }

 private:
  ir::Program program_;
};

// ---- reading results --------------------------------------------------------------------------

inline std::vector<std::string> op_types(const onnx::ModelProto& model, bool skip_constants = true) {
  std::vector<std::string> out;
  for (const auto& n : model.graph().node())
    if (!skip_constants || n.op_type() != "Constant") out.push_back(n.op_type());
  return out;
}

inline const onnx::NodeProto* find_op(const onnx::ModelProto& model, const std::string& op_type, int nth = 0) {
  for (const auto& n : model.graph().node())
    if (n.op_type() == op_type && nth-- == 0) return &n;
  return nullptr;
}

inline const onnx::NodeProto* producer(const onnx::ModelProto& model, const std::string& value) {
  for (const auto& n : model.graph().node())
    for (const auto& out : n.output())
      if (out == value) return &n;
  return nullptr;
}

inline const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

inline std::vector<int64_t> constant_ints(const onnx::ModelProto& model, const std::string& value) {
  const onnx::NodeProto* n = producer(model, value);
  if (!n || n->op_type() != "Constant") return {};
  const onnx::TensorProto& t = n->attribute(0).t();
  return {t.int64_data().begin(), t.int64_data().end()};
}

inline std::vector<std::string> dims_of(const onnx::ValueInfoProto& info) {
  std::vector<std::string> out;
  for (const auto& d : info.type().tensor_type().shape().dim())
    out.push_back(d.has_dim_param() ? d.dim_param() : std::to_string(d.dim_value()));
  return out;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace pt2onnx::translate::testing
