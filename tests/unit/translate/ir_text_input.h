// Reads a small ir::Program from text, for rule goldens (rule_goldens_test.cpp). One statement a
// line:
//   opset 18                                        the opset to translate at (default 18)
//   input x float32[2, s0]                          a user input; dims are ints or SymInt exprs
//   param w float32[4, 3]                           a parameter (an initializer named by its FQN)
//   y float32[2, 3] = aten.add.Tensor(self=%x, other=%z, alpha=2)
//   a float32[2], b int64[2] = aten.max.dim(self=%x, dim=0)   several tensor outputs
//   [a float32[1], b float32[1]] = aten.split.Tensor(self=%x, split_size=1)  one tensor-list output
//   n symint[s0] = aten.sym_size.int(self=%x, dim=0)   a SymInt output and its value
//   output y, b                                     user outputs
// Argument values: %x a tensor, [%a, %b] a tensor list, 3 an int, 0.5 a float, true/false,
// none, "text" a string, [1, -1] an int list, [0.5, 1.0] a float list, dtype:float32, s0 a SymInt.
#pragma once

#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/dtype_table.h"
#include "ir/program.h"
#include "ir/sym_expr.h"

namespace pt2onnx::translate::testing {

struct TextProgram {
  ir::Program program;
  int opset = 18;
};

namespace ir_text_detail {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

[[noreturn]] inline void fail(std::string_view line, const std::string& why) {
  throw std::runtime_error("IR text: " + why + " in: " + std::string(line));
}

// Splits at top-level commas (outside brackets, parentheses and quotes).
inline std::vector<std::string_view> split_top(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!trim(s.substr(start)).empty()) out.push_back(trim(s.substr(start)));
  return out;
}

inline ir::DType dtype_named(std::string_view name, std::string_view line) {
  for (const ir::DTypeFacts& f : ir::kDTypeTable)
    if (f.torch_name == name) return f.dtype;
  fail(line, "unknown dtype '" + std::string(name) + "'");
}

inline bool is_int(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

inline bool is_float(std::string_view s) {
  if (s.empty() || is_int(s)) return false;
  size_t used = 0;
  try {
    (void)std::stod(std::string(s), &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == s.size();
}

inline ir::Argument value(std::string_view s, std::string_view line) {
  s = trim(s);
  if (s == "none") return ir::NoneArg{};
  if (s == "true" || s == "false") return ir::SymBoolArg{s == "true"};
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return std::string(s.substr(1, s.size() - 2));
  if (s.starts_with("dtype:")) return ir::ScalarTypeArg{dtype_named(s.substr(6), line)};
  if (s.starts_with("%")) return ir::TensorArg{std::string(s.substr(1))};
  if (is_int(s)) return ir::SymIntArg{std::stoll(std::string(s))};
  if (is_float(s)) return ir::SymFloatArg{std::stod(std::string(s))};
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') {
    const std::vector<std::string_view> items = split_top(s.substr(1, s.size() - 2));
    if (!items.empty() && items.front().starts_with("%")) {
      ir::TensorListArg list;
      for (std::string_view item : items) {
        if (!item.starts_with("%")) fail(line, "a tensor list holds only %names");
        list.names.emplace_back(item.substr(1));
      }
      return list;
    }
    bool floats = false;
    for (std::string_view item : items) floats = floats || is_float(item);
    if (floats) {
      ir::SymFloatListArg list;
      for (std::string_view item : items) list.items.push_back(ir::SymFloatArg{std::stod(std::string(item))});
      return list;
    }
    ir::SymIntListArg list;
    for (std::string_view item : items) {
      if (is_int(item)) list.items.push_back(ir::SymIntArg{std::stoll(std::string(item))});
      else list.items.push_back(ir::SymIntArg{std::string(item)});
    }
    return list;
  }
  if (!s.empty() && std::isalpha(static_cast<unsigned char>(s.front()))) return ir::SymIntArg{std::string(s)};
  fail(line, "cannot read value '" + std::string(s) + "'");
}

// "x float32[2, s0]" -> (name, meta); records the meta in the graph.
inline std::string typed_value(ir::Graph& graph, std::string_view s, std::string_view line) {
  s = trim(s);
  const size_t space = s.find(' ');
  const size_t open = s.find('[');
  if (space == std::string_view::npos || open == std::string_view::npos || s.back() != ']')
    fail(line, "expected 'name dtype[dims]'");
  const std::string name(s.substr(0, space));
  ir::TensorMeta meta;
  meta.dtype = dtype_named(trim(s.substr(space + 1, open - space - 1)), line);
  for (std::string_view d : split_top(s.substr(open + 1, s.size() - open - 2))) {
    if (is_int(d)) meta.sizes.push_back(ir::Dim{int64_t{std::stoll(std::string(d))}});
    else {
      const ir::SymExpr expr = ir::parse_sym_expr(std::string(d));
      meta.sizes.push_back(ir::Dim{expr});
      // A symbol of the program: declared once, as export records it in sym_int_values.
      if (std::isalpha(static_cast<unsigned char>(d.front())) && d.find_first_of("*+-/ ") == std::string_view::npos)
        graph.sym_int_values.emplace(std::string(d), ir::Dim{expr});
    }
  }
  graph.tensor_values[name] = meta;
  return name;
}

inline ir::ModuleStack main_module() { return ir::ModuleStack(std::vector<ir::ModuleFrame>{{"L__self__", "", "__main__.Model"}}); }

}  // namespace ir_text_detail

// Reads the statements in `text`; throws std::runtime_error naming the line it cannot read.
inline TextProgram parse_ir_text(std::string_view text) {
  using namespace ir_text_detail;
  TextProgram out;
  ir::Program& p = out.program;
  p.schema_version = {8, 20};
  p.torch_version = "2.15.0";
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;
    if (line.starts_with("opset ")) {
      out.opset = std::stoi(std::string(line.substr(6)));
    } else if (line.starts_with("input ") || line.starts_with("param ")) {
      const std::string name = typed_value(p.graph, line.substr(6), line);
      p.graph.inputs.push_back(ir::TensorArg{name});
      if (line.starts_with("input ")) p.signature.inputs.push_back({ir::InputKind::kUserInput, ir::TensorArg{name}, "", true});
      else p.signature.inputs.push_back({ir::InputKind::kParameter, ir::TensorArg{name}, "model." + name, true});
    } else if (line.starts_with("output ")) {
      for (std::string_view name : split_top(line.substr(7))) {
        p.graph.outputs.push_back(ir::TensorArg{std::string(name)});
        p.signature.outputs.push_back({ir::OutputKind::kUserOutput, ir::TensorArg{std::string(name)}, ""});
      }
    } else {
      const size_t eq = line.find(" = ");
      const size_t open = line.find('(', eq == std::string_view::npos ? 0 : eq);
      if (eq == std::string_view::npos || open == std::string_view::npos || line.back() != ')')
        fail(line, "expected 'outputs = target(name=value, ...)'");
      ir::Node node;
      node.target = std::string(trim(line.substr(eq + 3, open - eq - 3)));
      const std::string_view outputs = trim(line.substr(0, eq));
      if (outputs.front() == '[') {
        ir::TensorListArg list;
        for (std::string_view o : split_top(outputs.substr(1, outputs.size() - 2)))
          list.names.push_back(typed_value(p.graph, o, line));
        node.outputs.push_back(list);
      } else if (outputs.find(" symint[") != std::string_view::npos) {
        const size_t space = outputs.find(' ');
        const std::string name(outputs.substr(0, space));
        const std::string_view expr = outputs.substr(space + 8, outputs.size() - space - 9);
        p.graph.sym_int_values[name] = is_int(expr) ? ir::Dim{int64_t{std::stoll(std::string(expr))}}
                                                    : ir::Dim{ir::parse_sym_expr(std::string(expr))};
        node.outputs.push_back(ir::SymIntArg{name});
        node.name = name;
      } else {
        for (std::string_view o : split_top(outputs)) node.outputs.push_back(ir::TensorArg{typed_value(p.graph, o, line)});
      }
      if (node.name.empty()) {
        const ir::Argument& first = node.outputs.front();
        node.name = std::holds_alternative<ir::TensorArg>(first) ? std::get<ir::TensorArg>(first).name
                                                                 : std::get<ir::TensorListArg>(first).names.front();
      }
      for (std::string_view arg : split_top(line.substr(open + 1, line.size() - open - 2))) {
        const size_t colon = arg.find('=');
        if (colon == std::string_view::npos) fail(line, "argument '" + std::string(arg) + "' has no name=");
        node.inputs.push_back({std::string(trim(arg.substr(0, colon))), value(arg.substr(colon + 1), line)});
      }
      node.module_stack = main_module();
      p.graph.nodes.push_back(std::move(node));
    }
  }
  return out;
}

}  // namespace pt2onnx::translate::testing
