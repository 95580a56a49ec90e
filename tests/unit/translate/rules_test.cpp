// Rules by family: what each emits (op types, attributes, opset forms), checked by libonnx.
#include <cmath>
#include <cstdint>

#include <doctest/doctest.h>

#include <algorithm>

#include "translate/translate_for_tests.h"
#include "common/error.h"
#include "onnx_check.h"
#include "program_builder.h"
#include "translate/constant_tensors.h"
#include "translate/translate.h"

namespace pt2onnx::translate {
namespace {

using namespace testing;
using ir::DType;

// One node `y = target(inputs)` over a float input x of `shape`, y of `out_shape`.
onnx::ModelProto one_node(const std::string& target, std::vector<ir::NamedArgument> inputs, const std::vector<D>& shape,
                          const std::vector<D>& out_shape, int opset = 18, DType in_type = DType::kFloat32,
                          DType out_type = DType::kFloat32) {
  ProgramBuilder b;
  b.user_input("x", in_type, shape).op("y", target, std::move(inputs), out_type, out_shape).output("y");
  return translate_program(b.program(), {opset}).model;
}

TEST_CASE("gelu is the Gelu op from opset 20 and a decomposition before") {
  const std::vector<ir::NamedArgument> args = {{"self", tensor("x")}, {"approximate", str("tanh")}};
  const onnx::ModelProto at18 = one_node("aten.gelu.default", args, {2, 3}, {2, 3}, 18);
  CHECK(find_op(at18, "Gelu") == nullptr);
  CHECK(find_op(at18, "Tanh") != nullptr);
  CHECK_NOTHROW(check_and_infer(at18));
  const onnx::ModelProto at20 = one_node("aten.gelu.default", args, {2, 3}, {2, 3}, 20);
  CHECK(op_types(at20) == std::vector<std::string>{"Gelu"});
  CHECK(attribute(*find_op(at20, "Gelu"), "approximate")->s() == "tanh");
}

TEST_CASE("Reduce axes are an attribute before opset 18 and an input from 18 (ReduceSum: always an input)") {
  const std::vector<ir::NamedArgument> args = {{"self", tensor("x")}, {"dim", ints({-1})}, {"keepdim", boolean(true)}};
  const onnx::ModelProto at17 = one_node("aten.mean.dim", args, {2, 3}, {2, 1}, 17);
  const onnx::NodeProto* mean17 = find_op(at17, "ReduceMean");
  CHECK(mean17->input_size() == 1);
  CHECK(attribute(*mean17, "axes")->ints(0) == 1);
  CHECK_NOTHROW(check_and_infer(at17));
  const onnx::ModelProto at18 = one_node("aten.mean.dim", args, {2, 3}, {2, 1}, 18);
  const onnx::NodeProto* mean18 = find_op(at18, "ReduceMean");
  REQUIRE(mean18->input_size() == 2);
  CHECK(constant_ints(at18, mean18->input(1)) == std::vector<int64_t>{1});
  CHECK(attribute(*mean18, "axes") == nullptr);
  const onnx::ModelProto sum17 = one_node("aten.sum.dim_IntList", args, {2, 3}, {2, 1}, 17);
  CHECK(find_op(sum17, "ReduceSum")->input_size() == 2);
}

TEST_CASE("grid sampling names its modes as the opset does: bilinear/bicubic before 20, linear/cubic from 20") {
  auto model = [](int64_t mode, int opset) {
    ProgramBuilder b;
    b.user_input("x", DType::kFloat32, {1, 2, 4, 4}).user_input("g", DType::kFloat32, {1, 3, 3, 2});
    b.op("y", "aten.grid_sampler_2d.default",
         {{"input", tensor("x")}, {"grid", tensor("g")}, {"interpolation_mode", integer(mode)},
          {"padding_mode", integer(2)}, {"align_corners", boolean(true)}},
         DType::kFloat32, {1, 2, 3, 3})
        .output("y");
    return translate_program(b.program(), {opset}).model;
  };
  const onnx::ModelProto at18 = model(0, 18);
  CHECK(attribute(*find_op(at18, "GridSample"), "mode")->s() == "bilinear");
  CHECK(attribute(*find_op(at18, "GridSample"), "padding_mode")->s() == "reflection");
  CHECK(attribute(*find_op(at18, "GridSample"), "align_corners")->i() == 1);
  CHECK_NOTHROW(check_and_infer(at18));
  CHECK(attribute(*find_op(model(2, 17), "GridSample"), "mode")->s() == "bicubic");
  const onnx::ModelProto at20 = model(2, 20);
  CHECK(attribute(*find_op(at20, "GridSample"), "mode")->s() == "cubic");
  CHECK(attribute(*find_op(model(0, 21), "GridSample"), "mode")->s() == "linear");
}

TEST_CASE("scatter_reduce: amax/amin need opset 18 (ScatterElements max/min); sum works at 17") {
  auto model = [](const std::string& reduce, int opset) {
    ProgramBuilder b;
    b.user_input("x", DType::kFloat32, {3, 5}).user_input("i", DType::kInt64, {3, 2}).user_input("s", DType::kFloat32, {3, 2});
    b.op("y", "aten.scatter_reduce.two",
         {{"self", tensor("x")}, {"dim", integer(1)}, {"index", tensor("i")}, {"src", tensor("s")}, {"reduce", str(reduce)},
          {"include_self", boolean(false)}},
         DType::kFloat32, {3, 5})
        .output("y");
    return translate_program(b.program(), {opset}).model;
  };
  const onnx::ModelProto amax = model("amax", 18);
  CHECK(attribute(*find_op(amax, "ScatterElements", 1), "reduction")->s() == "max");
  CHECK_NOTHROW(check_and_infer(amax));
  CHECK_THROWS_WITH_AS(model("amin", 17), doctest::Contains("amax/amin need opset 18"), Error);
  CHECK(attribute(*find_op(model("sum", 17), "ScatterElements", 1), "reduction")->s() == "add");
  CHECK_THROWS_WITH_AS(model("median", 18), doctest::Contains("reduce 'median'"), Error);
}

TEST_CASE("col2im is Col2Im from opset 18 and unsupported before") {
  const std::vector<ir::NamedArgument> args = {{"self", tensor("x")},     {"output_size", ints({4, 5})},
                                               {"kernel_size", ints({2, 2})}, {"dilation", ints({1, 1})},
                                               {"padding", ints({0, 0})},   {"stride", ints({1, 1})}};
  const onnx::ModelProto at18 = one_node("aten.col2im.default", args, {1, 12, 12}, {1, 3, 4, 5}, 18);
  CHECK(op_types(at18) == std::vector<std::string>{"Col2Im"});
  CHECK_THROWS_AS(one_node("aten.col2im.default", args, {1, 12, 12}, {1, 3, 4, 5}, 17), Error);
}

TEST_CASE("reflection and replication pads: torch's last-dim-first pairs become ONNX begins then ends") {
  const std::vector<ir::NamedArgument> args = {{"self", tensor("x")}, {"padding", ints({1, 2, 3, 0})}};
  const onnx::ModelProto reflect = one_node("aten.reflection_pad2d.default", args, {1, 2, 5, 6}, {1, 2, 8, 9});
  const onnx::NodeProto* pad = find_op(reflect, "Pad");
  CHECK(attribute(*pad, "mode")->s() == "reflect");
  CHECK(constant_ints(reflect, pad->input(1)) == std::vector<int64_t>{0, 0, 3, 1, 0, 0, 0, 2});
  const onnx::ModelProto edge = one_node("aten.replication_pad2d.default", args, {1, 2, 5, 6}, {1, 2, 8, 9});
  CHECK(attribute(*find_op(edge, "Pad"), "mode")->s() == "edge");
  const std::vector<ir::NamedArgument> negative = {{"self", tensor("x")}, {"padding", ints({-1, 2})}};
  CHECK_THROWS_WITH_AS(one_node("aten.reflection_pad1d.default", negative, {1, 2, 6}, {1, 2, 7}),
                       doctest::Contains("negative reflect padding"), Error);
}

TEST_CASE("a rule that declines at an old opset makes the op unsupported there") {
  const std::vector<ir::NamedArgument> args = {{"self", tensor("x")}};
  CHECK(op_types(one_node("aten.bitwise_not.default", args, {3}, {3}, 18, DType::kInt32, DType::kInt32)) ==
        std::vector<std::string>{"BitwiseNot"});
  CHECK_THROWS_WITH_AS(one_node("aten.bitwise_not.default", args, {3}, {3}, 17, DType::kInt32, DType::kInt32),
                       doctest::Contains("integer bitwise_not needs opset 18"), Error);
  CHECK(op_types(one_node("aten.bitwise_not.default", args, {3}, {3}, 17, DType::kBool, DType::kBool)) ==
        std::vector<std::string>{"Not"});
}

TEST_CASE("Scalar operands take the result type: int tensor + float scalar is computed in float") {
  const onnx::ModelProto m = one_node("aten.add.Tensor", {{"self", tensor("x")}, {"other", floating(0.5)}}, {3}, {3}, 18,
                                      DType::kInt64, DType::kFloat32);
  CHECK(op_types(m) == std::vector<std::string>{"Cast", "Add"});
  CHECK(attribute(*find_op(m, "Cast"), "to")->i() == onnx::TensorProto_DataType_FLOAT);
  const onnx::NodeProto* add = find_op(m, "Add");
  const onnx::TensorProto& c = attribute(*producer(m, add->input(1)), "value")->t();
  CHECK(c.data_type() == onnx::TensorProto_DataType_FLOAT);
  CHECK(c.float_data(0) == 0.5f);
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("integer floor division is exact Python floor division") {
  ProgramBuilder b;
  b.user_input("x", DType::kInt64, {3}).user_input("z", DType::kInt64, {3})
      .op("y", "aten.div.Tensor_mode", {{"self", tensor("x")}, {"other", tensor("z")}, {"rounding_mode", str("floor")}},
          DType::kInt64, {3})
      .output("y");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  CHECK(op_types(m) == std::vector<std::string>{"Mod", "Sub", "Div"});
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("pow by small constants uses the plain operations torch uses") {
  CHECK(op_types(one_node("aten.pow.Tensor_Scalar", {{"self", tensor("x")}, {"exponent", integer(2)}}, {3}, {3})) ==
        std::vector<std::string>{"Mul"});
  CHECK(op_types(one_node("aten.pow.Tensor_Scalar", {{"self", tensor("x")}, {"exponent", floating(0.5)}}, {3}, {3})) ==
        std::vector<std::string>{"Sqrt"});
  CHECK(op_types(one_node("aten.pow.Tensor_Scalar", {{"self", tensor("x")}, {"exponent", floating(1.5)}}, {3}, {3})) ==
        std::vector<std::string>{"Pow"});
}

TEST_CASE("convolution: pads, strides, groups; no bias input when bias is None") {
  ProgramBuilder b;
  b.parameter("p_w", "conv.weight", {8, 2, 3, 3})
      .user_input("x", DType::kFloat32, {1, 4, 9, 9})
      .op("y", "aten.convolution.default",
          {{"input", tensor("x")}, {"weight", tensor("p_w")}, {"bias", none()}, {"stride", ints({2, 2})},
           {"padding", ints({1, 1})}, {"dilation", ints({1, 1})}, {"transposed", boolean(false)},
           {"output_padding", ints({0, 0})}, {"groups", integer(2)}},
          DType::kFloat32, {1, 8, 5, 5})
      .output("y");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  const onnx::NodeProto* conv = find_op(m, "Conv");
  REQUIRE(conv != nullptr);
  CHECK(conv->input_size() == 2);
  CHECK(std::vector<int64_t>(attribute(*conv, "pads")->ints().begin(), attribute(*conv, "pads")->ints().end()) ==
        std::vector<int64_t>{1, 1, 1, 1});
  CHECK(attribute(*conv, "strides")->ints(1) == 2);
  CHECK(attribute(*conv, "group")->i() == 2);
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("max_pool2d_with_indices: indices unused -> MaxPool; used -> MaxPool's indices modulo the plane size") {
  const std::vector<ir::NamedArgument> args = {{"self", tensor("x")}, {"kernel_size", ints({2, 2})}, {"stride", ints({})},
                                               {"padding", ints({0})}, {"dilation", ints({1})}, {"ceil_mode", boolean(true)}};
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {1, 2, 5, 5})
      .value("pool", DType::kFloat32, {1, 2, 3, 3})
      .value("pool_unused_1", DType::kInt64, {1, 2, 3, 3})
      .node("pool", "aten.max_pool2d_with_indices.default", args, {tensor("pool"), tensor("pool_unused_1")})
      .output("pool");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  const onnx::NodeProto* pool = find_op(m, "MaxPool");
  CHECK(attribute(*pool, "kernel_shape")->ints(0) == 2);
  CHECK(attribute(*pool, "strides")->ints(0) == 2);  // empty stride = kernel
  CHECK(attribute(*pool, "ceil_mode")->i() == 1);
  CHECK_NOTHROW(check_and_infer(m));
  b.output("pool_unused_1");
  // Opset 17: the checker of libonnx 1.12 knows ReduceProd with axes as an attribute only.
  const onnx::ModelProto with_indices = translate_program(b.program(), {17}).model;
  const onnx::NodeProto* pool2 = find_op(with_indices, "MaxPool");
  REQUIRE(pool2->output_size() == 2);
  const onnx::NodeProto* mod = find_op(with_indices, "Mod");
  REQUIRE(mod != nullptr);
  CHECK(mod->input(0) == pool2->output(1));  // ONNX's flat index, reduced to torch's per-plane one
  CHECK_NOTHROW(check_and_infer(with_indices));
}

TEST_CASE("ceil_mode pooling gives torch's sizes: a last window starting in the padding is dropped") {
  // 5 rows, kernel 2, stride 2, pad 1: ONNX's ceil mode makes 4 rows, torch 3 (= floor mode).
  const onnx::ModelProto dropped = one_node("aten.max_pool2d.default",
                                            {{"self", tensor("x")}, {"kernel_size", ints({2, 2})}, {"stride", ints({2, 2})},
                                             {"padding", ints({1, 1})}, {"dilation", ints({1, 1})}, {"ceil_mode", boolean(true)}},
                                            {1, 1, 5, 5}, {1, 1, 3, 3});
  CHECK(attribute(*find_op(dropped, "MaxPool"), "ceil_mode")->i() == 0);
  CHECK_NOTHROW(check_and_infer(dropped));
  // 6 columns, kernel 3, stride 2, no pad: both round up to 3.
  const onnx::ModelProto kept = one_node("aten.max_pool2d.default",
                                         {{"self", tensor("x")}, {"kernel_size", ints({3, 3})}, {"stride", ints({2, 2})},
                                          {"padding", ints({0, 0})}, {"dilation", ints({1, 1})}, {"ceil_mode", boolean(true)}},
                                         {1, 1, 6, 6}, {1, 1, 3, 3});
  CHECK(attribute(*find_op(kept, "MaxPool"), "ceil_mode")->i() == 1);
  CHECK_NOTHROW(check_and_infer(kept));
}

TEST_CASE("adaptive average pooling: 1x1 GlobalAveragePool, a divisor AveragePool, else averaging matrices") {
  CHECK(op_types(one_node("aten.adaptive_avg_pool2d.default", {{"self", tensor("x")}, {"output_size", ints({1, 1})}},
                          {1, 2, 6, 4}, {1, 2, 1, 1})) == std::vector<std::string>{"GlobalAveragePool"});
  const onnx::ModelProto m = one_node("aten._adaptive_avg_pool2d.default", {{"self", tensor("x")}, {"output_size", ints({3, 2})}},
                                      {1, 2, 6, 4}, {1, 2, 3, 2});
  CHECK(attribute(*find_op(m, "AveragePool"), "kernel_shape")->ints(1) == 2);
  // 6 -> 4 and 4 -> 3 do not divide: one MatMul per axis with an [in, out] weight matrix.
  const onnx::ModelProto uneven = one_node("aten.adaptive_avg_pool2d.default", {{"self", tensor("x")}, {"output_size", ints({4, 3})}},
                                           {1, 2, 6, 4}, {1, 2, 4, 3});
  const std::vector<std::string> ops = op_types(uneven);
  CHECK(std::count(ops.begin(), ops.end(), "MatMul") == 2);
  CHECK(std::count(ops.begin(), ops.end(), "AveragePool") == 0);
  CHECK_NOTHROW(check_and_infer(uneven));
}

TEST_CASE("native_layer_norm: LayerNormalization with one output, three when mean/rstd are used") {
  auto build = [](bool use_stats) {
    ProgramBuilder b;
    b.parameter("p_w", "ln.weight", {8})
        .user_input("x", DType::kFloat32, {2, 8})
        .value("ln", DType::kFloat32, {2, 8})
        .value("mean", DType::kFloat32, {2, 1})
        .value("rstd", DType::kFloat32, {2, 1})
        .node("ln", "aten.native_layer_norm.default",
              {{"input", tensor("x")}, {"normalized_shape", ints({8})}, {"weight", tensor("p_w")}, {"bias", none()},
               {"eps", floating(1e-5)}},
              {tensor("ln"), tensor("mean"), tensor("rstd")})
        .output("ln");
    if (use_stats) b.output("mean").output("rstd");
    return translate_program(b.program(), {18}).model;
  };
  const onnx::ModelProto plain = build(false);
  CHECK(find_op(plain, "LayerNormalization")->output_size() == 1);
  CHECK(find_op(plain, "LayerNormalization")->input_size() == 2);
  CHECK(attribute(*find_op(plain, "LayerNormalization"), "axis")->i() == -1);
  const onnx::ModelProto stats = build(true);
  const onnx::NodeProto* ln = find_op(stats, "LayerNormalization");
  REQUIRE(ln->output_size() == 3);
  CHECK(ln->output(1) == "mean");
  CHECK(ln->output(2) == "rstd");
  CHECK_NOTHROW(check_and_infer(stats));
}

TEST_CASE("split_with_sizes binds every output of the list") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {2, 10})
      .value("a", DType::kFloat32, {2, 3})
      .value("c", DType::kFloat32, {2, 7})
      .node("split", "aten.split_with_sizes.default", {{"self", tensor("x")}, {"split_sizes", ints({3, 7})}, {"dim", integer(-1)}},
            {tensors({"a", "c"})})
      .output("c")
      .output("a");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  const onnx::NodeProto* split = find_op(m, "Split");
  REQUIRE(split != nullptr);
  CHECK(std::vector<std::string>(split->output().begin(), split->output().end()) == std::vector<std::string>{"a", "c"});
  CHECK(attribute(*split, "axis")->i() == 1);
  CHECK(constant_ints(m, split->input(1)) == std::vector<int64_t>{3, 7});
  CHECK(m.graph().output(0).name() == "c");
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("a bool where is computed with And/Or (onnxruntime has no bool Where)") {
  ProgramBuilder b;
  b.user_input("x", DType::kBool, {3}).user_input("z", DType::kBool, {3})
      .op("y", "aten.where.self", {{"condition", tensor("x")}, {"self", tensor("z")}, {"other", tensor("x")}}, DType::kBool, {3})
      .output("y");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  CHECK(find_op(m, "Where") == nullptr);
  CHECK(op_types(m) == std::vector<std::string>{"And", "Not", "And", "Or"});
}

TEST_CASE("an in-place write to a view is written back to its base") {
  // y = zeros(3, 4); y[1] = 5; return y
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3, 4})
      .op("zeros", "aten.zeros_like.default", {{"self", tensor("x")}}, DType::kFloat32, {3, 4})
      .op("select", "aten.select.int", {{"self", tensor("zeros")}, {"dim", integer(0)}, {"index", integer(1)}}, DType::kFloat32, {4})
      .op("fill_", "aten.fill_.Scalar", {{"self", tensor("select")}, {"value", floating(5)}}, DType::kFloat32, {4})
      .output("zeros");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  // The output is the base with the filled row taken where a one-hot mask over dim 0 says.
  const onnx::NodeProto* out = producer(m, "zeros_1");  // "zeros" names the original ConstantOfShape
  REQUIRE(out != nullptr);
  CHECK(out->op_type() == "Identity");
  const onnx::NodeProto* where = producer(m, out->input(0));
  REQUIRE(where != nullptr);
  CHECK(where->op_type() == "Where");
  const onnx::NodeProto* mask = producer(m, where->input(0));
  REQUIRE(mask != nullptr);
  REQUIRE(mask->op_type() == "Constant");
  const onnx::TensorProto& t = mask->attribute(0).t();
  CHECK(std::vector<int64_t>(t.dims().begin(), t.dims().end()) == std::vector<int64_t>{3, 1});
  CHECK(std::vector<int32_t>(t.int32_data().begin(), t.int32_data().end()) == std::vector<int32_t>{0, 1, 0});
  CHECK(find_op(m, "Expand") != nullptr);
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("a view read after its base was written in place is refused") {
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {3, 4})
      .op("clone", "aten.clone.default", {{"self", tensor("x")}}, DType::kFloat32, {3, 4})
      .op("row", "aten.select.int", {{"self", tensor("clone")}, {"dim", integer(0)}, {"index", integer(0)}}, DType::kFloat32, {4})
      .op("add_", "aten.add_.Tensor", {{"self", tensor("clone")}, {"other", integer(1)}}, DType::kFloat32, {3, 4})
      .op("neg", "aten.neg.default", {{"self", tensor("row")}}, DType::kFloat32, {4})
      .output("neg");
  CHECK_THROWS_WITH_AS(translate_program(b.program(), {18}), doctest::Contains("view row of clone is read after clone was updated in place"),
                       Error);
}

TEST_CASE("attention with a bool mask: Where to -inf, and rows masked everywhere give zeros") {
  ProgramBuilder b;
  b.user_input("q", DType::kFloat32, {1, 2, 4, 8}).user_input("mask", DType::kBool, {4, 4})
      .op("y", "aten.scaled_dot_product_attention.default",
          {{"query", tensor("q")}, {"key", tensor("q")}, {"value", tensor("q")}, {"attn_mask", tensor("mask")},
           {"dropout_p", floating(0)}, {"is_causal", boolean(false)}, {"scale", none()}, {"enable_gqa", boolean(false)}},
          DType::kFloat32, {1, 2, 4, 8})
      .output("y");
  const onnx::ModelProto m = translate_program(b.program(), {17}).model;  // libonnx 1.12 knows opset 17 only
  // The rows to zero are those the mask keeps nothing of: a test of the mask alone, which
  // layers sharing the mask share.
  CHECK(op_types(m) == std::vector<std::string>{"Mul", "Transpose", "Mul", "MatMul", "Where", "Softmax", "Cast", "ReduceMax",
                                                "Cast", "Where", "MatMul"});
  CHECK(find_op(m, "Where")->input(0) == "mask");
  CHECK(find_op(m, "Cast")->input(0) == "mask");
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("slice assignment in default IR: a write through a slice rebuilds the base") {
  // y = x.clone(); y[:, 1:3] = 0 (as fill_ on slice(clone)); return y
  ProgramBuilder b;
  b.user_input("x", DType::kFloat32, {2, 5})
      .op("clone", "aten.clone.default", {{"self", tensor("x")}}, DType::kFloat32, {2, 5})
      .op("slice_1", "aten.slice.Tensor",
          {{"self", tensor("clone")}, {"dim", integer(1)}, {"start", integer(1)}, {"end", integer(3)}, {"step", integer(1)}},
          DType::kFloat32, {2, 2})
      .op("fill_", "aten.fill_.Scalar", {{"self", tensor("slice_1")}, {"value", floating(0)}}, DType::kFloat32, {2, 2})
      .output("clone");
  const onnx::ModelProto m = translate_program(b.program(), {18}).model;
  const onnx::NodeProto* output = producer(m, "clone");
  REQUIRE(output != nullptr);
  CHECK(output->op_type() == "Identity");
  const onnx::NodeProto* concat = producer(m, output->input(0));
  REQUIRE(concat != nullptr);
  REQUIRE(concat->op_type() == "Concat");
  CHECK(attribute(*concat, "axis")->i() == 1);
  CHECK(concat->input(1) == "fill_");
  CHECK_NOTHROW(check_and_infer(m));
}

TEST_CASE("constants: half and bfloat16 bit patterns round to nearest even") {
  CHECK(float_to_half_bits(1.0f) == 0x3c00);
  CHECK(float_to_half_bits(-2.0f) == 0xc000);
  CHECK(float_to_half_bits(65504.0f) == 0x7bff);
  CHECK(float_to_half_bits(1e6f) == 0x7c00);
  CHECK(float_to_half_bits(5.9604645e-08f) == 0x0001);  // smallest subnormal
  CHECK(float_to_half_bits(-INFINITY) == 0xfc00);
  CHECK(float_to_bfloat16_bits(1.0f) == 0x3f80);
  CHECK(float_to_bfloat16_bits(1.00390625f) == 0x3f80);  // halfway: to even
  CHECK(float_to_bfloat16_bits(1.01171875f) == 0x3f82);  // halfway: to even (up)
  const onnx::TensorProto t = filled_tensor(9.3e18, DType::kInt64);
  CHECK(t.int64_data(0) == INT64_MAX);  // saturates rather than overflowing
}

TEST_CASE("antialiased interpolation is Resize(antialias=1) from opset 18, older opsets are refused; align_corners is weight matrices") {
  const std::vector<ir::NamedArgument> args = {{"input", tensor("x")}, {"output_size", ints({3, 4})},
                                               {"align_corners", boolean(false)}, {"scale_factors", none()}};
  const onnx::ModelProto at18 = one_node("aten._upsample_bicubic2d_aa.vec", args, {1, 2, 9, 9}, {1, 2, 3, 4}, 18);
  const onnx::NodeProto* resize = find_op(at18, "Resize");
  REQUIRE(resize != nullptr);
  CHECK(attribute(*resize, "antialias")->i() == 1);
  CHECK(attribute(*resize, "exclude_outside")->i() == 1);
  CHECK(attribute(*resize, "cubic_coeff_a")->f() == doctest::Approx(-0.5));
  CHECK(attribute(*resize, "coordinate_transformation_mode")->s() == "half_pixel");
  // No check_and_infer: the C++ onnx linked here (Debian's 1.12) predates Resize-18's antialias;
  // the upsample_aa op samples pass onnx 1.23's checker and onnxruntime.
  CHECK_THROWS_WITH_AS(one_node("aten._upsample_bicubic2d_aa.vec", args, {1, 2, 9, 9}, {1, 2, 3, 4}, 17),
                       doctest::Contains("needs opset 18"), Error);
  std::vector<ir::NamedArgument> corners = args;
  corners[2] = {"align_corners", boolean(true)};
  // align_corners=True: torch's weights as two MatMuls (torch's values are checked by the
  // aa_align_corners op sample), at any opset.
  for (int opset : {17, 18}) {
    const onnx::ModelProto m = one_node("aten._upsample_bilinear2d_aa.vec", corners, {1, 2, 9, 9}, {1, 2, 3, 4}, opset);
    CHECK(find_op(m, "Resize") == nullptr);
    int matmuls = 0;
    for (const auto& n : m.graph().node()) matmuls += n.op_type() == "MatMul";
    CHECK(matmuls == 2);
  }
}

TEST_CASE("special_erfcx is a float32 approximation without Erf; float64 is refused") {
  const std::vector<ir::NamedArgument> args = {{"self", tensor("x")}};
  const onnx::ModelProto f32 = one_node("aten.special_erfcx.default", args, {5}, {5});
  CHECK(find_op(f32, "Erf") == nullptr);
  CHECK_NOTHROW(check_and_infer(f32));
  CHECK_THROWS_WITH_AS(one_node("aten.special_erfcx.default", args, {5}, {5}, 18, DType::kFloat64, DType::kFloat64),
                       doctest::Contains("float32-accurate"), Error);
}

TEST_CASE("logcumsumexp is a Scan along its dim") {
  const std::vector<ir::NamedArgument> args = {{"self", tensor("x")}, {"dim", integer(-1)}};
  const onnx::ModelProto m = one_node("aten.logcumsumexp.default", args, {2, 3, 4}, {2, 3, 4});
  const onnx::NodeProto* scan = find_op(m, "Scan");
  REQUIRE(scan != nullptr);
  CHECK(attribute(*scan, "scan_input_axes")->ints(0) == 2);
  CHECK(attribute(*scan, "scan_output_axes")->ints(0) == 2);
  CHECK_NOTHROW(check_and_infer(m));
}

}  // namespace
}  // namespace pt2onnx::translate
