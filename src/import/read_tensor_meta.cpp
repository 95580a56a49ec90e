// TensorMeta, SymInt, SymBool and SymFloat readers.
#include "import/read_tensor_meta.h"

#include <cctype>
#include <algorithm>
#include <charconv>

#include "common/error.h"
#include "common/limits.h"
#include "ir/sym_expr.h"

namespace pt2onnx::import {

namespace {

// SymExpr {expr_str, hint}, or the bare expression string of old SymBool values.
std::string expr_text(const JsonNode& node) {
  if (node.is_string()) return node.as_string();
  return node.at("expr_str").as_string();
}

// Shortens srepr for a readable opaque name: "Symbol('s0', integer=True)" -> "s0",
// "Integer(2)" -> "2".
std::string readable_expr_text(const std::string& text) {
  static constexpr std::string_view kSymbol = "Symbol(";
  static constexpr std::string_view kInteger = "Integer(";
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    bool symbol = text.compare(i, kSymbol.size(), kSymbol) == 0;
    bool integer = text.compare(i, kInteger.size(), kInteger) == 0;
    bool at_word_start = i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_');
    if ((symbol || integer) && at_word_start) {
      size_t start = i + (symbol ? kSymbol.size() : kInteger.size());
      size_t close = text.find(')', start);
      if (close == std::string::npos) break;
      std::string inner = text.substr(start, close - start);
      if (symbol) {
        size_t q1 = inner.find_first_of("'\"");
        size_t q2 = q1 == std::string::npos ? q1 : inner.find(inner[q1], q1 + 1);
        if (q2 == std::string::npos) break;
        out += inner.substr(q1 + 1, q2 - q1 - 1);
      } else {
        out += inner;
      }
      i = close + 1;
      continue;
    }
    out += text[i++];
  }
  if (i < text.size()) out += text.substr(i);
  return out;
}

std::string format_double(double v) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(v);
}

}  // namespace

ir::Dim read_dim(const JsonNode& node) {
  if (node.is_number()) return {node.as_int()};  // a bare int, as 2.1 wrote storage_offset
  auto [kind, value] = node.union_member();
  if (kind == "as_int") return {value.as_int()};
  if (kind != "as_expr") node.fail("unknown SymInt kind '" + kind + "'");
  try {
    return dim_of_expr_text(expr_text(value));
  } catch (const LimitError& e) {
    node.fail(e.what());  // too long or too deep is refused, not kept opaque
  }
}

ir::Dim dim_of_expr_text(const std::string& text) {
  ir::SymExpr expr;
  try {
    expr = ir::parse_sym_expr(text);
  } catch (const LimitError&) {
    throw;
  } catch (const Error&) {
    return {ir::sym_symbol(readable_expr_text(text))};
  }
  if (expr->op == ir::SymOp::kInt) return {expr->value};
  return {expr};
}

std::string read_sym_bool_text(const JsonNode& node) {
  auto [kind, value] = node.union_member();
  if (kind == "as_bool") return value.as_bool() ? "True" : "False";
  if (kind == "as_expr") return expr_text(value);
  node.fail("unknown SymBool kind '" + kind + "'");
}

std::string read_sym_float_text(const JsonNode& node) {
  auto [kind, value] = node.union_member();
  if (kind == "as_float") return format_double(value.as_double());
  if (kind == "as_expr") return expr_text(value);
  node.fail("unknown SymFloat kind '" + kind + "'");
}

// Static sizes must make a tensor that ONNX can describe: no negative dim, and an element count
// and byte size that fit in int64 (a dim of 2^62 passes alone but not as bytes).
void check_static_sizes(const std::vector<JsonNode>& sizes, const ir::TensorMeta& meta) {
  int64_t bytes = std::max<int64_t>(ir::dtype_size(meta.dtype), 1);
  for (size_t i = 0; i < meta.sizes.size(); ++i) {
    if (!meta.sizes[i].is_static()) continue;
    const int64_t dim = meta.sizes[i].as_int();
    if (dim < 0) sizes[i].fail("dim " + std::to_string(dim) + " is negative");
    if (__builtin_mul_overflow(bytes, dim, &bytes))
      sizes[i].fail("dim " + std::to_string(dim) + " makes the tensor's byte size overflow int64");
  }
}

ir::TensorMeta read_tensor_meta(const JsonNode& given) {
  JsonNode node = given;  // unwrap {"meta": ...} in a loop: the wrapping may be deep
  while (!node.has("dtype")) {
    auto wrapped = node.find("meta");
    if (!wrapped) break;
    node = *wrapped;
  }
  ir::TensorMeta meta;
  if (auto dtype = node.find("dtype")) {
    // An unknown number stays kUnknown: it matters only if a rule needs this tensor's type.
    ir::dtype_from_schema(dtype->as_int(), meta.dtype);
  }
  if (auto sizes = node.find("sizes")) {
    const std::vector<JsonNode> elements = sizes->elements();
    for (const auto& size : elements) meta.sizes.push_back(read_dim(size));
    check_static_sizes(elements, meta);
  }
  if (auto strides = node.find("strides"))
    for (const auto& stride : strides->elements()) meta.strides.push_back(read_dim(stride));
  if (auto device = node.find("device")) {
    meta.device = device->is_string() ? device->as_string() : device->at("type").as_string();
    meta.device = meta.device.substr(0, meta.device.find(':'));  // "cuda:0" -> "cuda"
  }
  meta.requires_grad = node.bool_or("requires_grad", false);
  return meta;
}

}  // namespace pt2onnx::import
