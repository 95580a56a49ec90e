// Renaming the symbols of a program (user dim names: --dim-name, the config's "dim_names").
// Done on the imported program, before translation, so that the ONNX dim_params, the range
// constraints metadata and kernel manifests all say the same names.
#pragma once

#include <map>
#include <string>

#include "ir/program.h"
#include "ir/sym_expr.h"

namespace pt2onnx::ir {

// `e` with every symbol that `names` maps replaced by its new name.
SymExpr rename_symbols(const SymExpr& e, const std::map<std::string, std::string>& names);

// Renames in every expression of the program: tensor sizes and strides, SymInt values, the text
// of SymBool/SymFloat values, range constraints, and the same in nested graphs (cond, map...).
// `names` maps old symbol -> new symbol; the caller checks that the result has no collisions.
void rename_symbols(Program& program, const std::map<std::string, std::string>& names);

// Every symbol the program mentions (tensor sizes and strides, SymInt values, range
// constraints, nested graphs), sorted.
std::vector<std::string> program_symbols(const Program& program);

}  // namespace pt2onnx::ir
