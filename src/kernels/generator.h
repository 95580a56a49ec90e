// The generator of one bundle: walks the function body in order, lets the op rules define each
// node's values in the value graph, places stored values through the buffer plan, and emits
// kernels (copy, tiled GEMM, row reductions, fused attention) through the renderer. It owns the
// three and what ties them: epilogue fusion, attention matching, inlining of nested calls, the
// manifest's preconditions.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernels/buffer_plan.h"
#include "kernels/codegen_internal.h"
#include "kernels/renderer.h"
#include "kernels/value_graph.h"

namespace pt2onnx::kernels::detail {

class Generator {
 public:
  Generator(const onnx::FunctionProto& function, const std::vector<TensorType>& inputs,
            const std::vector<const onnx::FunctionProto*>& library, const GenerateOptions& options);
  KernelPlan run();

  // ---- used by the op rules (op_rules_*.cpp) ----
  Value& value(const std::string& name) { return graph_.value(name); }
  bool has(const std::string& name) const { return graph_.has(name); }
  std::string load(Body& b, const std::string& name, const Idx& idx) { return graph_.load(b, name, idx); }
  void define(const std::string& name, Value v) { graph_.define(name, std::move(v)); }
  int opset() const { return graph_.opset(); }
  Renderer& renderer() { return renderer_; }
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
  // Defines `name` as stored at `dest` (a plain load; strided when stored in its own dtype).
  void define_stored(const std::string& name, int dtype, const std::vector<SymExpr>& shape, const Dest& dest);
  int add_kernel(const std::string& computes, const std::string& dest_pointer, const Scope& scope,
                 const std::string& body_code, int smem_bytes, std::vector<std::string> grid) {
    return renderer_.add_kernel(computes, dest_pointer, scope, body_code, smem_bytes, std::move(grid));
  }
  void emit_copy(const std::string& value_name, const Dest& dest, const std::string& computes);
  // emit_gemm's steps (codegen_gemm.cpp): the operands' logical shapes; the pointwise chain fused
  // as its epilogue (`last` its final value); a cp.async tile copy of an operand.
  struct GemmShape;
  struct GemmAsync;
  GemmShape gemm_shape(const onnx::NodeProto& node, const Value& va, const Value& vb, bool trans_a, bool trans_b) const;
  std::vector<int> gemm_epilogue(const std::string& out, int dtype, const std::vector<SymExpr>& out_shape, std::string& last);
  std::string gemm_async_copy(Scope& scope, const GemmAsync& copy, const Value& v, const Idx& idx, bool is_a, bool trans,
                              const std::string& tile) const;
  // Redefines values that exist only inside a fused kernel (`into`: "a GEMM epilogue") so that a
  // later read fails as the internal error it would be.
  void hide_fused(const std::vector<std::string>& names, const std::string& into);
  // Structural matches (node kinds, operand positions, single consumers); no values needed.
  std::vector<AttentionMatch> find_attention() const;
  // One flash-style kernel for a match, once every operand is defined; false (nothing emitted,
  // nothing defined that a fallback would not redefine) when the values do not prove the form.
  bool emit_attention(const AttentionMatch& m);
  // emit_attention's steps (codegen_attention.cpp), each nullopt when the values do not prove the
  // form: the operands' shapes; the scores (and mask) defined as values read inside the kernel,
  // giving the masked scores' name; the all-masked-row guard (true: present and proven).
  struct AttentionShape;
  std::optional<AttentionShape> attention_shape(const AttentionMatch& m);
  std::optional<std::string> define_attention_mask(const AttentionMatch& m, const AttentionShape& shape);
  std::optional<bool> attention_guard(const AttentionMatch& m, size_t scores_rank);
  // Whether `add` adds the causal 0/-inf bias of [L, S] to `scores` (keys past a row are -inf).
  bool causal_bias(const onnx::NodeProto& add, const std::string& scores, const SymExpr& L, const SymExpr& S);
  // Visits `node`, inlining it when it calls a function of the library.
  void visit_or_inline(const onnx::NodeProto& node, std::set<std::string>& ops, int depth);
  const onnx::FunctionProto* callee(const onnx::NodeProto& node) const;

  const onnx::FunctionProto& function_;
  GenerateOptions options_;
  std::vector<TensorType> inputs_;
  ValueGraph graph_;
  BufferPlan buffers_;
  Renderer renderer_;
  std::vector<const onnx::FunctionProto*> library_;
  int inlined_ = 0;
  // Epilogue fusion: the node being visited (-1 inside an inlined call) and the nodes already
  // emitted as some GEMM's epilogue.
  int current_node_ = -1;
  std::set<int> fused_nodes_;
  std::vector<std::string> preconditions_;  // manifest predicates, e.g. "B <= 65535"
  std::vector<NestedCall> nested_calls_;
  bool used_tf32_ = false;
};

}  // namespace pt2onnx::kernels::detail
