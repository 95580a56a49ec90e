// --limit NAME=N: raises (or lowers) one of the input limits of common/limits.h; the older
// --max-entry-bytes N and --max-inflate-ratio R are aliases of it.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}

namespace pt2onnx::cli {

// Adds the repeatable --limit option and its aliases to `app`, collecting NAME=N in `flags`.
void add_limit_option(CLI::App& app, std::vector<std::string>& flags);

// Whether `option` is one that add_limit_option() added (they apply to every command).
bool is_limit_option(const CLI::Option& option);

// Applies the collected NAME=N values to limits(). Returns an error line, or "" on success.
std::string apply_limit_flags(const std::vector<std::string>& flags);

}  // namespace pt2onnx::cli
