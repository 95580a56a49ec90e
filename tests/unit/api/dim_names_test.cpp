// resolve_dim_names(): which symbol each --dim-name request names, and every refusal.
#include <doctest/doctest.h>

#include <string>

#include "api/dim_names.h"
#include "common/error.h"
#include "ir/sym_expr.h"

using namespace pt2onnx;

namespace {

// x: float[s0, 16, s1 + 1], y: float[s2]; s3 only in a range constraint (e.g. an unbacked size).
ir::Program program() {
  ir::Program p;
  auto dim = [](const std::string& t) { return ir::Dim{ir::parse_sym_expr(t)}; };
  p.graph.tensor_values["x"] = ir::TensorMeta{ir::DType::kFloat32, {dim("s0"), ir::Dim{int64_t{16}}, dim("s1 + 1")}, {}};
  p.graph.tensor_values["y"] = ir::TensorMeta{ir::DType::kFloat32, {dim("s2")}, {}};
  p.signature.inputs.push_back(ir::InputSpec{ir::InputKind::kUserInput, ir::TensorArg{"x"}, "x"});
  p.signature.inputs.push_back(ir::InputSpec{ir::InputKind::kUserInput, ir::TensorArg{"y"}, "y"});
  p.range_constraints["s3"] = ir::RangeConstraint{};
  return p;
}

std::string refusal(const std::map<std::string, std::string>& requests) {
  try {
    api::resolve_dim_names(program(), requests);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
    return e.what();
  }
  FAIL("accepted");
  return "";
}

}  // namespace

TEST_CASE("symbols and INPUT.DIM keys resolve to the export's symbols") {
  const auto names = api::resolve_dim_names(program(), {{"x.0", "batch"}, {"y.-1", "length"}, {"s1", "width"}, {"s3", "u"}});
  CHECK(names == std::map<std::string, std::string>{{"s0", "batch"}, {"s1", "width"}, {"s2", "length"}, {"s3", "u"}});
  CHECK(api::resolve_dim_names(program(), {}).empty());
  // The same dim named twice the same way, and a swap of two symbols, are fine.
  CHECK(api::resolve_dim_names(program(), {{"x.0", "b"}, {"s0", "b"}}).size() == 1);
  CHECK(api::resolve_dim_names(program(), {{"s0", "s2"}, {"s2", "s0"}}).size() == 2);
}

TEST_CASE("bad requests are refused, naming the request") {
  CHECK(refusal({{"s9", "a"}}).find("dim name s9=a: 's9' is no symbol of the program (symbols: s0, s1, s2, s3; "
                                     "inputs: x [s0, 16, s1 + 1]; y [s2])") != std::string::npos);
  CHECK(refusal({{"x.1", "a"}}).find("x.1 is static (size 16)") != std::string::npos);
  CHECK(refusal({{"x.2", "a"}}).find("x.2 is s1 + 1, computed from other dims") != std::string::npos);
  CHECK(refusal({{"x.3", "a"}}).find("x has rank 3") != std::string::npos);
  CHECK(refusal({{"x.one", "a"}}).find("'one' is not a dim index") != std::string::npos);
  CHECK(refusal({{"z.0", "a"}}).find("'z' is no tensor input") != std::string::npos);
  CHECK(refusal({{"s0", "my-batch"}}).find("is not an identifier") != std::string::npos);
  CHECK(refusal({{"s0", "a"}, {"s1", "a"}}).find("two dims with one name") != std::string::npos);
  CHECK(refusal({{"s0", "a"}, {"x.0", "b"}}).find("is already named") != std::string::npos);
  CHECK(refusal({{"s0", "s1"}}).find("s1 is already a symbol of the program") != std::string::npos);
}
