// --limit NAME=N: raises (or lowers) one of the input limits of common/limits.h.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace pt2onnx::cli {

// Adds the repeatable --limit option to `app`, collecting its values in `flags`.
void add_limit_option(CLI::App& app, std::vector<std::string>& flags);

// Applies the collected NAME=N values to limits(). Returns an error line, or "" on success.
std::string apply_limit_flags(const std::vector<std::string>& flags);

}  // namespace pt2onnx::cli
