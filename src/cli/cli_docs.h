// The man page pt2onnx(1) and the bash and zsh completions, rendered from the CLI11 app that
// parses the command line (registered from config/option_table.h) by `pt2onnx --generate-docs
// DIR`, run by the build, so every option --help lists is documented and completed, with the
// same text; the man page also names each option's config key.
#pragma once

#include <filesystem>

namespace CLI {
class App;
}

namespace pt2onnx::cli {

// Writes DIR/pt2onnx.1, DIR/pt2onnx.bash and DIR/_pt2onnx. Throws std::runtime_error.
void write_docs(const CLI::App& app, const std::filesystem::path& dir);

}  // namespace pt2onnx::cli
