// Integer powers as torch's kernels compute them (its powi): exponentiation by squaring, every
// product wrapping around the type's range as its C++ multiplication does, and for a negative
// exponent 1 for base 1, +-1 for base -1 and 0 otherwise. onnxruntime's integer Pow goes through
// double: results past 2^53 lose their low digits and results past the type's range saturate.
#pragma once

#include <string>

#include "ir/dtype.h"

namespace pt2onnx::translate {

class EmitContext;

// base ** exponent, both of integral `type` (broadcasting).
std::string integer_pow(EmitContext& ctx, const std::string& base, const std::string& exponent, ir::DType type);

}  // namespace pt2onnx::translate
