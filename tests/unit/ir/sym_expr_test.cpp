// Symbolic expressions: both printed forms, canonical text, evaluation, free symbols.
#include <doctest/doctest.h>

#include "common/error.h"
#include "ir/sym_expr.h"

using namespace pt2onnx;
using namespace pt2onnx::ir;

namespace {

std::string canon(const std::string& text) { return to_string(parse_sym_expr(text)); }

int64_t eval(const std::string& text, const std::map<std::string, int64_t>& symbols) {
  auto v = evaluate(parse_sym_expr(text), symbols);
  REQUIRE(v.has_value());
  return *v;
}

}  // namespace

TEST_CASE("str(expr) forms parse to canonical text") {
  CHECK(canon("s0") == "s0");
  CHECK(canon("2*s0") == "2*s0");
  CHECK(canon("s0*2") == "2*s0");
  CHECK(canon("s0 + 1") == "s0 + 1");
  CHECK(canon("1 + s0") == "s0 + 1");
  CHECK(canon("(s0//2)") == "(s0//2)");
  CHECK(canon("Max(1, s0)") == "Max(1, s0)");
  CHECK(canon("Max(s0, 1)") == "Max(1, s0)");
  CHECK(canon("s0**2") == "s0**2");
  CHECK(canon("-s0") == "-s0");
  CHECK(canon("FloorDiv(s0, 2)") == "(s0//2)");
  CHECK(canon("Mod(s0, 4)") == "Mod(s0, 4)");
  CHECK(canon("s0 % 4") == "Mod(s0, 4)");
  CHECK(canon("s1 - 2*s0") == "-2*s0 + s1");
  CHECK(canon("((s0 + 1)//2)") == "((s0 + 1)//2)");
  CHECK(canon("2*s0*s1 + 3") == "2*s0*s1 + 3");
  CHECK(canon("Min(s0, s1, 7)") == "Min(7, s0, s1)");
  CHECK(canon("s0*(Mod(s0, 3) + 1)") == "s0*(Mod(s0, 3) + 1)");
}

TEST_CASE("srepr forms parse, ignoring Symbol assumptions") {
  CHECK(canon("Symbol('s77', positive=True, integer=True)") == "s77");
  CHECK(canon("Mul(Integer(2), Symbol('s0', integer=True, positive=True))") == "2*s0");
  CHECK(canon("Add(Mul(Integer(2), Symbol('s77', positive=True, integer=True)), Integer(1))") == "2*s77 + 1");
  CHECK(canon("FloorDiv(Add(Symbol('s17', positive=True, integer=True), Symbol('s77', positive=True, "
              "integer=True), Integer(1)), Integer(2))") == "((s17 + s77 + 1)//2)");
  CHECK(canon("CeilDiv(Symbol('s0'), Integer(4))") == "CeilDiv(s0, 4)");
  CHECK(canon("PythonMod(Symbol('s0'), Integer(3))") == "Mod(s0, 3)");
  CHECK(canon("Pow(Symbol('s0'), Integer(2))") == "s0**2");
  CHECK(canon("Max(Integer(1), Symbol('u0', integer=True))") == "Max(1, u0)");
  CHECK(canon("Min(Symbol('s0'), Integer(64))") == "Min(64, s0)");
  CHECK(canon("Integer(-3)") == "-3");
  CHECK(canon("Mul(Integer(-1), Symbol('s0'))") == "-s0");
}

TEST_CASE("both forms of the same expression print the same") {
  CHECK(canon("2*s0 + 1") == canon("Add(Mul(Integer(2), Symbol('s0', integer=True)), Integer(1))"));
  CHECK(canon("(s0//2)") == canon("FloorDiv(Symbol('s0', positive=True, integer=True), Integer(2))"));
}

TEST_CASE("small simplifications: constants fold, sums and products flatten") {
  CHECK(canon("2 + 3") == "5");
  CHECK(canon("s0 + s0") == "2*s0");
  CHECK(canon("s0 - s0") == "0");
  CHECK(canon("2*(s0 + 1)") == "2*s0 + 2");
  CHECK(canon("(s0 + 1) + (s1 + 2)") == "s0 + s1 + 3");
  CHECK(canon("7//2") == "3");
  CHECK(canon("-7//2") == "-4");  // Python floor division
  CHECK(canon("Mod(-7, 3)") == "2");  // Python modulo
  CHECK(canon("CeilDiv(7, 2)") == "4");
  CHECK(canon("Max(2, 5, 3)") == "5");
  CHECK(canon("s0**1") == "s0");
  CHECK(canon("s0**0") == "1");
  CHECK(canon("(s0//1)") == "s0");
  CHECK(canon("0*s0 + 4") == "4");
}

TEST_CASE("sym_apply builds the same trees as the parser") {
  SymExpr e = sym_apply(SymOp::kAdd, {sym_apply(SymOp::kMul, {sym_int(2), sym_symbol("s0")}), sym_int(1)});
  CHECK(to_string(e) == "2*s0 + 1");
  CHECK(to_string(sym_apply(SymOp::kNeg, {sym_symbol("s0")})) == "-s0");
  CHECK(to_string(sym_apply(SymOp::kFloorDiv, {e, sym_int(2)})) == "((2*s0 + 1)//2)");
}

TEST_CASE("evaluate uses Python semantics and reports missing symbols") {
  CHECK(eval("2*s0 + 1", {{"s0", 5}}) == 11);
  CHECK(eval("(s0//2)", {{"s0", 7}}) == 3);
  CHECK(eval("FloorDiv(Mul(Integer(-1), Symbol('s0')), Integer(2))", {{"s0", 7}}) == -4);
  CHECK(eval("Mod(s0, 4)", {{"s0", -1}}) == 3);
  CHECK(eval("CeilDiv(s0, 4)", {{"s0", 9}}) == 3);
  CHECK(eval("Max(1, s0)", {{"s0", 0}}) == 1);
  CHECK(eval("Min(s0, s1)", {{"s0", 4}, {"s1", 3}}) == 3);
  CHECK(eval("s0**3", {{"s0", 3}}) == 27);
  CHECK_FALSE(evaluate(parse_sym_expr("s0 + s1"), {{"s0", 1}}).has_value());
  CHECK_FALSE(evaluate(parse_sym_expr("(s0//s1)"), {{"s0", 1}, {"s1", 0}}).has_value());  // division by zero
  CHECK_FALSE(evaluate(parse_sym_expr("s0*s0"), {{"s0", int64_t{1} << 40}}).has_value());  // overflow
}

TEST_CASE("free_symbols is sorted and unique") {
  CHECK(free_symbols(parse_sym_expr("s1 + 2*s0 + Max(s0, u3)")) == std::vector<std::string>{"s0", "s1", "u3"});
  CHECK(free_symbols(parse_sym_expr("Integer(4)")).empty());
}

TEST_CASE("canonical text is stable: printing and reparsing is a fixed point") {
  for (const char* text : {"2*s0 + 1", "-2*s0 + s1", "((s17 + s77 + 1)//2)", "s77*(Mod(s77, 3) + 1)", "Max(1, s0)",
                           "CeilDiv(s0, 4)", "s0**2 + 3*s1", "-s0 - 1"}) {
    std::string once = canon(text);
    CHECK(canon(once) == once);
  }
}

// Fuzz finding 4: a leading minus binds to the first factor when read, and distributes into a sum.
TEST_CASE("a negated product that starts with a sum prints its 1 and reads back the same") {
  const std::map<std::string, int64_t> at{{"s0", 3}, {"s1", 5}, {"s2", 7}};
  for (const char* text : {"(s0+1)*(s1+1)*(-1)", "Mul(Integer(-1), Add(s0, 1), Add(s1, 1))", "s2 - (s0+1)*(s1+1)*2 + 0",
                           "Mod((s0+1)*(s1+1)*(-1), 4)", "((s0+1)*(s1+1)*(-1))**2"}) {
    CAPTURE(text);
    const std::string once = canon(text);
    CHECK(canon(once) == once);
    CHECK(eval(once, at) == eval(text, at));
  }
  CHECK(canon("(s0+1)*(s1+1)*(-1)") == "-1*(s0 + 1)*(s1 + 1)");
  CHECK(canon("-(s0+1)*(s1+1)") == "(s1 + 1)*(-s0 - 1)");  // a different tree of the same value, stable too
  CHECK(canon("(s0+1)*(-2)*s1") == "-2*s1*(s0 + 1)");
}

// parse_sym_expr(text) fails with an archive error whose message contains `part`.
static void check_refused(const std::string& text, const std::string& part) {
  CAPTURE(text);
  try {
    parse_sym_expr(text);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kArchive);
    CHECK(std::string(e.what()).find(part) != std::string::npos);
  }
}

TEST_CASE("non-integer expressions are refused naming the text") {
  for (const char* text : {"Eq(s0, 4)", "s0 < 4", "s0/2", "Float('1.5', precision=53)", "FloorToInt(s0)", "2.5*s0",
                           "s0 +", "", "oo", "s0**s1", "Symbol(s0)"}) {
    check_refused(text, std::string("'") + text + "'");
  }
}

// Fuzz finding 3 (docs/fuzzing.md): like terms whose coefficients overflowed were kept apart,
// and grouped differently when the printed form was read back. Folding that overflows int64 is
// refused instead, so every expression read has one canonical form.
TEST_CASE("integer folding that overflows int64 is refused") {
  for (const char* text : {"9223372036854775807 + 1", "4611686018427387904*2*s0",
                           "4611686018427387904*s0 + 4611686018427387904*s0", "-(-9223372036854775807 - 1)"}) {
    check_refused(text, "overflows int64");
  }
  // Up to the edge it folds.
  CHECK(to_string(parse_sym_expr("9223372036854775806 + 1")) == "9223372036854775807");
  CHECK(to_string(parse_sym_expr("4611686018427387903*s0 + 4611686018427387904*s0")) == "9223372036854775807*s0");
}
