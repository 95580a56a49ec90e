// plan_bundles over nested functions: a type called only inside other functions takes its input
// types from its callers' plans, so a caller's refusal is what its own refusal reports.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "function_builder.h"
#include "kernels/kernels.h"

namespace pt2onnx::kernels {
namespace {

using onnx::TensorProto;
using testing::FunctionBuilder;

constexpr const char* kDomain = "pt2onnx.hiera";

// main: y = Outer(x); Outer calls Mid, then an op with no template; Mid calls Leaf.
onnx::ModelProto nested_model() {
  onnx::ModelProto model;
  auto* graph = model.mutable_graph();
  auto* x = graph->add_input();
  x->set_name("x");
  auto* type = x->mutable_type()->mutable_tensor_type();
  type->set_elem_type(TensorProto::FLOAT);
  for (int64_t d : {2, 4}) type->mutable_shape()->add_dim()->set_dim_value(d);
  auto* call = graph->add_node();
  call->set_op_type("Outer");
  call->set_domain(kDomain);
  call->set_name("outer0");
  call->add_input()->append("x");
  call->add_output()->append("y");

  FunctionBuilder leaf("Leaf");
  leaf.input("a").output("b");
  leaf.node("Relu", {"a"}, {"b"});
  FunctionBuilder mid("Mid");
  mid.input("a").output("b");
  mid.node("Leaf", {"a"}, {"t"}).set_domain(kDomain);
  mid.node("Relu", {"t"}, {"b"});
  FunctionBuilder outer("Outer");
  outer.input("a").output("b");
  outer.node("Mid", {"a"}, {"t"}).set_domain(kDomain);
  outer.node("NonZero", {"t"}, {"b"});
  for (const FunctionBuilder* f : {&leaf, &mid, &outer}) *model.add_functions() = f->get();
  return model;
}

std::string reason_of(const BundlePlans& plans, const std::string& function) {
  for (const Refusal& r : plans.refused)
    if (r.function == function) return r.reason;
  return "";
}

TEST_CASE("a caller's refusal is reported by every type inside it, never as a recursive call") {
  const onnx::ModelProto model = nested_model();
  // Leaf first: planning it plans Mid and Outer on the way, and Outer refuses.
  const BundlePlans plans = plan_bundles(model, {}, {"Leaf", "Mid", "Outer"}, kDomain);
  CHECK(plans.bundles.empty());
  REQUIRE(plans.refused.size() == 3);
  const std::string outer = reason_of(plans, "Outer"), mid = reason_of(plans, "Mid"), leaf = reason_of(plans, "Leaf");
  CHECK(outer.find("op NonZero") != std::string::npos);
  CHECK(mid.find("function Mid is called inside Outer, whose calls give no types") != std::string::npos);
  CHECK(mid.find("op NonZero") != std::string::npos);
  CHECK(leaf.find("function Leaf is called inside Mid") != std::string::npos);
  for (const std::string& reason : {outer, mid, leaf}) CHECK(reason.find("calls itself") == std::string::npos);
}

TEST_CASE("functions that call each other are refused as a recursive call") {
  onnx::ModelProto model = nested_model();
  auto* leaf = model.mutable_functions(0);
  auto* outer = model.mutable_functions(2);
  REQUIRE((leaf->name() == "Leaf" && outer->name() == "Outer"));
  leaf->mutable_node(0)->set_op_type("Mid");  // Mid calls Leaf, Leaf calls Mid
  leaf->mutable_node(0)->set_domain(kDomain);
  outer->mutable_node(0)->set_op_type("Relu");  // and the main graph reaches neither
  outer->mutable_node(0)->set_domain("");
  const BundlePlans plans = plan_bundles(model, {}, {"Mid"}, kDomain);
  CHECK(plans.bundles.empty());
  const std::string reason = reason_of(plans, "Mid");
  INFO(reason);
  CHECK(reason.find("function Mid is called inside Leaf") != std::string::npos);
  CHECK(reason.find("function Mid calls itself") != std::string::npos);
}

}  // namespace
}  // namespace pt2onnx::kernels
