// emit_in: an op on a dtype its ONNX schema takes is one node; on one it does not, it runs in the
// narrowest type that holds every value exactly, between Casts; where there is none, a refusal
// naming the op and the dtype.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "ir/program.h"
#include "translate/onnx_types.h"
#include "translate/typed_emit.h"

namespace pt2onnx::translate {
namespace {

using ir::DType;

// "Op(to)" for each node, the Cast target for Casts.
std::vector<std::string> ops(const onnx::GraphProto& graph) {
  std::vector<std::string> out;
  for (const onnx::NodeProto& node : graph.node()) {
    std::string op = node.op_type();
    if (op == "Cast") op.append("(").append(std::to_string(node.attribute(0).i())).append(")");
    out.push_back(op);
  }
  return out;
}

std::string cast_to(DType t) { return std::string("Cast(").append(std::to_string(onnx_dtype(t))).append(")"); }

TEST_CASE("emit_in: a type the schema takes is one node") {
  onnx::GraphProto graph;
  const ir::Program program;
  EmitContext ctx(graph, program, 18);
  emit_in(ctx, "Max", {"a", "b"}, DType::kFloat32);
  CHECK(ops(graph) == std::vector<std::string>{"Max"});
}

TEST_CASE("emit_in: bool max runs in int32 and comes back as bool") {
  onnx::GraphProto graph;
  const ir::Program program;
  EmitContext ctx(graph, program, 18);
  const std::string y = emit_in(ctx, "Max", {"a", "b"}, DType::kBool);
  CHECK(ops(graph) == std::vector<std::string>{cast_to(DType::kInt32), cast_to(DType::kInt32), "Max", cast_to(DType::kBool)});
  CHECK(graph.node(3).output(0) == y);
}

TEST_CASE("emit_in: only the inputs and outputs of the first input's type parameter are cast") {
  onnx::GraphProto graph;
  const ir::Program program;
  EmitContext ctx(graph, program, 18);
  // TopK's K is int64 (not T) and its indices are I: neither is cast.
  const std::vector<std::string> out = emit_in(ctx, "TopK", {"x", "k"}, DType::kBool, {}, 2);
  CHECK(ops(graph) == std::vector<std::string>{cast_to(DType::kInt32), "TopK", cast_to(DType::kBool)});
  CHECK(graph.node(1).input(1) == "k");
  CHECK(out[1] == graph.node(1).output(1));
}

TEST_CASE("emit_in: float16 isinf at opset 18 runs in float32") {
  onnx::GraphProto graph;
  const ir::Program program;
  EmitContext ctx(graph, program, 18);
  emit_in(ctx, "IsInf", {"x"}, DType::kFloat16);
  // IsInf's output is bool (T2), so nothing is cast back.
  CHECK(ops(graph) == std::vector<std::string>{cast_to(DType::kFloat32), "IsInf"});
}

TEST_CASE("emit_in and require_takes: no exact carrier, or a result a carrier would change, is refused by name") {
  onnx::GraphProto graph;
  const ir::Program program;
  EmitContext ctx(graph, program, 18);
  std::string message;
  try {
    emit_in(ctx, "Floor", {"x"}, DType::kInt64);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    message = e.what();
  }
  CHECK(message.find("ONNX's Floor (opset 18) takes no int64 input") != std::string::npos);
  message.clear();
  try {
    require_takes(ctx, "Conv", DType::kInt32);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    message = e.what();
  }
  CHECK(message.find("ONNX's Conv (opset 18) takes no int32 input") != std::string::npos);
  CHECK(graph.node_size() == 0);
}

}  // namespace
}  // namespace pt2onnx::translate
