// Code generation: from one ONNX local function (its body and the types of its inputs) to CUDA C
// kernels plus the launch plan a runtime replays. Correct first:
//  * views (Transpose, Reshape, Flatten, (Un)Squeeze, Slice, Expand, Identity) are index
//    arithmetic, never copies;
//  * pointwise ops (arithmetic, comparisons, activations, casts, Where, Concat, Range, constants)
//    are never materialised on their own: they are evaluated inside the kernel that reads them,
//    so chains of pointwise ops fuse into their consumer (a GEMM's operand loads, a reduction's
//    row loads, or the copy kernel that writes a function output);
//  * MatMul/Gemm run a 64x64x16 tiled SIMT GEMM (batched over grid.z), Softmax/LogSoftmax/
//    Reduce{Sum,Mean,Max,Min}/LayerNormalization a one-block-per-row reduction;
//  * fp16/bf16 are stored as 16-bit and computed in fp32; intermediates live in a float32
//    workspace.
// Shapes stay symbolic (ir::SymExpr over the function's symbols); every symbol is a kernel
// parameter (int64) and is read by the runtime from an input's dimension.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/sym_expr.h"

namespace pt2onnx::kernels {

struct TensorType {
  int dtype = 0;                    // onnx::TensorProto::DataType
  std::vector<ir::SymExpr> shape;
};

// A kernel parameter is a device pointer or a 64-bit symbol value (the manifest's "ptr"/"i64").
enum class ParamType { kPointer, kInt64 };
const char* param_type_name(ParamType type);

struct KernelParam {
  std::string name;
  ParamType type = ParamType::kPointer;
  int bytes = 8;
};

struct Kernel {
  std::string symbol;   // extern "C" entry name
  std::string computes; // what it does, for people: "MatMul -> v39", "copy -> output v57"
  std::vector<KernelParam> params;
  int block = 256;
  int static_smem_hint = 0;  // bytes of __shared__ declared in the source
};

// What a launch argument is bound to; the manifest names each kind ("input", "output", "buffer",
// "i64"), which bundle_launcher reads.
enum class BindingKind { kInput, kOutput, kBuffer, kInt64 };
const char* binding_kind_name(BindingKind kind);

struct ArgBinding {
  BindingKind kind = BindingKind::kInput;
  std::string value;  // function input/output name, buffer name, or a manifest expression
};

struct Launch {
  int kernel = 0;
  std::vector<std::string> grid;  // 3 manifest expressions
  std::vector<ArgBinding> args;   // one per kernel param, in order
};

struct WorkspaceBuffer {
  std::string name;
  std::string holds;   // the function value it stores
  int dtype = 0;       // storage dtype
  std::vector<ir::SymExpr> shape;
  ir::SymExpr offset;
  ir::SymExpr bytes;
};

struct SymbolSource {
  std::string name;
  std::string input;  // function input name
  int axis = 0;
};

// A call of another library function that the plan inlined, with the types of its operands as
// the generator knew them (in this plan's symbols): the callee's own bundle is planned from them.
struct NestedCall {
  std::string domain, function, node;  // node: the calling node's name (or first output)
  std::vector<std::string> inputs, outputs;  // names as the caller's body has them
  std::vector<TensorType> types;       // dtype 0 for a missing optional operand
};

// Which of a function's bundles a plan is: a type called only inside other functions has one per
// distinct input signature of those calls.
struct SignatureIndex {
  int index = 0;
  int count = 1;
};

struct KernelPlan {
  std::string domain, name, overload;  // the ONNX function
  std::string bundle;                  // the bundle's name: `name`, or <name>_s<i> for signature i of several
  SignatureIndex signature;
  std::vector<std::string> input_names, output_names;
  std::vector<TensorType> inputs, outputs;
  std::vector<SymbolSource> symbols;   // sorted by name
  std::vector<std::string> preconditions;  // manifest predicates, e.g. "B <= 65535"
  std::vector<WorkspaceBuffer> buffers;
  ir::SymExpr workspace_bytes;
  std::vector<Kernel> kernels;
  std::vector<Launch> launches;
  std::string source;                  // the whole .cu
  std::vector<std::string> op_types;   // distinct op types of the body, sorted
  std::vector<NestedCall> nested_calls;  // calls inlined from the body, in body order
  bool tf32 = false;                   // some fp32 GEMM takes TF32 operands (--kernel-tf32)
};

// Choices that change the generated kernels.
struct GenerateOptions {
  std::string bundle_name;  // the bundle's name (kernel symbols, files); empty: the function's
  bool tf32 = false;        // fp32 GEMMs on tensor cores with TF32 operands (sm_80+)
};

// Throws Error(kUnsupported) naming the op (and node) when the body holds something the generator
// cannot handle, or the inputs have a dtype it does not compute (supported: float32, float16,
// bfloat16, int64, int32, bool). Calls of other functions of `library` (nested --hiera types) are
// inlined.
KernelPlan generate_kernels(const onnx::FunctionProto& function, const std::vector<TensorType>& inputs,
                            const std::vector<const onnx::FunctionProto*>& library = {},
                            const GenerateOptions& options = {});

}  // namespace pt2onnx::kernels
