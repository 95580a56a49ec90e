// fuse_patterns: which nodes become Attention/RMSNormalization, which stay, and what the rules emit.
#include <doctest/doctest.h>

#include "fx_passes/fuse_patterns.h"
#include "translate/onnx_check.h"
#include "translate/program_builder.h"
#include "translate/translate_for_tests.h"
#include "translate/translate.h"

namespace pt2onnx::translate {
namespace {

using fx_passes::fuse_patterns;
using fx_passes::FusedProgram;

using namespace testing;
using ir::DType;

TranslateOptions at(int opset, bool fuse = true) {
  TranslateOptions options;
  options.opset = opset;
  options.fuse = fuse;
  return options;
}

// y = sdpa(q, k, v, extra...) with q [1, 4, 6, 8], k and v [1, kv_heads, 6, 8].
ir::Program sdpa(std::vector<ir::NamedArgument> extra, int64_t kv_heads = 4, DType type = DType::kFloat32) {
  ProgramBuilder b;
  const int kv = static_cast<int>(kv_heads);
  b.user_input("q", type, {1, 4, 6, 8}).user_input("k", type, {1, kv, 6, 8}).user_input("v", type, {1, kv, 6, 8});
  std::vector<ir::NamedArgument> args = {{"query", tensor("q")}, {"key", tensor("k")}, {"value", tensor("v")}};
  args.insert(args.end(), extra.begin(), extra.end());
  b.op("y", "aten.scaled_dot_product_attention.default", args, type, {1, 4, 6, 8}).output("y");
  return b.program();
}

TEST_CASE("SDPA becomes Attention at opset 23+ with causal and scale; GQA only with enable_gqa") {
  const ir::Program causal = sdpa({{"is_causal", boolean(true)}, {"scale", floating(0.25)}});
  const FusedProgram fused = fuse_patterns(causal, at(23));
  REQUIRE(fused.fused.size() == 1);
  CHECK(fused.fused[0].op_type == "Attention");
  const onnx::ModelProto model = translate_program(fused.program, at(23)).model;
  const onnx::NodeProto* node = find_op(model, "Attention");
  REQUIRE(node != nullptr);
  CHECK(attribute(*node, "is_causal")->i() == 1);
  CHECK(attribute(*node, "scale")->f() == doctest::Approx(0.25));
  CHECK(find_op(model, "Softmax") == nullptr);

  CHECK(fuse_patterns(sdpa({{"enable_gqa", boolean(true)}}, 2), at(24)).fused.size() == 1);
  CHECK(fuse_patterns(sdpa({}, 2), at(23)).fused.empty());  // head counts differ without enable_gqa
}

TEST_CASE("SDPA stays decomposed below opset 23, with --no-fuse, with dropout, and for float16") {
  CHECK(fuse_patterns(sdpa({}), at(22)).fused.empty());
  CHECK(fuse_patterns(sdpa({}), at(23, false)).fused.empty());
  CHECK(fuse_patterns(sdpa({{"dropout_p", floating(0.1)}}), at(23)).fused.empty());
  CHECK(fuse_patterns(sdpa({}, 4, DType::kFloat16), at(23)).fused.empty());
  const onnx::ModelProto model = translate_program(fuse_patterns(sdpa({}), at(23, false)).program, at(23)).model;
  CHECK(find_op(model, "Attention") == nullptr);
  CHECK(find_op(model, "Softmax") != nullptr);
}

// transformers' RMS norm over x [2, 3, 8]: w * (x * rsqrt(mean(x^2, -1, keepdim) + eps)); `extra_reader`
// makes something else read the variance too.
ir::Program rms_pattern(bool extra_reader) {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {2, 3, 8}).parameter("w", "w", {8});
  b.op("sq", "aten.pow.Tensor_Scalar", {{"self", tensor("x")}, {"exponent", integer(2)}}, DType::kFloat32, {2, 3, 8});
  b.op("var", "aten.mean.dim", {{"self", tensor("sq")}, {"dim", ints({-1})}, {"keepdim", boolean(true)}}, DType::kFloat32,
       {2, 3, 1});
  b.op("a", "aten.add.Tensor", {{"self", tensor("var")}, {"other", floating(1e-6)}}, DType::kFloat32, {2, 3, 1});
  b.op("r", "aten.rsqrt.default", {{"self", tensor("a")}}, DType::kFloat32, {2, 3, 1});
  b.op("n", "aten.mul.Tensor", {{"self", tensor("x")}, {"other", tensor("r")}}, DType::kFloat32, {2, 3, 8});
  b.op("y", "aten.mul.Tensor", {{"self", tensor("w")}, {"other", tensor("n")}}, DType::kFloat32, {2, 3, 8}).output("y");
  if (extra_reader) b.output("var");
  return b.program();
}

TEST_CASE("the pow-mean-rsqrt-mul pattern becomes one RMSNormalization; not when an intermediate is read again") {
  const FusedProgram fused = fuse_patterns(rms_pattern(false), at(23));
  REQUIRE(fused.fused.size() == 1);
  CHECK(fused.fused[0].node == "y");
  const onnx::ModelProto model = translate_program(fused.program, at(23)).model;
  const onnx::NodeProto* node = find_op(model, "RMSNormalization");
  REQUIRE(node != nullptr);
  CHECK(attribute(*node, "axis")->i() == -1);
  CHECK(attribute(*node, "epsilon")->f() == doctest::Approx(1e-6));
  CHECK(find_op(model, "ReduceMean") == nullptr);  // the pattern's inner nodes are dead
  CHECK(fuse_patterns(rms_pattern(true), at(23)).fused.empty());
}

TEST_CASE("a torch.onnx.ops symbolic node newer than the opset is refused by name") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {2, 8}).parameter("w", "w", {8});
  b.op("y", "onnx_symbolic._symbolic.default",
       {{"inputs", tensors({"x", "w"})}, {"op_type", str("RMSNormalization")}, {"onnx_dtype", integer(1)},
        {"version", integer(23)}},
       DType::kFloat32, {2, 8})
      .output("y");
  CHECK_THROWS_WITH(translate_program(b.program(), at(18)), doctest::Contains("is opset 23"));
  const onnx::ModelProto model = translate_program(b.program(), at(23)).model;
  CHECK(find_op(model, "RMSNormalization") != nullptr);
}

}  // namespace
}  // namespace pt2onnx::translate
