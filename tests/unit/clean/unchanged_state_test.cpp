// drop_unchanged_state: a state pair whose new value is its input leaves the signature (the
// outputs are named x_new here: the ONNX text parser takes no dots in names).
#include <doctest/doctest.h>
#include <onnx/checker.h>
#include <onnx/defs/parser.h>

#include <string>
#include <vector>

#include "clean/clean.h"

namespace pt2onnx::clean {
namespace {

onnx::ModelProto with_state(const std::string& graph, const std::string& pairs) {
  onnx::ModelProto model;
  const std::string text = "<ir_version: 8, opset_import: [\"\" : 18]>\n" + graph;
  const onnx::Status status = onnx::OnnxParser::Parse(model, text.c_str());
  REQUIRE_MESSAGE(status.IsOK(), status.ErrorMessage());
  auto* entry = model.add_metadata_props();
  entry->set_key("pkg.pt2onnx.state");
  entry->set_value(pairs);
  return model;
}

std::vector<std::string> names(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) out.push_back(v.name());
  return out;
}

TEST_CASE("a state written back unchanged leaves the signature; a changed one and one without a default stay") {
  // w: a parameter written back divided by 1 (RWKV); b: a buffer the program changes; u: a state
  // input without a default, fed by the caller.
  model::OnnxModel t;
  t.proto = with_state(R"(
g (float[2] x, float[2] w, float[2] b, float[2] u) => (float[2] y, float[2] w_new, float[2] b_new, float[2] u_new)
  <float[2] w = {1.0, 2.0}, float[2] b = {3.0, 4.0}> {
  one = Constant<value = float {1.0}>()
  wd = Div(w, one)
  y = Mul(x, wd)
  w_new = Identity(wd)
  b_new = Add(b, x)
  u_new = Identity(u)
})",
                       R"({"w": "w_new", "b": "b_new", "u": "u_new"})");
  const Cleaned cleaned = clean_model(std::move(t), CleanOptions{});
  const onnx::ModelProto& m = cleaned.model.proto;
  CHECK(cleaned.report.unchanged_state == 1);
  CHECK(names(m.graph().input()) == std::vector<std::string>{"x", "b", "u"});
  CHECK(names(m.graph().output()) == std::vector<std::string>{"y", "b_new", "u_new"});
  REQUIRE(m.metadata_props_size() == 1);
  CHECK(m.metadata_props(0).value() == R"({"b": "b_new", "u": "u_new"})");
  bool w_kept = false;
  for (const auto& i : m.graph().initializer()) w_kept = w_kept || i.name() == "w";
  CHECK(w_kept);  // read by y's Mul, now as a plain initializer
  CHECK_NOTHROW(onnx::checker::check_model(m));
}

TEST_CASE("when every pair is unchanged the state metadata goes") {
  model::OnnxModel t;
  t.proto = with_state(R"(
g (float[2] x, float[2] w) => (float[2] y, float[2] w_new) <float[2] w = {1.0, 2.0}> {
  y = Mul(x, w)
  w_new = Identity(w)
})",
                       R"({"w": "w_new"})");
  const Cleaned cleaned = clean_model(std::move(t), CleanOptions{});
  CHECK(cleaned.report.unchanged_state == 1);
  CHECK(cleaned.model.proto.metadata_props_size() == 0);
  CHECK(names(cleaned.model.proto.graph().output()) == std::vector<std::string>{"y"});
}

}  // namespace
}  // namespace pt2onnx::clean
