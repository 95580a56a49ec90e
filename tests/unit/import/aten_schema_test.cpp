// The generated operator schema table and its lookup.
#include <doctest/doctest.h>

#include <algorithm>

#include "import/aten_schema.h"

using namespace pt2onnx;
using namespace pt2onnx::import;

TEST_CASE("lookup by qualified name, with or without torch.ops.") {
  const OpSchema* add = find_aten_schema("aten.add.Tensor");
  REQUIRE(add != nullptr);
  CHECK(add->name == "aten.add.Tensor");
  CHECK(find_aten_schema("torch.ops.aten.add.Tensor") == add);
  REQUIRE(add->args.size() == 3);
  CHECK(add->args[0].name == "self");
  CHECK(add->args[0].type == "Tensor");
  CHECK_FALSE(add->args[0].has_default());
  CHECK(add->args[2].name == "alpha");
  CHECK(add->args[2].type == "Scalar");
  CHECK(add->args[2].kwarg_only);
  CHECK(add->args[2].default_value.kind == DefaultKind::kInt);
  CHECK(add->args[2].default_value.int_value == 1);
  CHECK(add->num_returns == 1);
  CHECK(add->find_arg("other") == &add->args[1]);
  CHECK(add->find_arg("nope") == nullptr);
}

TEST_CASE("overloads without a name are .default") {
  const OpSchema* relu = find_aten_schema("aten.relu.default");
  REQUIRE(relu != nullptr);
  CHECK(relu->args.size() == 1);
  CHECK(find_aten_schema("aten.relu") == nullptr);
}

TEST_CASE("list, float, string, bool and None defaults") {
  const OpSchema* conv = find_aten_schema("aten.conv2d.default");
  REQUIRE(conv != nullptr);
  const SchemaArg* stride = conv->find_arg("stride");
  REQUIRE(stride != nullptr);
  CHECK(stride->type == "SymInt[2]");
  CHECK(stride->default_value.kind == DefaultKind::kIntList);
  CHECK(std::vector<int64_t>(stride->default_value.ints.begin(), stride->default_value.ints.end()) ==
        std::vector<int64_t>{1, 1});
  CHECK(conv->find_arg("bias")->default_value.kind == DefaultKind::kNone);
  CHECK(conv->find_arg("groups")->default_value.int_value == 1);

  const OpSchema* layer_norm = find_aten_schema("aten.layer_norm.default");
  REQUIRE(layer_norm != nullptr);
  CHECK(layer_norm->find_arg("eps")->default_value.kind == DefaultKind::kFloat);
  CHECK(layer_norm->find_arg("eps")->default_value.float_value == doctest::Approx(1e-5));
  CHECK(layer_norm->find_arg("cudnn_enable")->default_value.kind == DefaultKind::kBool);
  CHECK(layer_norm->find_arg("cudnn_enable")->default_value.int_value == 1);

  const OpSchema* pad = find_aten_schema("aten.pad.default");
  REQUIRE(pad != nullptr);
  CHECK(pad->find_arg("mode")->default_value.kind == DefaultKind::kString);
  CHECK(pad->find_arg("mode")->default_value.text == "constant");
}

TEST_CASE("enum defaults use the export schema's numbering") {
  const OpSchema* triu = find_aten_schema("aten.triu_indices.default");
  REQUIRE(triu != nullptr);
  const SchemaArg* dtype = triu->find_arg("dtype");
  REQUIRE(dtype != nullptr);
  CHECK(dtype->default_value.kind == DefaultKind::kScalarType);
  CHECK(dtype->default_value.int_value == static_cast<int64_t>(ir::DType::kInt64));  // c10 says 4

  const OpSchema* contiguous = find_aten_schema("aten.contiguous.default");
  REQUIRE(contiguous != nullptr);
  auto value = default_argument(*contiguous->find_arg("memory_format"));
  REQUIRE(value.has_value());
  CHECK(std::get<ir::MemoryFormatArg>(*value).format == ir::MemoryFormat::kContiguous);  // c10 says 0
}

TEST_CASE("default_argument gives the IR value the exporter would write") {
  const OpSchema* conv = find_aten_schema("aten.conv2d.default");
  auto dilation = default_argument(*conv->find_arg("dilation"));
  REQUIRE(dilation.has_value());
  const auto& list = std::get<ir::SymIntListArg>(*dilation);
  REQUIRE(list.items.size() == 2);
  CHECK(std::get<int64_t>(list.items[1].v) == 1);
  CHECK(std::holds_alternative<ir::NoneArg>(*default_argument(*conv->find_arg("bias"))));
  CHECK_FALSE(default_argument(*conv->find_arg("input")).has_value());

  auto alpha = default_argument(*find_aten_schema("aten.add.Tensor")->find_arg("alpha"));
  CHECK(std::get<int64_t>(std::get<ir::SymIntArg>(*alpha).v) == 1);
  auto mode = default_argument(*find_aten_schema("aten.pad.default")->find_arg("mode"));
  CHECK(std::get<std::string>(*mode) == "constant");
  auto eps = default_argument(*find_aten_schema("aten.layer_norm.default")->find_arg("eps"));
  CHECK(std::get<double>(std::get<ir::SymFloatArg>(*eps).v) == doctest::Approx(1e-5));
  auto keepdim = default_argument(*find_aten_schema("aten.sum.dim_IntList")->find_arg("keepdim"));
  CHECK(std::get<bool>(std::get<ir::SymBoolArg>(*keepdim).v) == false);
}

TEST_CASE("return counts, prims, and what the table leaves out") {
  CHECK(find_aten_schema("aten.max.dim")->num_returns == 2);
  CHECK(find_aten_schema("aten.native_layer_norm.default")->num_returns == 3);
  CHECK(find_aten_schema("prims.convert_element_type.default") != nullptr);
  CHECK(find_aten_schema("aten.add.out") == nullptr);  // out-variants
  CHECK(find_aten_schema("higher_order.cond") == nullptr);
  CHECK(find_aten_schema("_operator.add") == nullptr);
  CHECK(find_aten_schema("") == nullptr);
}

TEST_CASE("the table is sorted, unique and from a known torch") {
  auto schemas = all_aten_schemas();
  CHECK(schemas.size() > 2000);
  CHECK(std::is_sorted(schemas.begin(), schemas.end(),
                       [](const OpSchema& a, const OpSchema& b) { return a.name < b.name; }));
  CHECK(std::adjacent_find(schemas.begin(), schemas.end(),
                           [](const OpSchema& a, const OpSchema& b) { return a.name == b.name; }) == schemas.end());
  CHECK(aten_schema_torch_version().starts_with("2."));
}
