// Whole kernel texts with named holes (src/kernels/templates/*.cu, embedded at build time by
// cmake/embed_templates.cmake into kernels/kernel_templates.h) and their rendering.
//
// A hole is {{NAME}} (capitals, digits, '_'). A hole alone on its line (only blanks before it)
// stands for whole lines: the line is replaced by the value as given, which carries its own
// indentation and ends with a newline (or is empty: the line disappears). Any other hole is
// replaced in place. Lines starting with "//!" are notes for the template's reader and are
// dropped. Every hole must be filled and every value used: a mismatch is an internal error.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace pt2onnx::kernels {

using Holes = std::map<std::string, std::string>;

// The embedded text of templates/<name>.cu; an unknown name is an internal error.
std::string_view kernel_template(std::string_view name);
std::string render(std::string_view text, const Holes& holes, std::string_view what);
inline std::string render_template(std::string_view name, const Holes& holes) {
  return render(kernel_template(name), holes, name);
}

}  // namespace pt2onnx::kernels
