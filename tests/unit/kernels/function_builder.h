// Builds small ONNX FunctionProtos for the kernel tests: named values, one node per call.
#pragma once

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/sym_expr.h"
#include "kernels/codegen.h"

namespace pt2onnx::kernels::testing {

class FunctionBuilder {
 public:
  explicit FunctionBuilder(const std::string& name, int opset = 18) {
    f_.set_name(name);
    f_.set_domain("pt2onnx.hiera");
    auto* op = f_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
  }
  FunctionBuilder& input(const std::string& name) {
    f_.add_input(name);
    return *this;
  }
  FunctionBuilder& output(const std::string& name) {
    f_.add_output(name);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
    onnx::NodeProto* n = f_.add_node();
    n->set_op_type(op);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  // A Constant node holding int64 values (1-D, or a scalar when `scalar`).
  void ints(const std::string& out, const std::vector<int64_t>& values, bool scalar = false) {
    onnx::NodeProto& n = node("Constant", {}, {out});
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    onnx::TensorProto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  void scalar(const std::string& out, float v) {
    onnx::NodeProto& n = node("Constant", {}, {out});
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    onnx::TensorProto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(v);
  }
  const onnx::FunctionProto& get() const { return f_; }

 private:
  onnx::FunctionProto f_;
};

inline void set_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

inline void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

inline void set_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

inline TensorType tensor(int dtype, const std::vector<std::string>& dims) {
  TensorType t;
  t.dtype = dtype;
  for (const auto& d : dims) t.shape.push_back(ir::parse_sym_expr(d));
  return t;
}

// A body that uses every kernel template and most pointwise rules; inputs
//   x [B, 6, 16] (dtype), w [16, 16] (dtype), b [16] (dtype), idx [3] int64;
// outputs: one per template, all of `dtype` except `imax` (int64).
inline onnx::FunctionProto every_template(int dtype) {
  FunctionBuilder f("Every");
  f.input("x").input("w").input("b").input("idx");
  f.node("MatMul", {"x", "w"}, {"mm"});
  auto& gemm = f.node("Gemm", {"w", "w", "b"}, {"gemm"});
  set_int(gemm, "transB", 1);
  set_float(gemm, "alpha", 0.5f);
  f.scalar("half", 0.5f);
  f.node("Mul", {"mm", "half"}, {"scaled"});
  f.node("Sigmoid", {"scaled"}, {"sig"});
  f.node("Mul", {"scaled", "sig"}, {"silu"});
  f.node("Tanh", {"silu"}, {"t"});
  f.node("Erf", {"t"}, {"e"});
  f.node("Relu", {"e"}, {"r"});
  f.node("Exp", {"r"}, {"ex"});
  f.node("Sqrt", {"ex"}, {"sq"});
  f.node("Reciprocal", {"sq"}, {"rec"});
  f.node("Div", {"rec", "ex"}, {"dv"});
  f.node("Sub", {"dv", "b"}, {"sb"});
  f.node("Neg", {"sb"}, {"ng"});
  f.node("Greater", {"ng", "half"}, {"gt"});
  f.node("Where", {"gt", "ng", "half"}, {"wh"});
  f.node("Softmax", {"wh"}, {"softmax"});
  auto& ls = f.node("LogSoftmax", {"mm"}, {"logsoftmax"});
  set_int(ls, "axis", 1);
  f.ints("ax", {-1});
  auto& rs = f.node("ReduceSum", {"mm", "ax"}, {"rsum"});
  set_int(rs, "keepdims", 1);
  f.node("ReduceMean", {"mm", "ax"}, {"rmean"});
  f.node("ReduceMax", {"mm", "ax"}, {"rmax"});
  f.node("ReduceMin", {"mm", "ax"}, {"rmin"});
  auto& ln = f.node("LayerNormalization", {"x", "b", "b"}, {"ln"});
  set_float(ln, "epsilon", 1e-5f);
  auto& tr = f.node("Transpose", {"x"}, {"xt"});
  set_ints(tr, "perm", {0, 2, 1});
  f.ints("shape", {0, -1});
  f.node("Reshape", {"xt", "shape"}, {"flat"});
  f.ints("st", {1});
  f.ints("en", {4});
  f.ints("axes", {1});
  f.node("Slice", {"x", "st", "en", "axes"}, {"sl"});
  auto& cc = f.node("Concat", {"sl", "x"}, {"cat"});
  set_int(cc, "axis", 1);
  auto& ga = f.node("Gather", {"w", "idx"}, {"gat"});
  set_int(ga, "axis", 0);
  auto& cast = f.node("Cast", {"gat"}, {"asint"});
  set_int(cast, "to", onnx::TensorProto::INT64);
  f.ints("ax0", {0});
  f.node("ReduceMax", {"asint", "ax0"}, {"imax"});
  // Causal attention of x with itself, with the all-masked-row guard: the fused attention kernel.
  f.node("MatMul", {"x", "xt"}, {"scores"});
  f.ints("zero", {0}, true);
  f.ints("six", {6}, true);
  f.ints("one", {1}, true);
  f.node("Range", {"zero", "six", "one"}, {"pos"});
  f.node("Unsqueeze", {"pos", "axes"}, {"rows"});
  f.node("LessOrEqual", {"pos", "rows"}, {"allowed"});
  f.scalar("ninf", -INFINITY);
  f.scalar("fzero", 0.0f);
  f.node("Where", {"allowed", "scores", "ninf"}, {"masked"});
  f.node("Softmax", {"masked"}, {"aw"});
  f.node("Equal", {"masked", "ninf"}, {"isninf"});
  auto& c32 = f.node("Cast", {"isninf"}, {"isninf32"});
  set_int(c32, "to", onnx::TensorProto::INT32);
  f.node("ReduceMin", {"isninf32", "ax"}, {"allninf32"});
  auto& cb = f.node("Cast", {"allninf32"}, {"allninf"});
  set_int(cb, "to", onnx::TensorProto::BOOL);
  f.node("Where", {"allninf", "fzero", "aw"}, {"aw0"});
  f.node("MatMul", {"aw0", "x"}, {"attn"});
  for (const char* o : {"mm", "gemm", "softmax", "logsoftmax", "rsum", "rmean", "rmax", "rmin", "ln", "flat", "cat", "imax", "attn"})
    f.output(o);
  (void)dtype;
  return f.get();
}

inline std::vector<TensorType> every_template_inputs(int dtype) {
  return {tensor(dtype, {"B", "6", "16"}), tensor(dtype, {"16", "16"}), tensor(dtype, {"16"}),
          tensor(onnx::TensorProto::INT64, {"3"})};
}

}  // namespace pt2onnx::kernels::testing
