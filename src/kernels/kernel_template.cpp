#include "kernels/kernel_template.h"

#include <set>

#include "common/error.h"
#include "kernels/kernel_templates.h"

namespace pt2onnx::kernels {

std::string_view kernel_template(std::string_view name) {
  for (const auto& e : templates::kAll)
    if (e.name == name) return e.text;
  fail(ErrorCode::kInternal, "--compile: no kernel template named " + std::string(name));
}

namespace {
bool hole_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
}  // namespace

std::string render(std::string_view text, const Holes& holes, std::string_view what) {
  std::string out;
  out.reserve(text.size() * 2);
  std::set<std::string> used;
  auto value = [&](const std::string& name) -> const std::string& {
    auto it = holes.find(name);
    if (it == holes.end()) fail(ErrorCode::kInternal, "--compile: template " + std::string(what) + ": hole {{" + name + "}} not filled");
    used.insert(name);
    return it->second;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    const size_t next = eol == std::string_view::npos ? text.size() : eol + 1;
    std::string_view line = text.substr(pos, next - pos);
    pos = next;
    if (line.starts_with("//!")) continue;
    // A line that is only blanks and one hole.
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line.substr(first).starts_with("{{")) {
      const size_t close = line.find("}}", first);
      if (close != std::string_view::npos && line.substr(close + 2).find_first_not_of(" \t\r\n") == std::string_view::npos) {
        const std::string name(line.substr(first + 2, close - first - 2));
        bool ok = !name.empty();
        for (char c : name) ok = ok && hole_char(c);
        if (ok) {
          out += value(name);
          continue;
        }
      }
    }
    size_t i = 0;
    while (i < line.size()) {
      const size_t open = line.find("{{", i);
      if (open == std::string_view::npos) {
        out += line.substr(i);
        break;
      }
      const size_t close = line.find("}}", open + 2);
      std::string name = close == std::string_view::npos ? std::string() : std::string(line.substr(open + 2, close - open - 2));
      bool ok = !name.empty();
      for (char c : name) ok = ok && hole_char(c);
      if (!ok) {  // not a hole (e.g. C++ braces): keep the text
        out += line.substr(i, open + 2 - i);
        i = open + 2;
        continue;
      }
      out += line.substr(i, open - i);
      out += value(name);
      i = close + 2;
    }
  }
  for (const auto& [name, v] : holes)
    if (!used.count(name)) fail(ErrorCode::kInternal, "--compile: template " + std::string(what) + " has no hole {{" + name + "}}");
  return out;
}

}  // namespace pt2onnx::kernels
