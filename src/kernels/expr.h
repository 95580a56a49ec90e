// Integer expressions of a kernel bundle's manifest (grid extents, sizes, offsets, int args).
//
// Grammar (whitespace ignored): expr := term (('+'|'-') term)*; term := unary (('*'|'//'|'%') unary)*;
// unary := '-' unary | atom; atom := int64 literal | symbol | '(' expr ')' | f '(' expr ',' expr ')'
// with f one of cdiv, min, max, align. Symbols are [A-Za-z_][A-Za-z0-9_]*. Evaluation is in int64;
// overflow, division by zero and unknown symbols throw pt2onnx::Error(kUsage). `//` floors and `%`
// takes the divisor's sign (Python semantics); cdiv(a,b) = ceil(a/b); align(a,b) = cdiv(a,b)*b.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "ir/sym_expr.h"

namespace pt2onnx::kernels {

// Evaluates manifest expression text with the given symbol values.
int64_t eval_expr(std::string_view text, const std::map<std::string, int64_t>& symbols);

// Prints an ir::SymExpr in the manifest grammar; parsing the result with eval_expr gives the same
// value as ir::evaluate for non-negative symbol values.
std::string to_manifest(const ir::SymExpr& e);

// Prints an ir::SymExpr as a CUDA C expression of type long long; symbols are the kernel's
// parameters of the same name. Uses the helpers of the generated prelude (p2_fdiv, p2_cdiv, ...).
std::string to_c(const ir::SymExpr& e);

// ceil(x / 256) * 256 as a SymExpr: the workspace's buffer alignment.
ir::SymExpr sym_align(const ir::SymExpr& x, int64_t alignment);

}  // namespace pt2onnx::kernels
