// Manifest expressions: a recursive-descent parser that evaluates as it parses, and the two
// printers (manifest grammar, CUDA C) of ir::SymExpr.
#include "kernels/expr.h"

#include <cctype>
#include <limits>

#include "common/error.h"

namespace pt2onnx::kernels {

namespace {

[[noreturn]] void expr_fail(std::string_view text, const std::string& why) {
  fail(ErrorCode::kUsage, "expression '" + std::string(text) + "': " + why);
}

int64_t checked_add(std::string_view t, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) expr_fail(t, "int64 overflow");
  return r;
}
int64_t checked_sub(std::string_view t, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) expr_fail(t, "int64 overflow");
  return r;
}
int64_t checked_mul(std::string_view t, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) expr_fail(t, "int64 overflow");
  return r;
}
int64_t floor_div(std::string_view t, int64_t a, int64_t b) {
  if (b == 0) expr_fail(t, "division by zero");
  if (a == std::numeric_limits<int64_t>::min() && b == -1) expr_fail(t, "int64 overflow");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t py_mod(std::string_view t, int64_t a, int64_t b) {
  return checked_sub(t, a, checked_mul(t, floor_div(t, a, b), b));
}
int64_t ceil_div(std::string_view t, int64_t a, int64_t b) { return -floor_div(t, checked_sub(t, 0, a), b); }

class Evaluator {
 public:
  Evaluator(std::string_view text, const std::map<std::string, int64_t>& symbols) : t_(text), symbols_(symbols) {}

  int64_t run() {
    int64_t v = expr();
    skip();
    if (pos_ != t_.size()) expr_fail(t_, "unexpected '" + std::string(1, t_[pos_]) + "' at " + std::to_string(pos_));
    return v;
  }

 private:
  void skip() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (t_.substr(pos_, tok.size()) != tok) return false;
    pos_ += tok.size();
    return true;
  }
  void expect(char c) {
    if (!eat(std::string_view(&c, 1))) expr_fail(t_, std::string("expected '") + c + "' at " + std::to_string(pos_));
  }
  int64_t expr() {
    int64_t v = term();
    for (;;) {
      if (eat("+")) v = checked_add(t_, v, term());
      else if (eat("-")) v = checked_sub(t_, v, term());
      else return v;
    }
  }
  int64_t term() {
    int64_t v = unary();
    for (;;) {
      if (eat("*")) v = checked_mul(t_, v, unary());
      else if (eat("//")) v = floor_div(t_, v, unary());
      else if (eat("%")) v = py_mod(t_, v, unary());
      else return v;
    }
  }
  int64_t unary() {
    if (eat("-")) return checked_sub(t_, 0, unary());
    return atom();
  }
  int64_t atom() {
    skip();
    if (pos_ >= t_.size()) expr_fail(t_, "unexpected end");
    const char c = t_[pos_];
    if (c == '(') {
      ++pos_;
      int64_t v = expr();
      expect(')');
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_])))
        v = checked_add(t_, checked_mul(t_, v, 10), t_[pos_++] - '0');
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (pos_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_')) ++pos_;
      const std::string name(t_.substr(start, pos_ - start));
      skip();
      if (pos_ < t_.size() && t_[pos_] == '(') {
        ++pos_;
        const int64_t a = expr();
        expect(',');
        const int64_t b = expr();
        expect(')');
        if (name == "cdiv") return ceil_div(t_, a, b);
        if (name == "min") return a < b ? a : b;
        if (name == "max") return a > b ? a : b;
        if (name == "align") return checked_mul(t_, ceil_div(t_, a, b), b);
        expr_fail(t_, "unknown function '" + name + "'");
      }
      auto it = symbols_.find(name);
      if (it == symbols_.end()) expr_fail(t_, "no value for symbol '" + name + "'");
      return it->second;
    }
    expr_fail(t_, "unexpected '" + std::string(1, c) + "' at " + std::to_string(pos_));
  }

  std::string_view t_;
  const std::map<std::string, int64_t>& symbols_;
  size_t pos_ = 0;
};

// Both printers share the shape of the tree walk; only operator spellings differ.
struct Spelling {
  bool c_code;
};

std::string print(const ir::SymExpr& e, Spelling s) {
  using ir::SymOp;
  auto join = [&](const char* sep) {
    std::string out = "(";
    for (size_t i = 0; i < e->args.size(); ++i) out += (i ? sep : "") + print(e->args[i], s);
    return out + ")";
  };
  auto call = [&](const char* manifest_name, const char* c_name) {
    std::string out = s.c_code ? c_name : manifest_name;
    std::string acc = print(e->args[0], s);
    for (size_t i = 1; i < e->args.size(); ++i) acc = out + "(" + acc + ", " + print(e->args[i], s) + ")";
    return acc;
  };
  switch (e->op) {
    case SymOp::kInt:
      if (s.c_code) return "(" + std::to_string(e->value) + "LL)";
      return e->value < 0 ? "(" + std::to_string(e->value) + ")" : std::to_string(e->value);
    case SymOp::kSymbol:
      return e->name;
    case SymOp::kAdd:
      return join(" + ");
    case SymOp::kMul:
      return join("*");
    case SymOp::kFloorDiv:
      return s.c_code ? call("", "p2_fdiv") : "(" + print(e->args[0], s) + " // " + print(e->args[1], s) + ")";
    case SymOp::kMod:
      return s.c_code ? call("", "p2_pmod") : "(" + print(e->args[0], s) + " % " + print(e->args[1], s) + ")";
    case SymOp::kCeilDiv:
      return call("cdiv", "p2_cdiv");
    case SymOp::kMax:
      return call("max", "p2_max");
    case SymOp::kMin:
      return call("min", "p2_min");
    case SymOp::kNeg:
      return "(-" + print(e->args[0], s) + ")";
    case SymOp::kPow: {
      const ir::SymExpr& exponent = e->args[1];
      PT2ONNX_CHECK(exponent->op == SymOp::kInt && exponent->value >= 0 && exponent->value <= 16, ErrorCode::kUnsupported,
                    "symbolic power with exponent " + ir::to_string(exponent));
      std::string out = "(1";
      for (int64_t i = 0; i < exponent->value; ++i) out += "*" + print(e->args[0], s);
      return out + ")";
    }
  }
  fail(ErrorCode::kInternal, "unknown symbolic operator");
}

}  // namespace

int64_t eval_expr(std::string_view text, const std::map<std::string, int64_t>& symbols) {
  return Evaluator(text, symbols).run();
}

std::string to_manifest(const ir::SymExpr& e) {
  std::string out = print(e, {false});
  // Drop one redundant pair of outer parentheses for readability.
  if (out.size() > 2 && out.front() == '(' && out.back() == ')') {
    int depth = 0;
    bool outer = true;
    for (size_t i = 0; i + 1 < out.size(); ++i) {
      depth += out[i] == '(' ? 1 : out[i] == ')' ? -1 : 0;
      if (depth == 0) { outer = false; break; }
    }
    if (outer) out = out.substr(1, out.size() - 2);
  }
  return out;
}

std::string to_c(const ir::SymExpr& e) { return print(e, {true}); }

ir::SymExpr sym_align(const ir::SymExpr& x, int64_t alignment) {
  using ir::SymOp;
  return ir::sym_apply(SymOp::kMul, {ir::sym_apply(SymOp::kCeilDiv, {x, ir::sym_int(alignment)}), ir::sym_int(alignment)});
}

}  // namespace pt2onnx::kernels
