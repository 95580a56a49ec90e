// Arguments by name with defaults filled in (import/fill_defaults.h).
#include <doctest/doctest.h>

#include "import/fill_defaults.h"
#include "import_test_util.h"

using namespace pt2onnx;
using namespace pt2onnx::test;

namespace {

ir::Node node(const std::string& target, std::vector<ir::NamedArgument> inputs) {
  ir::Node n;
  n.target = target;
  n.inputs = std::move(inputs);
  import::fill_schema_defaults(n);
  return n;
}

std::vector<std::string> names(const ir::Node& n) {
  std::vector<std::string> out;
  for (const auto& in : n.inputs) out.push_back(in.name);
  return out;
}

ir::Argument tensor(const char* name) { return ir::TensorArg{name}; }

}  // namespace

TEST_CASE("every omitted argument gets its default (torch 2.8 wrote slice.Tensor with self only)") {
  ir::Node slice = node("aten.slice.Tensor", {{"self", tensor("x"), false}});
  CHECK(names(slice) == std::vector<std::string>{"self", "dim", "start", "end", "step"});
  CHECK(int_of(*slice.input("dim")) == 0);
  CHECK(std::holds_alternative<ir::NoneArg>(*slice.input("start")));
  CHECK(std::holds_alternative<ir::NoneArg>(*slice.input("end")));
  CHECK(int_of(*slice.input("step")) == 1);
}

TEST_CASE("inputs are put in schema order and keyword flags come from the schema") {
  // As torch 2.15 wrote arange: end, then keyword device and pin_memory.
  ir::Node arange = node("aten.arange.default", {{"end", ir::SymIntArg{3}, false},
                                                {"pin_memory", ir::SymBoolArg{false}, true},
                                                {"device", ir::DeviceArg{"cpu", std::nullopt}, true}});
  CHECK(names(arange) == std::vector<std::string>{"end", "dtype", "layout", "device", "pin_memory"});
  CHECK_FALSE(arange.inputs[0].keyword);
  for (size_t i = 1; i < arange.inputs.size(); ++i) CHECK(arange.inputs[i].keyword);
  CHECK(std::get<ir::DeviceArg>(*arange.input("device")).type == "cpu");

  // The file marked dtype KEYWORD because size/stride were omitted; in the schema it is positional.
  ir::Node check = node("aten._assert_tensor_metadata.default",
                        {{"a", tensor("x"), false}, {"dtype", ir::ScalarTypeArg{ir::DType::kFloat32}, true}});
  CHECK(names(check) == std::vector<std::string>{"a", "size", "stride", "dtype", "device", "layout"});
  CHECK_FALSE(check.inputs[3].keyword);
  CHECK(check.inputs[4].keyword);
}

TEST_CASE("values given in the file win over defaults") {
  ir::Node add = node("aten.add.Tensor", {{"self", tensor("x"), false}, {"other", tensor("y"), false},
                                          {"alpha", ir::SymFloatArg{0.5}, true}});
  CHECK(float_of(*add.input("alpha")) == 0.5);
  CHECK(add.inputs.size() == 3);
}

TEST_CASE("unnamed positional inputs take the schema's names by position") {
  ir::Node addmm = node("aten.addmm.default", {{"", tensor("b"), false}, {"", tensor("x"), false}, {"", tensor("w"), false}});
  CHECK(names(addmm) == std::vector<std::string>{"self", "mat1", "mat2", "beta", "alpha"});
  CHECK(tensor_of(*addmm.input("mat2")) == "w");
}

TEST_CASE("inputs the schema does not know are kept after the others") {
  ir::Node relu = node("aten.relu.default", {{"future_flag", ir::SymBoolArg{true}, true}, {"self", tensor("x"), false}});
  CHECK(names(relu) == std::vector<std::string>{"self", "future_flag"});
}

TEST_CASE("a missing required argument stays missing") {
  ir::Node add = node("aten.add.Tensor", {{"self", tensor("x"), false}});
  CHECK(names(add) == std::vector<std::string>{"self", "alpha"});
  CHECK(add.input("other") == nullptr);
}

TEST_CASE("targets outside the table are left alone") {
  std::vector<ir::NamedArgument> inputs = {{"b", ir::SymIntArg{2}, false}, {"a", ir::SymIntArg{1}, false}};
  ir::Node op = node("_operator.add", inputs);
  CHECK(names(op) == std::vector<std::string>{"b", "a"});
  ir::Node hop = node("higher_order.cond", {{"", tensor("p"), false}});
  CHECK(names(hop) == std::vector<std::string>{""});
}

TEST_CASE("an empty list takes the list kind the schema names (torch 2.1 wrote every [] as as_bools)") {
  // max_pool2d(x, [2, 2], stride=[]) as torch 2.1.2 wrote it: the empty stride came as bool[].
  ir::Node pool = node("aten.max_pool2d.default", {{"self", tensor("x"), false},
                                                   {"kernel_size", ir::SymIntListArg{{ir::SymIntArg{2}, ir::SymIntArg{2}}}, false},
                                                   {"stride", ir::SymBoolListArg{}, false}});
  const auto* stride = std::get_if<ir::SymIntListArg>(pool.input("stride"));
  REQUIRE(stride != nullptr);
  CHECK(stride->items.empty());
  // A tensor list ("Tensor[]") and an optional-tensor list ("Tensor?[]") too.
  ir::Node cat = node("aten.cat.default", {{"tensors", ir::SymBoolListArg{}, false}});
  CHECK(std::holds_alternative<ir::TensorListArg>(*cat.input("tensors")));
  ir::Node index = node("aten.index.Tensor", {{"self", tensor("x"), false}, {"indices", ir::SymIntListArg{}, false}});
  CHECK(std::holds_alternative<ir::OptionalTensorListArg>(*index.input("indices")));
  // A list with items keeps the kind it was written with, even when the schema says otherwise.
  ir::Node kept = node("aten.max_pool2d.default", {{"self", tensor("x"), false},
                                                   {"kernel_size", ir::SymBoolListArg{{ir::SymBoolArg{true}}}, false}});
  CHECK(std::holds_alternative<ir::SymBoolListArg>(*kept.input("kernel_size")));
}
