// The README's limits table (section "Safety") must be the one declaration, kLimitSpecs, rendered:
// every limit has exactly its row, and the table has no other rows.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "common/limits.h"

namespace pt2onnx {
namespace {

// 512 -> "512", 16 << 20 -> "16 MiB", 64 << 10 -> "64 KiB" (byte units only), 200 "x" -> "200x".
std::string human(const LimitSpec& spec) {
  const uint64_t v = spec.default_value;
  if (spec.unit == "x") return std::to_string(v) + "x";
  if (spec.unit == "bytes" && v % (uint64_t{1} << 20) == 0) return std::to_string(v >> 20) + " MiB";
  if (spec.unit == "bytes" && v % (uint64_t{1} << 10) == 0) return std::to_string(v >> 10) + " KiB";
  return std::to_string(v) + " " + std::string(spec.unit);
}

std::string row(const LimitSpec& spec) {
  std::string flags = "`--limit " + std::string(spec.name) + "=N`";
  if (!spec.alias.empty()) flags += ", `" + std::string(spec.alias) + " N`";
  return "| `" + std::string(spec.name) + "` | " + human(spec) + " | " + std::string(spec.bounds) + " | " +
         std::string(spec.exit_codes) + " | " + flags + " |";
}

TEST_CASE("README's limits table is kLimitSpecs") {
  std::ifstream in(std::string(PT2ONNX_SAMPLES_DIR) + "/../README.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const std::string header = "| limit | default | bounds | exit | raised by |";
  const size_t start = readme.find(header);
  REQUIRE_MESSAGE(start != std::string::npos, "README.md has no table headed " << header);
  size_t rows = 0;
  for (size_t at = readme.find('\n', start) + 1; at < readme.size() && readme[at] == '|';) {
    const size_t end = readme.find('\n', at);
    if (readme.compare(at, 4, "|---") != 0) ++rows;
    at = end == std::string::npos ? readme.size() : end + 1;
  }
  CHECK(rows == kLimitSpecs.size());
  for (const LimitSpec& spec : kLimitSpecs)
    CHECK_MESSAGE(readme.find(row(spec) + "\n", start) != std::string::npos, "README.md lacks the row\n" << row(spec));
}

}  // namespace
}  // namespace pt2onnx
