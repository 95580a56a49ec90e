// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: the manifest's checksums.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace pt2onnx::kernels {

std::string sha256_hex(std::string_view data);

// The same, fed in pieces (files too big to hold): update() any number of times, then hex() once.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  std::string hex();

 private:
  std::array<uint32_t, 8> h_;
  std::array<unsigned char, 64> block_{};
  size_t pending_ = 0;
  uint64_t total_ = 0;
};

}  // namespace pt2onnx::kernels
