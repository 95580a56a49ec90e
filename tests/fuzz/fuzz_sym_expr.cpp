// The symbolic-expression parser (str() and srepr() forms). Beyond not crashing: what it parses
// prints to text that parses back to the same expression, and evaluation never traps.
#include <cstdlib>

#include "fuzz_support.h"
#include "ir/sym_expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = pt2onnx::fuzz::as_string(data, size);
  pt2onnx::fuzz::expect_clean([&] {
    pt2onnx::ir::SymExpr e = pt2onnx::ir::parse_sym_expr(text);
    const std::string printed = pt2onnx::ir::to_string(e);
    const std::string reprinted = pt2onnx::ir::to_string(pt2onnx::ir::parse_sym_expr(printed));
    if (printed != reprinted) {
      std::fprintf(stderr, "round trip differs: '%s' -> '%s'\n", printed.c_str(), reprinted.c_str());
      std::abort();
    }
    std::map<std::string, int64_t> symbols;
    for (const std::string& s : pt2onnx::ir::free_symbols(e)) symbols[s] = static_cast<int64_t>(s.size()) - 3;
    (void)pt2onnx::ir::evaluate(e, symbols);
  });
  return 0;
}
