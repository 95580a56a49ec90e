// render_depfile(): what a conversion read and wrote, as one Make rule that Ninja reads too.
#include <string>

#include "common/error.h"
#include "pt2onnx.h"

namespace pt2onnx {

namespace {

// A path as a Make word: absolute, '$' doubled, and space, tab, '#' and a backslash before one
// of those escaped (the escapes GNU Make and Ninja's depfile reader both undo).
std::string depfile_word(const std::filesystem::path& path) {
  const std::string text = std::filesystem::absolute(path).lexically_normal().string();
  PT2ONNX_CHECK(text.find_first_of("\n\r:") == std::string::npos, ErrorCode::kUsage,
                "--depfile: the path '" + text + "' holds a newline or ':', which a depfile cannot express");
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '$') {
      out += "$$";
    } else if (c == ' ' || c == '\t' || c == '#') {
      out += '\\';
      out += c;
    } else if (c == '\\') {
      // Only a backslash that ends the word or precedes an escaped character needs doubling.
      const bool before_special = i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\t' || text[i + 1] == '#';
      out += before_special ? "\\\\" : "\\";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string render_depfile(const ConvertReport& report) {
  std::string out;
  for (const auto& path : report.outputs) out += (out.empty() ? "" : " \\\n ") + depfile_word(path);
  out += ":";
  for (const auto& path : report.inputs) out += " \\\n " + depfile_word(path);
  return out + "\n";
}

}  // namespace pt2onnx
