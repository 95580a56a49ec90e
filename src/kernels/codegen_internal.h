// Internals of the code generator: the kernel-text building blocks (Body, Scope), what a value is
// (Value), and index/dtype helpers, shared by the value graph, buffer plan, renderer, the
// emitters and the op rules. Not a public interface.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernels/codegen.h"

namespace pt2onnx::kernels::detail {

using ir::SymExpr;
using Idx = std::vector<std::string>;  // one C expression (long long) per dimension

// Temporaries and pointers of one kernel, shared by its nested code blocks.
struct Scope {
  int next_tmp = 0;
  std::set<std::string> pointers;
};

// A block of generated statements. Loads are memoised per block (a child block starts with its
// parent's memo, so values computed outside a loop are reused inside it).
struct Body {
  Scope* scope = nullptr;
  std::string indent = "  ";
  std::string code;
  std::map<std::string, std::string> memo;

  // An empty body of `scope`, indented `depth` levels (a template hole at that depth).
  static Body at_depth(Scope& scope, int depth) {
    Body b;
    b.scope = &scope;
    b.indent = std::string(2 * static_cast<size_t>(depth), ' ');
    return b;
  }
  std::string let(const std::string& ctype, const std::string& expr);
  Body child(const std::string& more_indent = "  ") const;
  void line(const std::string& text) { code += indent + text + "\n"; }
};

class Generator;
using Loader = std::function<std::string(Body&, const Idx&)>;

struct Value {
  int dtype = 0;
  std::vector<SymExpr> shape;
  std::optional<std::vector<SymExpr>> ints;    // known contents of small integer tensors
  std::optional<std::vector<double>> floats;   // known contents of small float constants
  Loader load;                                 // C expression (compute type) at an index
  std::string pointer;                         // set when the value is stored in a buffer
  // Set when the value is a buffer of its own dtype or a permutation of one (Transpose): element
  // idx is strided_pointer[sum idx[i] * strides[i]]; lets a GEMM copy tiles with cp.async.
  std::string strided_pointer;
  std::vector<SymExpr> strides;
};

// Helpers (codegen.cpp).
bool is_float_dtype(int dtype);
bool is_int_dtype(int dtype);
std::string compute_type(int dtype);                               // float / long long / bool
std::string convert(const std::string& v, int from, int to);       // between compute types
SymExpr product(const std::vector<SymExpr>& dims, size_t begin = 0, size_t end = SIZE_MAX);
bool same_dim(const SymExpr& a, const SymExpr& b);
bool is_const(const SymExpr& e, int64_t v);
std::optional<int64_t> const_value(const SymExpr& e);
std::string linear_index(const Idx& idx, const std::vector<SymExpr>& shape);
Idx delinearize(Body& b, const std::string& linear, const std::vector<SymExpr>& shape);
Idx broadcast_index(const Idx& out_idx, const std::vector<SymExpr>& out_shape, const std::vector<SymExpr>& in_shape);
std::string float_literal(double v);

}  // namespace pt2onnx::kernels::detail
