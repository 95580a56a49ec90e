// The graph part of an ir::Program as text, every field the readers fill, so that two imports of
// one file can be held to the same IR by comparing strings (and a difference reads as a diff).
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ir/program.h"
#include "ir/sym_expr.h"

namespace pt2onnx::test {

inline std::string dim_text(const ir::Dim& d) { return d.is_static() ? std::to_string(d.as_int()) : ir::to_string(d.as_expr()); }

template <typename T>
std::string scalar_text(const T& v) {
  std::ostringstream out;
  std::visit([&](const auto& x) { out << x; }, v.v);
  return out.str();
}

inline std::string argument_text(const ir::Argument& arg);

inline std::string graph_text(const ir::Graph& graph);

inline std::string argument_text(const ir::Argument& arg) {
  std::ostringstream out;
  out << "#" << arg.index() << ":";
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, ir::TensorArg> || std::is_same_v<T, ir::TokenArg>) {
          out << a.name;
        } else if constexpr (std::is_same_v<T, ir::TensorListArg>) {
          for (const auto& n : a.names) out << n << ",";
        } else if constexpr (std::is_same_v<T, ir::OptionalTensorListArg>) {
          for (const auto& n : a.names) out << (n ? *n : "<none>") << ",";
        } else if constexpr (std::is_same_v<T, ir::SymIntArg> || std::is_same_v<T, ir::SymFloatArg> ||
                             std::is_same_v<T, ir::SymBoolArg>) {
          out << a.v.index() << "=" << scalar_text(a);
        } else if constexpr (std::is_same_v<T, ir::SymIntListArg> || std::is_same_v<T, ir::SymFloatListArg> ||
                             std::is_same_v<T, ir::SymBoolListArg>) {
          for (const auto& x : a.items) out << x.v.index() << "=" << scalar_text(x) << ",";
        } else if constexpr (std::is_same_v<T, std::string>) {
          out << a;
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          for (const auto& s : a) out << s << ",";
        } else if constexpr (std::is_same_v<T, ir::ScalarTypeArg>) {
          out << static_cast<int>(a.dtype);
        } else if constexpr (std::is_same_v<T, ir::MemoryFormatArg>) {
          out << static_cast<int>(a.format);
        } else if constexpr (std::is_same_v<T, ir::LayoutArg>) {
          out << static_cast<int>(a.layout);
        } else if constexpr (std::is_same_v<T, ir::DeviceArg>) {
          out << a.type << ":" << (a.index ? std::to_string(*a.index) : "-");
        } else if constexpr (std::is_same_v<T, ir::GraphArg>) {
          out << a.name << "{" << (a.graph ? graph_text(*a.graph) : "") << "}";
        } else if constexpr (std::is_same_v<T, ir::CustomObjArg>) {
          out << a.name << "/" << a.class_fqn;
        } else if constexpr (std::is_same_v<T, ir::OperatorArg>) {
          out << a.target;
        } else if constexpr (std::is_same_v<T, ir::ComplexArg>) {
          out << a.real << "," << a.imag;
        } else if constexpr (std::is_same_v<T, ir::NestedTensorListArg>) {
          for (const auto& l : a.names) {
            for (const auto& n : l) out << n << ",";
            out << ";";
          }
        } else if constexpr (std::is_same_v<T, ir::IntListListArg> || std::is_same_v<T, ir::FloatListListArg>) {
          for (const auto& l : a.lists) {
            for (const auto& x : l) out << x << ",";
            out << ";";
          }
        } else if constexpr (std::is_same_v<T, ir::StringToArgumentArg>) {
          for (const auto& e : a.entries) out << e.name << "=" << argument_text(e.arg) << ",";
        }
      },
      arg);
  return out.str();
}

inline std::string graph_text(const ir::Graph& graph) {
  std::ostringstream out;
  for (const auto& a : graph.inputs) out << "in " << argument_text(a) << "\n";
  for (const auto& a : graph.outputs) out << "out " << argument_text(a) << "\n";
  for (const ir::Node& n : graph.nodes) {
    out << "node " << n.name << " " << n.target << "\n";
    for (const auto& in : n.inputs) out << "  arg " << in.name << (in.keyword ? " kw " : " ") << argument_text(in.arg) << "\n";
    for (const auto& o : n.outputs) out << "  out " << argument_text(o) << "\n";
    for (const auto& f : n.module_stack) out << "  module " << f.key << "|" << f.path << "|" << f.type << "\n";
    for (const auto& [key, text] : n.metadata) out << "  meta " << key << "=" << *text << "\n";
  }
  // By name: the table keeps the order values were added in, which differs between readers.
  std::vector<const std::pair<std::string, ir::TensorMeta>*> values;
  for (const auto& entry : graph.tensor_values) values.push_back(&entry);
  std::sort(values.begin(), values.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : values) {
    const auto& [name, meta] = *entry;
    out << "value " << name << " " << static_cast<int>(meta.dtype) << " " << meta.device << " " << meta.requires_grad << " [";
    for (const auto& d : meta.sizes) out << dim_text(d) << ",";
    out << "] [";
    for (const auto& d : meta.strides) out << dim_text(d) << ",";
    out << "]\n";
  }
  for (const auto& [name, d] : graph.sym_int_values) out << "sym_int " << name << "=" << dim_text(d) << "\n";
  for (const auto& [name, t] : graph.sym_bool_values) out << "sym_bool " << name << "=" << t << "\n";
  for (const auto& [name, t] : graph.sym_float_values) out << "sym_float " << name << "=" << t << "\n";
  out << "single " << graph.is_single_tensor_return << "\n";
  return out.str();
}

}  // namespace pt2onnx::test
