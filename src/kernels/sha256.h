// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: the manifest's checksums.
#pragma once

#include <string>
#include <string_view>

namespace pt2onnx::kernels {

std::string sha256_hex(std::string_view data);

}  // namespace pt2onnx::kernels
