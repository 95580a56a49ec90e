// Internals of the code generator shared by codegen.cpp (driver, kernel templates) and
// the op rules (op_rules_*.cpp, through op_rules.h). Not a public interface.
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

class Generator {
 public:
  Generator(const onnx::FunctionProto& function, const std::vector<TensorType>& inputs,
            const std::vector<const onnx::FunctionProto*>& library);
  KernelPlan run();

  // ---- used by the op rules (op_rules_*.cpp) ----
  Value& value(const std::string& name);
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string load(Body& b, const std::string& name, const Idx& idx);
  void define(const std::string& name, Value v);
  [[noreturn]] void unsupported(const onnx::NodeProto& node, const std::string& why) const;
  // Kernels for the non-pointwise ops; each defines `out` as a stored value.
  void emit_gemm(const onnx::NodeProto& node, const std::string& a, const std::string& b, bool trans_a, bool trans_b,
                 double alpha, const std::string& c, double beta, const std::string& out);
  enum class RowOp { kSum, kMean, kMax, kMin, kSoftmax, kLogSoftmax, kLayerNorm };
  void emit_rowwise(const onnx::NodeProto& node, RowOp op, const std::string& x, const std::vector<int64_t>& axes,
                    bool keepdims, const std::string& out, const std::string& scale = {}, const std::string& bias = {},
                    double epsilon = 0);
  void visit(const onnx::NodeProto& node);  // dispatches to the op rule (op_context.cpp)
  // Writes value `name` with a kernel of its own (one thread per element) and redefines it as
  // that stored buffer, so consumers read it instead of recomputing it (pooling windows).
  void materialize(const std::string& name, const std::string& computes);
  int opset() const { return opset_; }

  // Attention as our translator decomposes it (codegen_attention.cpp): node indices of
  // MatMul(q', k') -> [Add(bias) | Where(mask, ., -inf)] -> Softmax(last axis)
  // -> [Where(all -inf row, 0, .)] -> MatMul(., v), each value read only by the next node.
  struct AttentionMatch {
    int scores = -1;      // MatMul(q', k')
    int mask = -1;        // Add or Where on the scores, or -1
    int softmax = -1;
    std::vector<int> tail;  // Equal(-inf), Cast, ReduceMin, Cast, Where(., 0, weights); empty or 5
    int out = -1;         // MatMul(weights, v)
    std::vector<int> deferred() const;  // every node but `out`, in body order
  };

 private:
  struct Dest {
    std::string pointer;
    int storage_dtype;
  };
  Dest destination(const std::string& value_name, int dtype, const std::vector<SymExpr>& shape);
  void define_stored(const std::string& name, int dtype, const std::vector<SymExpr>& shape, const Dest& dest);
  int add_kernel(const std::string& computes, const std::string& dest_pointer, const Scope& scope,
                 const std::string& body_code, int smem_bytes, std::vector<std::string> grid);
  std::string store(const std::string& v, int from_dtype, int storage_dtype) const;
  void emit_copy(const std::string& value_name, const Dest& dest, const std::string& computes);
  // Structural matches (node kinds, operand positions, single consumers); no values needed.
  std::vector<AttentionMatch> find_attention() const;
  // One flash-style kernel for a match, once every operand is defined; false (nothing emitted,
  // nothing defined that a fallback would not redefine) when the values do not prove the form.
  bool emit_attention(const AttentionMatch& m);
  // Whether `add` adds the causal 0/-inf bias of [L, S] to `scores` (keys past a row are -inf).
  bool causal_bias(const onnx::NodeProto& add, const std::string& scores, const SymExpr& L, const SymExpr& S);
  // Visits `node`, inlining it when it calls a function of the library.
  void visit_or_inline(const onnx::NodeProto& node, std::set<std::string>& ops, int depth);
  const onnx::FunctionProto* callee(const onnx::NodeProto& node) const;
  std::vector<const onnx::FunctionProto*> library_;
  int inlined_ = 0;
  // Epilogue fusion: top-level consumers of each value, the node being visited (-1 inside an
  // inlined call) and the nodes already emitted as some GEMM's epilogue.
  std::map<std::string, std::vector<int>> consumers_;
  int current_node_ = -1;
  std::set<int> fused_nodes_;

  const onnx::FunctionProto& function_;
  int opset_ = 18;
  std::map<std::string, Value> values_;
  std::map<std::string, std::pair<std::string, int>> pointer_info_;  // pointer -> (C element type, dtype)
  std::vector<std::string> pointer_order_;
  std::map<std::string, std::string> pointer_binding_kind_;  // pointer -> input/output/buffer
  std::map<std::string, std::string> pointer_binding_name_;
  std::set<std::string> outputs_pending_;  // function outputs not stored yet
  std::map<std::string, int> output_index_;
  std::vector<std::string> symbols_;
  std::string constants_;  // __device__ arrays of constant tensors
  int next_constant_ = 0;
  KernelPlan plan_;
  std::string kernel_code_;
  friend std::string constant_array(Generator& g, const std::vector<double>& data, bool integral);
};

// A __device__ array of the constant's values: long long, or float bit patterns to read with __uint_as_float.
std::string constant_array(Generator& g, const std::vector<double>& data, bool integral);

}  // namespace pt2onnx::kernels::detail
