// The opsets pt2onnx converts to, declared once: the range --opset accepts and the default.
// Installed with pt2onnx.h (include/pt2onnx/common/).
#pragma once

namespace pt2onnx {

// The smallest and largest opset `--opset` accepts.
constexpr int kMinOpset = 17;
constexpr int kMaxOpset = 28;
// The opset of a conversion that names none.
constexpr int kDefaultOpset = 18;

}  // namespace pt2onnx
