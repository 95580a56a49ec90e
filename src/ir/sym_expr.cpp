// Symbolic integer expressions: construction with light simplification, the parser for the two
// printed forms exporters write (str(expr) and sympy.srepr), canonical printing and evaluation.
#include "ir/sym_expr.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <utility>

#include "common/error.h"
#include "common/limits.h"

namespace pt2onnx::ir {

namespace {

SymExpr make_node(SymOp op, std::vector<SymExpr> args) {
  auto node = std::make_shared<SymNode>();
  node->op = op;
  node->args = std::move(args);
  return node;
}

bool is_int(const SymExpr& e) { return e->op == SymOp::kInt; }
bool is_int(const SymExpr& e, int64_t v) { return e->op == SymOp::kInt && e->value == v; }

// ---- checked integer arithmetic (nullopt on overflow or an undefined operation) ----

std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Python's a // b (rounds toward negative infinity).
std::optional<int64_t> floor_div(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Python's a % b (the sign follows the divisor).
std::optional<int64_t> python_mod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

std::optional<int64_t> ceil_div(int64_t a, int64_t b) {
  if (a == INT64_MIN) return std::nullopt;
  auto q = floor_div(-a, b);
  if (!q || *q == INT64_MIN) return std::nullopt;
  return -*q;
}

std::optional<int64_t> power(int64_t base, int64_t exponent) {
  if (exponent < 0) return std::nullopt;
  int64_t result = 1;
  for (int64_t i = 0; i < exponent; ++i) {
    auto next = checked_mul(result, base);
    if (!next) return std::nullopt;
    result = *next;
    if (result == 0 || result == 1) break;  // further factors cannot change 0; 1 only if base is 1
  }
  if (result == 1 && base == -1 && exponent % 2 == 1) result = -1;
  return result;
}

// ---- structural order, used to sort the operands of commutative operators canonically ----

int compare(const SymExpr& a, const SymExpr& b) {
  if (a->op != b->op) return static_cast<int>(a->op) < static_cast<int>(b->op) ? -1 : 1;
  switch (a->op) {
    case SymOp::kInt:
      return a->value < b->value ? -1 : (a->value > b->value ? 1 : 0);
    case SymOp::kSymbol:
      return a->name.compare(b->name) < 0 ? -1 : (a->name == b->name ? 0 : 1);
    default:
      break;
  }
  size_t n = std::min(a->args.size(), b->args.size());
  for (size_t i = 0; i < n; ++i)
    if (int c = compare(a->args[i], b->args[i]); c != 0) return c;
  if (a->args.size() != b->args.size()) return a->args.size() < b->args.size() ? -1 : 1;
  return 0;
}

bool less(const SymExpr& a, const SymExpr& b) { return compare(a, b) < 0; }
bool same(const SymExpr& a, const SymExpr& b) { return compare(a, b) == 0; }

// Splits a term into its integer coefficient and the rest ("3*s0" -> 3, s0). The rest is null
// for a constant.
std::pair<int64_t, SymExpr> split_coefficient(const SymExpr& term) {
  if (is_int(term)) return {term->value, nullptr};
  if (term->op == SymOp::kMul && is_int(term->args.front())) {
    std::vector<SymExpr> rest(term->args.begin() + 1, term->args.end());
    if (rest.size() == 1) return {term->args.front()->value, rest.front()};
    return {term->args.front()->value, make_node(SymOp::kMul, std::move(rest))};
  }
  return {1, term};
}

SymExpr scale(int64_t coefficient, const SymExpr& rest);

// Sums and products of integer constants are folded, so the form stays canonical (printing and
// reading back gives the same expression); one that overflows int64 is refused rather than kept
// unfolded, where like terms would group differently on every reading. Sizes never come near it.
int64_t checked_or_fail(std::optional<int64_t> result, int64_t a, const char* op, int64_t b) {
  if (!result)
    fail(ErrorCode::kArchive, "symbolic expression: " + std::to_string(a) + " " + op + " " + std::to_string(b) +
                                  " overflows int64");
  return *result;
}

SymExpr build_add(std::vector<SymExpr> args) {
  std::vector<SymExpr> flat;
  for (auto& a : args) {
    if (a->op == SymOp::kAdd)
      flat.insert(flat.end(), a->args.begin(), a->args.end());
    else
      flat.push_back(std::move(a));
  }
  // Collect like terms: coefficient per distinct rest.
  int64_t constant = 0;
  std::vector<std::pair<SymExpr, int64_t>> terms;
  for (const auto& term : flat) {
    auto [coefficient, rest] = split_coefficient(term);
    if (!rest) {
      constant = checked_or_fail(checked_add(constant, coefficient), constant, "+", coefficient);
      continue;
    }
    auto it = std::find_if(terms.begin(), terms.end(), [&r = rest](const auto& t) { return same(t.first, r); });
    if (it == terms.end())
      terms.emplace_back(rest, coefficient);
    else
      it->second = checked_or_fail(checked_add(it->second, coefficient), it->second, "+", coefficient);
  }
  std::sort(terms.begin(), terms.end(), [](const auto& x, const auto& y) { return less(x.first, y.first); });
  std::vector<SymExpr> out;
  for (const auto& [rest, coefficient] : terms)
    if (coefficient != 0) out.push_back(scale(coefficient, rest));
  if (constant != 0 || out.empty()) out.push_back(sym_int(constant));
  if (out.size() == 1) return out.front();
  return make_node(SymOp::kAdd, std::move(out));
}

SymExpr build_mul(std::vector<SymExpr> args) {
  std::vector<SymExpr> flat;
  for (auto& a : args) {
    if (a->op == SymOp::kMul)
      flat.insert(flat.end(), a->args.begin(), a->args.end());
    else
      flat.push_back(std::move(a));
  }
  int64_t coefficient = 1;
  std::vector<SymExpr> factors;
  for (auto& f : flat) {
    if (is_int(f))
      coefficient = checked_or_fail(checked_mul(coefficient, f->value), coefficient, "*", f->value);
    else
      factors.push_back(std::move(f));
  }
  if (coefficient == 0) return sym_int(0);
  std::stable_sort(factors.begin(), factors.end(), less);
  if (factors.empty()) return sym_int(coefficient);
  if (coefficient == 1 && factors.size() == 1) return factors.front();
  if (factors.size() == 1 && factors.front()->op == SymOp::kAdd) {
    // Distribute a constant over a sum, as sympy does: 2*(s0 + 1) -> 2*s0 + 2.
    std::vector<SymExpr> terms;
    for (const auto& term : factors.front()->args) terms.push_back(build_mul({sym_int(coefficient), term}));
    return build_add(std::move(terms));
  }
  if (coefficient != 1) factors.insert(factors.begin(), sym_int(coefficient));
  return make_node(SymOp::kMul, std::move(factors));
}

SymExpr scale(int64_t coefficient, const SymExpr& rest) {
  if (coefficient == 1) return rest;
  return build_mul({sym_int(coefficient), rest});
}

SymExpr build_extremum(SymOp op, std::vector<SymExpr> args) {
  std::vector<SymExpr> flat;
  for (auto& a : args) {
    if (a->op == op)
      flat.insert(flat.end(), a->args.begin(), a->args.end());
    else
      flat.push_back(std::move(a));
  }
  std::optional<int64_t> constant;
  std::vector<SymExpr> rest;
  for (auto& a : flat) {
    if (is_int(a)) {
      int64_t v = a->value;
      constant = !constant ? v : (op == SymOp::kMax ? std::max(*constant, v) : std::min(*constant, v));
    } else {
      rest.push_back(std::move(a));
    }
  }
  std::sort(rest.begin(), rest.end(), less);
  rest.erase(std::unique(rest.begin(), rest.end(), same), rest.end());
  if (constant) rest.insert(rest.begin(), sym_int(*constant));
  if (rest.size() == 1) return rest.front();
  return make_node(op, std::move(rest));
}

SymExpr build_binary(SymOp op, std::vector<SymExpr> args) {
  const SymExpr& a = args[0];
  const SymExpr& b = args[1];
  if (is_int(a) && is_int(b)) {
    std::optional<int64_t> folded;
    switch (op) {
      case SymOp::kFloorDiv: folded = floor_div(a->value, b->value); break;
      case SymOp::kCeilDiv: folded = ceil_div(a->value, b->value); break;
      case SymOp::kMod: folded = python_mod(a->value, b->value); break;
      case SymOp::kPow: folded = power(a->value, b->value); break;
      default: break;
    }
    if (folded) return sym_int(*folded);
  }
  switch (op) {
    case SymOp::kFloorDiv:
    case SymOp::kCeilDiv:
      if (is_int(b, 1)) return a;
      break;
    case SymOp::kMod:
      if (is_int(b, 1) || is_int(b, -1)) return sym_int(0);
      break;
    case SymOp::kPow:
      if (is_int(b, 0)) return sym_int(1);
      if (is_int(b, 1)) return a;
      break;
    default:
      break;
  }
  return make_node(op, std::move(args));
}

// ---- printing ----

// Binding strength of the printed form, to decide where parentheses are needed.
int precedence(const SymExpr& e) {
  switch (e->op) {
    case SymOp::kAdd: return 1;
    case SymOp::kMul: return 2;
    case SymOp::kNeg: return 3;
    case SymOp::kPow: return 4;
    case SymOp::kInt: return e->value < 0 ? 3 : 5;
    default: return 5;  // atoms and function-call forms
  }
}

void print(const SymExpr& e, std::string& out);

void print_operand(const SymExpr& e, int min_precedence, std::string& out) {
  if (precedence(e) < min_precedence) {
    out += '(';
    print(e, out);
    out += ')';
  } else {
    print(e, out);
  }
}

void print_call(const char* name, const SymExpr& e, std::string& out) {
  out += name;
  out += '(';
  for (size_t i = 0; i < e->args.size(); ++i) {
    if (i) out += ", ";
    print(e->args[i], out);
  }
  out += ')';
}

// A product with its coefficient's sign pulled out, for "a - 2*b" and "-s0". A leading minus
// binds to the first factor alone when read back, and a minus on a sum distributes into it, so
// -1*(s0 + 1)*(s1 + 1) keeps its 1: "-(s0 + 1)*(s1 + 1)" would read as (-s0 - 1)*(s1 + 1).
void print_unsigned_product(int64_t magnitude_coefficient, const SymExpr& rest, std::string& out) {
  if (!rest) {
    out += std::to_string(magnitude_coefficient);
    return;
  }
  const bool sum_first = rest->op == SymOp::kMul && rest->args.front()->op == SymOp::kAdd;
  if (magnitude_coefficient != 1 || sum_first) {
    out += std::to_string(magnitude_coefficient);
    out += '*';
  }
  if (rest->op == SymOp::kMul) {
    for (size_t i = 0; i < rest->args.size(); ++i) {
      if (i) out += '*';
      print_operand(rest->args[i], 3, out);
    }
  } else {
    print_operand(rest, 3, out);
  }
}

void print(const SymExpr& e, std::string& out) {
  switch (e->op) {
    case SymOp::kInt:
      out += std::to_string(e->value);
      return;
    case SymOp::kSymbol:
      out += e->name;
      return;
    case SymOp::kAdd:
      for (size_t i = 0; i < e->args.size(); ++i) {
        auto [coefficient, rest] = split_coefficient(e->args[i]);
        bool negative = coefficient < 0 && coefficient != INT64_MIN;
        if (i == 0) {
          if (negative) out += '-';
        } else {
          out += negative ? " - " : " + ";
        }
        if (coefficient == INT64_MIN) {
          print_operand(e->args[i], 2, out);
        } else {
          print_unsigned_product(negative ? -coefficient : coefficient, rest, out);
        }
      }
      return;
    case SymOp::kMul: {
      auto [coefficient, rest] = split_coefficient(e);
      if (coefficient < 0 && coefficient != INT64_MIN) {
        out += '-';
        print_unsigned_product(-coefficient, rest, out);
      } else {
        for (size_t i = 0; i < e->args.size(); ++i) {
          if (i) out += '*';
          print_operand(e->args[i], 3, out);
        }
      }
      return;
    }
    case SymOp::kNeg:
      out += '-';
      print_operand(e->args[0], 3, out);
      return;
    case SymOp::kPow:
      print_operand(e->args[0], 5, out);
      out += "**";
      print_operand(e->args[1], 5, out);
      return;
    case SymOp::kFloorDiv:
      out += '(';
      print_operand(e->args[0], 2, out);
      out += "//";
      print_operand(e->args[1], 3, out);
      out += ')';
      return;
    case SymOp::kMod: print_call("Mod", e, out); return;
    case SymOp::kCeilDiv: print_call("CeilDiv", e, out); return;
    case SymOp::kMax: print_call("Max", e, out); return;
    case SymOp::kMin: print_call("Min", e, out); return;
  }
}

// ---- parsing ----

enum class TokenKind { kEnd, kInteger, kName, kString, kPunct };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
};

// Recursive-descent parser over Python expression syntax, which covers both str(expr)
// ("2*s0 + 1", "(s0//2)") and srepr ("Add(Mul(Integer(2), Symbol('s0', integer=True)), ...)").
// Every cycle of the recursion passes parse_unary, which holds the depth guard; sums and
// products are collected in loops and built once, so a long flat expression costs no recursion.
class ExprParser {
 public:
  explicit ExprParser(const std::string& text) : text_(text) {
    if (text_.size() > limits().expr_chars)
      limit_exceeded(ErrorCode::kArchive, "symbolic expression of " + std::to_string(text_.size()) + " characters",
                     "expr-chars");
    advance();
  }

  SymExpr parse() {
    SymExpr e = parse_sum();
    if (current_.kind != TokenKind::kEnd) fail("unexpected '" + current_.text + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    constexpr size_t kShown = 80;  // a message stays one readable line
    std::string shown = text_.size() > kShown ? text_.substr(0, kShown) + "..." : text_;
    pt2onnx::fail(ErrorCode::kArchive, "cannot parse symbolic expression '" + shown + "': " + why);
  }

  bool at(const char* punct) const { return current_.kind == TokenKind::kPunct && current_.text == punct; }

  void expect(const char* punct) {
    if (!at(punct)) fail(std::string("expected '") + punct + "'");
    advance();
  }

  void advance() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    current_ = Token{};
    if (pos_ >= text_.size()) return;
    char c = text_[pos_];
    size_t start = pos_;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E'))
        fail("not an integer expression (found a float)");
      current_ = {TokenKind::kInteger, text_.substr(start, pos_ - start)};
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      current_ = {TokenKind::kName, text_.substr(start, pos_ - start)};
    } else if (c == '\'' || c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != c) ++pos_;
      if (pos_ >= text_.size()) fail("unterminated string");
      current_ = {TokenKind::kString, text_.substr(start + 1, pos_ - start - 1)};
      ++pos_;
    } else {
      static constexpr const char* kTwoChar[] = {"//", "**", "==", "!=", "<=", ">="};
      for (const char* p : kTwoChar) {
        if (text_.compare(pos_, 2, p) == 0) {
          pos_ += 2;
          current_ = {TokenKind::kPunct, p};
          return;
        }
      }
      ++pos_;
      current_ = {TokenKind::kPunct, std::string(1, c)};
    }
  }

  SymExpr parse_sum() {
    std::vector<SymExpr> terms{parse_product()};
    while (at("+") || at("-")) {
      bool minus = at("-");
      advance();
      SymExpr right = parse_product();
      terms.push_back(minus ? sym_apply(SymOp::kNeg, {right}) : right);
    }
    if (at("<") || at(">") || at("==") || at("!=") || at("<=") || at(">="))
      fail("a relation is not an integer expression");
    return terms.size() == 1 ? terms.front() : sym_apply(SymOp::kAdd, std::move(terms));
  }

  // Runs of '*' are one product; '//' and '%' bind left to what precedes them.
  SymExpr parse_product() {
    std::vector<SymExpr> factors{parse_unary()};
    auto product = [&] { return factors.size() == 1 ? factors.front() : sym_apply(SymOp::kMul, std::move(factors)); };
    while (at("*") || at("//") || at("%") || at("/")) {
      if (at("/")) fail("true division is not an integer expression");
      std::string op = current_.text;
      advance();
      SymExpr right = parse_unary();
      if (op == "*") {
        factors.push_back(right);
        continue;
      }
      SymExpr left = product();
      factors = {sym_apply(op == "//" ? SymOp::kFloorDiv : SymOp::kMod, {left, right})};
    }
    return product();
  }

  SymExpr parse_unary() {
    DepthGuard guard(depth_, ErrorCode::kArchive, "symbolic expression");
    bool negative = false;
    for (; at("-") || at("+"); advance()) negative ^= at("-");
    SymExpr e = parse_power();
    return negative ? sym_apply(SymOp::kNeg, {e}) : e;
  }

  SymExpr parse_power() {
    SymExpr base = parse_atom();
    if (at("**")) {
      advance();
      SymExpr exponent = parse_unary();
      return checked_pow(base, exponent);
    }
    return base;
  }

  SymExpr checked_pow(const SymExpr& base, const SymExpr& exponent) {
    if (!is_int(exponent) || exponent->value < 0) fail("only non-negative integer powers are supported");
    return sym_apply(SymOp::kPow, {base, exponent});
  }

  SymExpr parse_atom() {
    if (current_.kind == TokenKind::kInteger) {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(current_.text.data(), current_.text.data() + current_.text.size(), v);
      if (ec != std::errc()) fail("integer " + current_.text + " is out of range");
      advance();
      return sym_int(v);
    }
    if (at("(")) {
      advance();
      SymExpr inner = parse_sum();
      expect(")");
      return inner;
    }
    if (current_.kind != TokenKind::kName) fail(current_.kind == TokenKind::kEnd ? "unexpected end" : "unexpected '" + current_.text + "'");
    std::string name = current_.text;
    advance();
    if (!at("(")) {
      static const std::set<std::string> kNotSymbols = {"oo", "zoo", "nan", "int_oo", "True", "False", "None", "I", "pi", "E"};
      if (kNotSymbols.count(name)) fail("'" + name + "' is not an integer symbol");
      return sym_symbol(name);
    }
    advance();
    return parse_call(name);
  }

  // Arguments after "Name(", through the closing parenthesis.
  SymExpr parse_call(const std::string& name) {
    if (name == "Symbol") {
      if (current_.kind != TokenKind::kString) fail("Symbol needs a quoted name");
      std::string symbol = current_.text;
      // A name prints as itself, so it must read back as one name token (found by fuzz_sym_expr).
      const bool identifier = !symbol.empty() && !std::isdigit(static_cast<unsigned char>(symbol[0])) &&
                              std::all_of(symbol.begin(), symbol.end(), [](char c) {
                                return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                              });
      if (!identifier) fail("symbol name '" + symbol + "' is not an identifier");
      advance();
      skip_keyword_arguments();
      expect(")");
      return sym_symbol(symbol);
    }
    if (name == "Integer") {
      SymExpr v = parse_sum();
      expect(")");
      if (!is_int(v)) fail("Integer needs an integer literal");
      return v;
    }
    std::vector<SymExpr> args;
    if (!at(")")) {
      args.push_back(parse_sum());
      while (at(",")) {
        advance();
        args.push_back(parse_sum());
      }
    }
    expect(")");
    auto need = [&](size_t n) {
      if (args.size() != n) fail(name + " takes " + std::to_string(n) + " arguments");
    };
    if (name == "Add") return args.empty() ? sym_int(0) : sym_apply(SymOp::kAdd, std::move(args));
    if (name == "Mul") return args.empty() ? sym_int(1) : sym_apply(SymOp::kMul, std::move(args));
    if (name == "Max" || name == "Min") {
      if (args.empty()) fail(name + " needs arguments");
      return sym_apply(name == "Max" ? SymOp::kMax : SymOp::kMin, std::move(args));
    }
    if (name == "FloorDiv" || name == "CleanDiv") {  // CleanDiv: a division known to be exact
      need(2);
      return sym_apply(SymOp::kFloorDiv, std::move(args));
    }
    if (name == "CeilDiv") {
      need(2);
      return sym_apply(SymOp::kCeilDiv, std::move(args));
    }
    if (name == "Mod" || name == "PythonMod") {
      need(2);
      return sym_apply(SymOp::kMod, std::move(args));
    }
    if (name == "Pow" || name == "PowByNatural") {
      need(2);
      return checked_pow(args[0], args[1]);
    }
    if (name == "Neg") {
      need(1);
      return sym_apply(SymOp::kNeg, std::move(args));
    }
    fail("unsupported function '" + name + "'");
  }

  // Skips ", key=value" pairs such as Symbol's assumptions (integer=True, positive=True).
  void skip_keyword_arguments() {
    while (at(",")) {
      advance();
      if (current_.kind != TokenKind::kName) fail("expected a keyword argument");
      advance();
      expect("=");
      if (current_.kind != TokenKind::kName && current_.kind != TokenKind::kInteger && current_.kind != TokenKind::kString)
        fail("unexpected keyword value");
      advance();
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
  uint64_t depth_ = 0;
  Token current_;
};

std::optional<int64_t> evaluate_node(const SymExpr& e, const std::map<std::string, int64_t>& symbols) {
  switch (e->op) {
    case SymOp::kInt:
      return e->value;
    case SymOp::kSymbol: {
      auto it = symbols.find(e->name);
      if (it == symbols.end()) return std::nullopt;
      return it->second;
    }
    default:
      break;
  }
  std::vector<int64_t> values;
  values.reserve(e->args.size());
  for (const auto& a : e->args) {
    auto v = evaluate_node(a, symbols);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  std::optional<int64_t> acc;
  switch (e->op) {
    case SymOp::kAdd:
      acc = 0;
      for (int64_t v : values)
        if (!(acc = checked_add(*acc, v))) return std::nullopt;
      return acc;
    case SymOp::kMul:
      acc = 1;
      for (int64_t v : values)
        if (!(acc = checked_mul(*acc, v))) return std::nullopt;
      return acc;
    case SymOp::kMax: return *std::max_element(values.begin(), values.end());
    case SymOp::kMin: return *std::min_element(values.begin(), values.end());
    case SymOp::kFloorDiv: return floor_div(values[0], values[1]);
    case SymOp::kCeilDiv: return ceil_div(values[0], values[1]);
    case SymOp::kMod: return python_mod(values[0], values[1]);
    case SymOp::kPow: return power(values[0], values[1]);
    case SymOp::kNeg:
      if (values[0] == INT64_MIN) return std::nullopt;
      return -values[0];
    default:
      return std::nullopt;
  }
}

void collect_symbols(const SymExpr& e, std::set<std::string>& out) {
  if (e->op == SymOp::kSymbol) out.insert(e->name);
  for (const auto& a : e->args) collect_symbols(a, out);
}

}  // namespace

SymExpr sym_int(int64_t v) {
  auto node = std::make_shared<SymNode>();
  node->op = SymOp::kInt;
  node->value = v;
  return node;
}

SymExpr sym_symbol(std::string name) {
  auto node = std::make_shared<SymNode>();
  node->op = SymOp::kSymbol;
  node->name = std::move(name);
  return node;
}

SymExpr sym_apply(SymOp op, std::vector<SymExpr> args) {
  switch (op) {
    case SymOp::kInt:
    case SymOp::kSymbol:
      fail(ErrorCode::kInternal, "sym_apply: use sym_int/sym_symbol for leaves");
    case SymOp::kAdd:
      PT2ONNX_CHECK(!args.empty(), ErrorCode::kInternal, "sym_apply: Add without operands");
      return build_add(std::move(args));
    case SymOp::kMul:
      PT2ONNX_CHECK(!args.empty(), ErrorCode::kInternal, "sym_apply: Mul without operands");
      return build_mul(std::move(args));
    case SymOp::kMax:
    case SymOp::kMin:
      PT2ONNX_CHECK(!args.empty(), ErrorCode::kInternal, "sym_apply: Max/Min without operands");
      return build_extremum(op, std::move(args));
    case SymOp::kNeg:
      PT2ONNX_CHECK(args.size() == 1, ErrorCode::kInternal, "sym_apply: Neg takes one operand");
      // Kept as a product so that "-s0 + s0" and "s1 - s0" simplify like sums do.
      return build_mul({sym_int(-1), args[0]});
    case SymOp::kFloorDiv:
    case SymOp::kCeilDiv:
    case SymOp::kMod:
    case SymOp::kPow:
      PT2ONNX_CHECK(args.size() == 2, ErrorCode::kInternal, "sym_apply: binary operator needs two operands");
      return build_binary(op, std::move(args));
  }
  fail(ErrorCode::kInternal, "sym_apply: unknown operator");
}

SymExpr parse_sym_expr(const std::string& text) { return ExprParser(text).parse(); }

std::string to_string(const SymExpr& e) {
  std::string out;
  print(e, out);
  return out;
}

std::optional<int64_t> evaluate(const SymExpr& e, const std::map<std::string, int64_t>& symbols) {
  return evaluate_node(e, symbols);
}

std::vector<std::string> free_symbols(const SymExpr& e) {
  std::set<std::string> names;
  collect_symbols(e, names);
  return {names.begin(), names.end()};
}

}  // namespace pt2onnx::ir
