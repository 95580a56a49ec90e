// The code generator's registry: ONNX op type -> the rule that defines a node's outputs as values
// (views, pointwise expressions, known small constants) or as buffers written by a kernel
// (GEMM, row reductions). Families live in op_rules_*.cpp with one register function each;
// pointwise ops are rows of one table (op_rules_pointwise.cpp), which also says which of them a
// GEMM may fuse as its epilogue. Filled explicitly by builtin_op_rules(), never by static
// initialisers.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/generator.h"

namespace pt2onnx::kernels::detail {

// What a rule sees of the node being visited: its operands, their known contents, its
// attributes, and the ways it may define its output.
class OpContext {
 public:
  OpContext(Generator& g, const onnx::NodeProto& node);
  Generator& gen;
  const onnx::NodeProto& node;
  const std::string out;  // the node's first output

  const std::string& op() const { return node.op_type(); }
  std::string input(int i) const { return i < node.input_size() ? node.input(i) : std::string(); }
  std::vector<std::string> inputs() const { return {node.input().begin(), node.input().end()}; }
  Value& value(const std::string& name) { return gen.value(name); }
  [[noreturn]] void unsupported(const std::string& why) const { gen.unsupported(node, why); }

  const onnx::AttributeProto* attr(const char* name) const;
  int64_t attr_int(const char* name, int64_t fallback) const;
  float attr_float(const char* name, float fallback) const;
  std::string attr_string(const char* name, const std::string& fallback) const;

  // Integer contents of input i that must be known (axes, perm, shapes); refused otherwise.
  std::vector<SymExpr> known_ints(int i, const char* what);
  std::vector<int64_t> const_ints(int i, const char* what);
  // Axes from input `input_index` when present, else from attribute `attr_name`.
  std::optional<std::vector<int64_t>> axes_from(int input_index, const char* attr_name);
  size_t norm_axis(int64_t a, size_t rank) const;
  // A scalar float constant's value.
  std::optional<double> known_float(const std::string& name);

  // Defines `out` as a view of `src`: out index -> src index.
  void define_view(const std::string& src, std::vector<SymExpr> shape, std::function<Idx(Body&, const Idx&)> map,
                   std::optional<std::vector<SymExpr>> ints = std::nullopt);
  // Defines `out` as a pointwise op over broadcast inputs; `expr` gets the operands' C
  // expressions (compute types).
  void pointwise(const std::vector<std::string>& ins, int out_dtype,
                 std::function<std::string(const std::vector<std::string>&)> expr);
  std::vector<SymExpr> broadcast_shapes(const std::vector<std::vector<SymExpr>>& shapes) const;
};

using OpRule = void (*)(OpContext&);

struct OpRuleEntry {
  OpRule rule = nullptr;
  bool epilogue = false;      // a GEMM may compute it before its store
  bool multi_output = false;  // outputs past the first may be named (the rule refuses them)
};

class OpRuleTable {
 public:
  void add(std::string_view op, OpRule rule, bool epilogue = false, bool multi_output = false);
  const OpRuleEntry* find(std::string_view op) const;
  bool epilogue(std::string_view op) const {
    const auto* e = find(op);
    return e && e->epilogue;
  }

 private:
  std::map<std::string, OpRuleEntry, std::less<>> rules_;
};

const OpRuleTable& builtin_op_rules();

void register_constant_op_rules(OpRuleTable& t);   // Constant, Shape, ConstantOfShape, Range
void register_view_op_rules(OpRuleTable& t);       // Identity, Transpose, Reshape, Tile, Slice, the Gathers, Trilu, Concat, ...
void register_kernel_op_rules(OpRuleTable& t);     // MatMul, Gemm, softmax, reductions, LayerNormalization
void register_pointwise_op_rules(OpRuleTable& t);  // the pointwise table
void register_conv_pool_op_rules(OpRuleTable& t);  // Conv (implicit GEMM), pooling, BatchNormalization
void register_scan_op_rules(OpRuleTable& t);       // CumSum, ArgMax/ArgMin, TopK
void register_pad_op_rules(OpRuleTable& t);        // Pad
void register_resize_op_rules(OpRuleTable& t);     // Resize (torch's nearest and linear forms)
void register_scatter_op_rules(OpRuleTable& t);    // ScatterElements, ScatterND

// Shared by the families (op_context.cpp).
Loader known_ints_loader(const std::vector<SymExpr>& ints, const std::vector<SymExpr>& shape);
// An index read from `indices` at `at`, a negative one counted from the end of a dimension whose
// length is the C expression `dim_c` (the gathers and scatters).
std::string wrapped_index(Generator& g, Body& b, const std::string& indices, const Idx& at, const std::string& dim_c);
// A fresh temporary's name in `b`'s kernel.
std::string fresh_temp(Body& b);
// Emits `for (long long t = first; t < end; ++t) { ... }`, the body written by `fill(body, t)`.
void emit_loop(Body& b, const std::string& first, const std::string& end,
               const std::function<void(Body&, const std::string&)>& fill);
// Emits `if (condition) { ... }`, the body written by `fill(body)`.
void emit_if(Body& b, const std::string& condition, const std::function<void(Body&)>& fill);
// `src` at `at` where the C condition holds, else `otherwise` (a value of `dtype`'s compute type):
// the element is read only inside the condition (Pad's border, Trilu's other triangle).
std::string guarded_load(Generator& g, Body& b, const std::string& src, const Idx& at, const std::string& condition,
                         const std::string& otherwise, int dtype);
SymExpr divide_exact(const SymExpr& num, const SymExpr& den);

}  // namespace pt2onnx::kernels::detail
