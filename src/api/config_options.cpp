// options_from_config(): the option part of a --config file, as ConvertOptions.
#include <memory>

#include "config/config.h"
#include "pt2onnx.h"

namespace pt2onnx {

ConvertOptions options_from_config(const std::filesystem::path& config_path) {
  auto config = std::make_shared<const config::Config>(config::load_config(config_path));
  ConvertOptions options = config->options.convert;
  options.config = config_path;
  options.parsed_config = std::move(config);  // convert() uses it instead of reading the file again
  return options;
}

}  // namespace pt2onnx
