// TensorMeta and the symbolic values (SymInt, SymBool, SymFloat) of the export schema.
#pragma once

#include <string>

#include "import/json_node.h"
#include "ir/program.h"

namespace pt2onnx::import {

// TensorMeta, or the 2.1 TensorValue wrapper {"meta": TensorMeta}.
ir::TensorMeta read_tensor_meta(const JsonNode& node);

// SymInt {as_expr: SymExpr | as_int}. An expression that folds to a constant is static. An
// expression outside the integer grammar (e.g. FloorToInt of a float) becomes an opaque symbol
// named by its text: the size is then unknown rather than wrong, and the import goes on.
ir::Dim read_dim(const JsonNode& node);
// The Dim of an as_expr's expression text, as read_dim makes it; throws LimitError for a text
// too long or too deep (read_dim names the field).
ir::Dim dim_of_expr_text(const std::string& text);

// SymBool {as_expr | as_bool} and SymFloat {as_expr | as_float} as expression text ("True",
// "Eq(s0, 4)", "0.5").
std::string read_sym_bool_text(const JsonNode& node);
std::string read_sym_float_text(const JsonNode& node);

}  // namespace pt2onnx::import
