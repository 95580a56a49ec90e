// The defaults of --hiera's functions, declared once: the public options (pt2onnx.h) and the
// hierarchy stage's own (hierarchy/hierarchy.h) take them from here. Installed with pt2onnx.h
// (include/pt2onnx/common/).
#pragma once

namespace pt2onnx {

// The domain of the functions --hiera makes (and of their call nodes).
inline constexpr const char* kDefaultFunctionDomain = "pt2onnx.hiera";
// Their name pattern: "{class}" is the class name, "{qualified}" the qualified one with '_' for '.'.
inline constexpr const char* kDefaultFunctionName = "{class}";

}  // namespace pt2onnx
