// The in-memory exported program: what the .pt2 JSON says, with no JSON types left. Built by
// import/, read by translate/ and hierarchy/. Names are FX names; targets drop "torch.ops.".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/named_table.h"
#include "ir/dtype.h"
#include "ir/module_stack.h"
#include "ir/sym_expr.h"

namespace pt2onnx::ir {

// A size, stride or SymInt value: a known integer or an expression over symbols.
struct Dim {
  std::variant<int64_t, SymExpr> value;
  bool is_static() const { return std::holds_alternative<int64_t>(value); }
  int64_t as_int() const { return std::get<int64_t>(value); }
  const SymExpr& as_expr() const { return std::get<SymExpr>(value); }
};

struct TensorMeta {
  DType dtype = DType::kUnknown;
  std::vector<Dim> sizes;
  std::vector<Dim> strides;
  std::string device = "cpu";  // Device.type, e.g. "cpu", "cuda", "meta"
  bool requires_grad = false;
};

// Value types by FX name (common/named_table.h: hashed, in the order added).
using TensorValues = NamedTable<TensorMeta>;

enum class MemoryFormat { kUnknown = 0, kContiguous = 1, kChannelsLast = 2, kChannelsLast3d = 3, kPreserve = 4 };
enum class Layout { kUnknown = 0, kSparseCoo = 1, kSparseCsr = 2, kSparseCsc = 3, kSparseBsr = 4, kSparseBsc = 5, kMkldnn = 6, kStrided = 7 };

struct Graph;

// A SymInt/SymFloat/SymBool argument: a reference to a symbolic value, or a constant.
struct SymIntArg { std::variant<int64_t, std::string> v; };   // string = value name
struct SymFloatArg { std::variant<double, std::string> v; };
struct SymBoolArg { std::variant<bool, std::string> v; };

struct NoneArg {};
struct TensorArg { std::string name; };
struct TensorListArg { std::vector<std::string> names; };
struct OptionalTensorListArg { std::vector<std::optional<std::string>> names; };
struct SymIntListArg { std::vector<SymIntArg> items; };
struct SymFloatListArg { std::vector<SymFloatArg> items; };
struct SymBoolListArg { std::vector<SymBoolArg> items; };
struct ScalarTypeArg { DType dtype; };
struct MemoryFormatArg { MemoryFormat format; };
struct LayoutArg { Layout layout; };
struct DeviceArg { std::string type; std::optional<int64_t> index; };
struct GraphArg { std::string name; std::shared_ptr<const Graph> graph; };
struct CustomObjArg { std::string name; std::string class_fqn; };
struct OperatorArg { std::string target; };
struct ComplexArg { double real; double imag; };
struct TokenArg { std::string name; };
struct NamedArgument;
struct NestedTensorListArg { std::vector<std::vector<std::string>> names; };  // as_nested_tensors
struct IntListListArg { std::vector<std::vector<int64_t>> lists; };            // as_int_lists
struct FloatListListArg { std::vector<std::vector<double>> lists; };           // as_float_lists
struct StringToArgumentArg { std::vector<NamedArgument> entries; };            // as_string_to_argument; name = key

// One value passed to or returned from a node. Ints and int lists are SymIntArg/SymIntListArg
// (a plain int is the constant case), floats likewise.
using Argument = std::variant<NoneArg, TensorArg, TensorListArg, OptionalTensorListArg, SymIntArg,
                              SymIntListArg, SymFloatArg, SymFloatListArg, SymBoolArg, SymBoolListArg,
                              std::string, std::vector<std::string>, ScalarTypeArg, MemoryFormatArg,
                              LayoutArg, DeviceArg, GraphArg, CustomObjArg, OperatorArg, ComplexArg,
                              TokenArg, NestedTensorListArg, IntListListArg, FloatListListArg,
                              StringToArgumentArg>;

struct NamedArgument {
  std::string name;  // schema argument name; "" for HOP positionals
  Argument arg;
  bool keyword = false;
};

// Text that many nodes carry alike (one stack trace per source line, shared by every block made
// from it): held once, and copied with the node as a pointer.
using SharedText = std::shared_ptr<const std::string>;

struct Node {
  std::string name;    // FX name of the node (the first output's name when the file has none)
  std::string target;  // "aten.linear.default", "higher_order.cond", "_operator.add", ...
  std::vector<NamedArgument> inputs;
  std::vector<Argument> outputs;
  ModuleStack module_stack;
  std::map<std::string, SharedText> metadata;  // other metadata (stack_trace, torch_fn, ...), never null

  // The input named `name`, or nullptr.
  const Argument* input(const std::string& name) const;
};

struct Graph {
  std::vector<Argument> inputs;
  std::vector<Argument> outputs;
  std::vector<Node> nodes;
  TensorValues tensor_values;  // in the file's order
  std::map<std::string, Dim> sym_int_values;
  std::map<std::string, std::string> sym_bool_values;   // expression text
  std::map<std::string, std::string> sym_float_values;  // expression text
  bool is_single_tensor_return = false;
};

enum class InputKind { kUserInput, kParameter, kBuffer, kTensorConstant, kCustomObj, kToken, kConstantInput };
enum class OutputKind { kUserOutput, kLossOutput, kBufferMutation, kGradientToParameter, kGradientToUserInput,
                        kUserInputMutation, kToken, kParameterMutation };

// A parameter, buffer or tensor constant: an input the archive's state binds, not the caller.
inline bool is_weight(InputKind kind) {
  return kind == InputKind::kParameter || kind == InputKind::kBuffer || kind == InputKind::kTensorConstant;
}

struct InputSpec {
  InputKind kind;
  Argument arg;        // the graph input it binds (for kConstantInput, the constant value)
  std::string target;  // FQN of the parameter/buffer/constant/custom object; name for constant_input
  bool persistent = true;  // buffers only
};

struct OutputSpec {
  OutputKind kind;
  Argument arg;
  std::string target;  // buffer/parameter/user-input name for mutations and gradients
};

struct GraphSignature {
  std::vector<InputSpec> inputs;
  std::vector<OutputSpec> outputs;
};

struct ModuleCallSignature {
  std::vector<Argument> inputs;
  std::vector<Argument> outputs;
  std::string in_spec;
  std::string out_spec;
  std::vector<std::string> forward_arg_names;
};

struct ModuleCallEntry {
  std::string fqn;
  std::optional<ModuleCallSignature> signature;
};

struct RangeConstraint {
  std::optional<int64_t> min;  // nullopt = unbounded
  std::optional<int64_t> max;
};

struct SchemaVersion {
  int64_t major = 0;
  int64_t minor = 0;
};

struct Program {
  Graph graph;
  GraphSignature signature;
  std::vector<ModuleCallEntry> module_call_graph;
  std::map<std::string, RangeConstraint> range_constraints;
  std::map<std::string, int64_t> opset_version;
  SchemaVersion schema_version;
  std::string torch_version;  // "" when the file does not say
  std::vector<std::string> verifiers;
};

// Value names an argument refers to (tensors, tensor lists, named SymInts/SymFloats/SymBools,
// custom objects, tokens), appended to `out`.
void collect_value_names(const Argument& arg, std::vector<std::string>& out);

}  // namespace pt2onnx::ir
