// Integer expressions over symbolic sizes ("s0", "2*s0 + 1", srepr "Mul(Integer(2), Symbol('s0'))").
// Shared, immutable trees: cheap to copy, compared structurally.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pt2onnx::ir {

struct SymNode;
using SymExpr = std::shared_ptr<const SymNode>;

enum class SymOp {
  kInt,       // value
  kSymbol,    // name
  kAdd,       // n-ary sum
  kMul,       // n-ary product
  kFloorDiv,  // a // b
  kMod,       // a % b (Python semantics; also sympy Mod / PythonMod)
  kPow,       // a ** b, b a non-negative integer constant
  kMax,
  kMin,
  kCeilDiv,   // ceil(a / b)
  kNeg,
};

struct SymNode {
  SymOp op;
  int64_t value = 0;       // kInt
  std::string name;        // kSymbol
  std::vector<SymExpr> args;
};

SymExpr sym_int(int64_t v);
SymExpr sym_symbol(std::string name);
SymExpr sym_apply(SymOp op, std::vector<SymExpr> args);

// Parses both printed forms that exporters write (str(expr) and sympy.srepr). Throws
// pt2onnx::Error(kArchive) naming the text on anything else (e.g. a relation like Eq(...)).
SymExpr parse_sym_expr(const std::string& text);
// Canonical text, e.g. "2*s0 + 1"; used for dim_param names and structural keys.
std::string to_string(const SymExpr& e);
// Evaluates with the given symbol values; nullopt when a symbol is missing.
std::optional<int64_t> evaluate(const SymExpr& e, const std::map<std::string, int64_t>& symbols);
// Symbols that occur in the expression, sorted.
std::vector<std::string> free_symbols(const SymExpr& e);

}  // namespace pt2onnx::ir
