// The symbolic-expression parser's limits: nesting (parentheses, calls, signs, powers) and length.
#include <doctest/doctest.h>

#include <string>

#include "common/limits.h"
#include "ir/sym_expr.h"

namespace pt2onnx::ir {
namespace {

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// The LimitError message parsing `text` throws ("" when it parses or fails otherwise).
std::string limit_error_of(const std::string& text) {
  try {
    parse_sym_expr(text);
  } catch (const LimitError& e) {
    CHECK(e.code() == ErrorCode::kArchive);
    return e.what();
  } catch (const Error&) {
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_CASE("the issue's crashing expressions are refused by the nesting limit") {
  const std::string parens = repeat("(", 7400) + "s0" + repeat(")", 7400);
  CHECK(has(limit_error_of(parens), "symbolic expression nesting exceeds the nesting limit (512 levels)"));
  CHECK(has(limit_error_of(parens), "--limit nesting=N"));
  CHECK(has(limit_error_of(repeat("Max(1, ", 2000) + "s0" + repeat(")", 2000)), "nesting limit"));
  CHECK(has(limit_error_of(repeat("2**", 2000) + "2"), "nesting limit"));
}

TEST_CASE("unary signs are read in a loop: 60,000 minus signs cost no recursion") {
  CHECK(to_string(parse_sym_expr(repeat("-", 60000) + "s0")) == "s0");  // an even count (75,000 pass expr-chars)
  CHECK(to_string(parse_sym_expr(repeat("-", 60001) + "s0")) == "-s0");
  CHECK(to_string(parse_sym_expr("- + -s0")) == "s0");
}

TEST_CASE("nesting up to the limit parses (also under ASan's larger frames)") {
  const size_t depth = limits().nesting - 1;
  CHECK(to_string(parse_sym_expr(repeat("(", depth) + "s0 + 1" + repeat(")", depth))) == "s0 + 1");
  CHECK(to_string(parse_sym_expr(repeat("Max(1, ", depth - 1) + "s0" + repeat(")", depth - 1))) == "Max(1, s0)");
}

TEST_CASE("a long flat sum or product is built once, not term by term") {
  const std::string sum = "s0" + repeat(" + s0", 3000);
  CHECK(to_string(parse_sym_expr(sum)) == "3001*s0");
  CHECK(to_string(parse_sym_expr("s0*s1//2*s2 % 5")) == to_string(parse_sym_expr("Mod((s0*s1//2)*s2, 5)")));
}

TEST_CASE("an expression longer than expr-chars is refused, and the limit can be raised") {
  const std::string long_sum = "s0" + repeat(" + 1", 20000);  // 80,002 characters
  CHECK(has(limit_error_of(long_sum), "symbolic expression of 80002 characters exceeds the expr-chars limit (65536 characters)"));
  const Limits saved = limits();
  limits().expr_chars = 1 << 20;
  CHECK(to_string(parse_sym_expr(long_sum)) == "s0 + 20000");
  limits() = saved;
}

TEST_CASE("a parse error quotes at most 80 characters of the expression") {
  try {
    parse_sym_expr(repeat("s0 + ", 100) + "?");
    FAIL("expected an error");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK(has(message, "...': unexpected '?'"));
    CHECK(message.size() < 200);
  }
}

TEST_CASE("a Symbol name that is no identifier is refused (fuzz_sym_expr: 's7 ' printed as 's7  + 1')") {
  CHECK_THROWS_AS(parse_sym_expr("Symbol('s7 ') + 1"), Error);
  CHECK_THROWS_AS(parse_sym_expr("Symbol('')"), Error);
  CHECK(to_string(parse_sym_expr("Add(Symbol('s_7', integer=True), Integer(1))")) == "s_7 + 1");
}

}  // namespace
}  // namespace pt2onnx::ir
