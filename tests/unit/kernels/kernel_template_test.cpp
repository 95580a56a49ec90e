// Kernel templates: hole substitution (whole-line and in-line), reader notes, and that a hole
// left unfilled or a value with no hole is an internal error; every embedded template renders.
#include <doctest/doctest.h>

#include "common/error.h"
#include "kernels/kernel_template.h"
#include "kernels/kernel_templates.h"

namespace pt2onnx::kernels {
namespace {

TEST_CASE("render: whole-line holes take the value verbatim, in-line holes in place, //! lines dropped") {
  const std::string text = "//! a note for the reader\n  int a = {{X}};\n  {{BODY}}\n  }\n";
  CHECK(render(text, {{"X", "3"}, {"BODY", "    f();\n    g();\n"}}, "t") == "  int a = 3;\n    f();\n    g();\n  }\n");
  CHECK(render(text, {{"X", "3"}, {"BODY", ""}}, "t") == "  int a = 3;\n  }\n");
  // Braces that are not a hole (C++ initialisers, lower case) stay as they are.
  CHECK(render("int v[2] = {{0, 1}}; {{x}}\n", {}, "t") == "int v[2] = {{0, 1}}; {{x}}\n");
}

TEST_CASE("render: an unfilled hole or an unused value is an internal error") {
  try {
    render("{{A}} {{B}}\n", {{"A", "1"}}, "t");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInternal);
    CHECK(std::string(e.what()).find("{{B}}") != std::string::npos);
  }
  CHECK_THROWS_AS(render("{{A}}\n", {{"A", "1"}, {"C", "2"}}, "t"), Error);
  CHECK_THROWS_AS(kernel_template("no_such_template"), Error);
}

TEST_CASE("every embedded template is found by name and names its holes in capitals") {
  CHECK(std::size(templates::kAll) >= 2);
  for (const auto& e : templates::kAll) {
    CHECK(kernel_template(e.name) == e.text);
    CHECK(!e.text.empty());
  }
}

}  // namespace
}  // namespace pt2onnx::kernels
