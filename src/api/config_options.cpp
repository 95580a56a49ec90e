// options_from_config(): the option part of a --config file, as ConvertOptions.
#include "config/config.h"
#include "pt2onnx.h"

namespace pt2onnx {

ConvertOptions options_from_config(const std::filesystem::path& config_path) {
  const config::Config config = config::load_config(config_path);
  ConvertOptions options;
  options.config = config_path;
  if (config.input) options.input = *config.input;
  if (config.output) options.output = *config.output;
  if (config.model) options.model = *config.model;
  if (config.opset) options.opset = *config.opset;
  if (config.external_data) options.external_data = *config.external_data;
  if (config.strict) options.strict = *config.strict;
  options.hiera = config.hiera;
  if (config.function_domain) options.function_domain = *config.function_domain;
  if (config.function_name) options.function_name = *config.function_name;
  options.compile = config.compile;
  if (config.archs) options.archs = *config.archs;
  if (config.kernels_dir) options.kernels_dir = *config.kernels_dir;
  if (config.nvrtc) options.nvrtc = *config.nvrtc;
  options.dim_names = config.dim_names;
  return options;
}

}  // namespace pt2onnx
