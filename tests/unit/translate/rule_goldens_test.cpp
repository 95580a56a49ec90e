// Rule goldens: each file of tests/unit/translate/rules/ holds cases of one rule family, an IR-text
// program (ir_text_input.h) and the ONNX graph its translation must be, in libonnx's text syntax
// (onnx/defs/printer.h). scripts/update_rule_goldens.sh rewrites the expected graphs; a changed
// golden is read by eye against the rule before it is committed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <onnx/defs/printer.h>

#include "ir_text_input.h"
#include "translate/translate.h"
#include "translate/translate_for_tests.h"

namespace pt2onnx::translate {
namespace {

using namespace testing;

constexpr std::string_view kCaseMark = "=== ";
constexpr std::string_view kExpectedMark = "--- expected";

struct GoldenCase {
  std::string name;
  std::string input;     // IR text
  std::string expected;  // ONNX graph text, trailing newline included
};

struct GoldenFile {
  std::string header;  // comment lines before the first case
  std::vector<GoldenCase> cases;
};

GoldenFile read_golden(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "cannot read " << path);
  GoldenFile file;
  std::string line;
  bool in_expected = false;
  while (std::getline(in, line)) {
    if (line.starts_with(kCaseMark)) {
      file.cases.push_back({line.substr(kCaseMark.size()), "", ""});
      in_expected = false;
    } else if (file.cases.empty()) {
      file.header += line + "\n";
    } else if (line == kExpectedMark) {
      in_expected = true;
    } else {
      (in_expected ? file.cases.back().expected : file.cases.back().input) += line + "\n";
    }
  }
  return file;
}

void write_golden(const std::filesystem::path& path, const GoldenFile& file) {
  std::ofstream out(path);
  out << file.header;
  for (size_t i = 0; i < file.cases.size(); ++i) {
    const GoldenCase& c = file.cases[i];
    out << kCaseMark << c.name << "\n" << c.input << kExpectedMark << "\n" << c.expected;
    if (i + 1 < file.cases.size()) out << "\n";
  }
}

// The input without blank lines at its end (cases are separated by one blank line).
std::string trimmed_input(std::string input) {
  while (input.size() >= 2 && input.ends_with("\n\n")) input.pop_back();
  return input;
}

std::string translated_text(const std::string& input) {
  const TextProgram text = parse_ir_text(input);
  TranslateOptions options;
  options.opset = text.opset;
  // No libonnx checker here: Debian's libonnx 1.12 knows opsets up to 17 and refuses the opset-18
  // forms (ReduceMean's axes input); the `models` test checks ops' ONNX with onnx.checker.
  const onnx::ModelProto model = translate_program(text.program, options).model;
  std::ostringstream out;
  out << model.graph();
  std::string printed = out.str();
  while (printed.ends_with("\n")) printed.pop_back();
  return printed + "\n";
}

TEST_CASE("rule goldens: every rule family file translates to its expected ONNX text") {
  const bool update = std::getenv("PT2ONNX_UPDATE_GOLDENS") != nullptr;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(PT2ONNX_RULE_GOLDENS_DIR))
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE_MESSAGE(!files.empty(), "no golden files in " << PT2ONNX_RULE_GOLDENS_DIR);
  size_t cases = 0;
  for (const std::filesystem::path& path : files) {
    GoldenFile file = read_golden(path);
    CHECK_MESSAGE(!file.cases.empty(), path.filename() << " has no case");
    for (GoldenCase& c : file.cases) {
      ++cases;
      c.input = trimmed_input(c.input);
      std::string got;
      try {
        got = translated_text(c.input);
      } catch (const std::exception& e) {
        FAIL_CHECK(path.filename() << " / " << c.name << ": " << std::string(e.what()));
        continue;
      }
      if (update) c.expected = got;
      if (c.expected.ends_with("\n\n")) c.expected.pop_back();
      CHECK_MESSAGE(got == c.expected, path.filename() << " / " << c.name << ": got\n" << got << "expected\n" << c.expected);
    }
    if (update) write_golden(path, file);
  }
  MESSAGE(cases << " rule golden cases in " << files.size() << " files" << std::string(update ? " (rewritten)" : ""));
}

}  // namespace
}  // namespace pt2onnx::translate
