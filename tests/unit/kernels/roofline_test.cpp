// The benchmark's performance model without a GPU: peaks from device facts against published
// figures, the table's fallback, and the work of the benchmark cases.
#include <doctest/doctest.h>

#include "common/error.h"
#include "kernels/roofline.h"

namespace pt2onnx::kernels {
namespace {

TEST_CASE("peaks from SM count, clocks and bus width match the published figures") {
  // H200 SXM: 132 SMs at 1980 MHz, HBM3e 6144-bit at 3201 MHz (4.8 TB/s; 989 TFLOP/s dense fp16
  // at the 1830 MHz boost NVIDIA quotes, so ~1070 at the driver's 1980 MHz peak clock).
  const Peaks h200 = device_peaks({9, 0, 132, 1980000, 3201000, 6144});
  CHECK(h200.dram_gbps == doctest::Approx(4917.0).epsilon(0.001));
  CHECK(h200.tensor_fp16_tflops == doctest::Approx(132 * 1.98e9 * 4096 / 1e12).epsilon(1e-9));
  CHECK(device_peaks({9, 0, 132, 1830000, 3201000, 6144}).tensor_fp16_tflops == doctest::Approx(989.0).epsilon(0.01));
  // A100 SXM 40 GB: 108 SMs at 1410 MHz, 5120-bit HBM2 at 1215 MHz: 312 TFLOP/s, 1555 GB/s, 19.5 fp32.
  const Peaks a100 = device_peaks({8, 0, 108, 1410000, 1215000, 5120});
  CHECK(a100.tensor_fp16_tflops == doctest::Approx(312.0).epsilon(0.01));
  CHECK(a100.dram_gbps == doctest::Approx(1555.0).epsilon(0.01));
  CHECK(a100.fp32_tflops == doctest::Approx(19.5).epsilon(0.01));
  // RTX 4090: 128 SMs at 2520 MHz: 165 TFLOP/s fp16 with fp32 accumulation; 384-bit at 10501 MHz: 1008 GB/s.
  const Peaks ada = device_peaks({8, 9, 128, 2520000, 10501000, 384});
  CHECK(ada.tensor_fp16_tflops == doctest::Approx(165.2).epsilon(0.01));
  CHECK(ada.dram_gbps == doctest::Approx(1008.0).epsilon(0.01));
}

TEST_CASE("the table falls back within a major and refuses an unknown one") {
  CHECK(arch_throughput(9, 0)->tensor_fp16_flops_per_clk == 4096);
  CHECK(arch_throughput(8, 7)->sm == 87);
  CHECK(arch_throughput(8, 8)->sm == 80);  // no row: the major's first
  CHECK_FALSE(arch_throughput(7, 5).has_value());
  CHECK_THROWS_AS(device_peaks({7, 5, 40, 1590000, 5001000, 256}), Error);
}

TEST_CASE("benchmark cases: the issue's sizes, work and targets") {
  const auto cases = bench_cases();
  int gemms = 0, attention = 0, norms = 0;
  for (const auto& c : cases) {
    if (c.function == "BenchMatMul") {
      ++gemms;
      const double n = static_cast<double>(c.dims.at("x0.0"));
      CHECK(c.dims.at("x1.1") == c.dims.at("x0.0"));
      CHECK(c.flops == 2 * n * n * n);
      CHECK(c.target == (n == 4096 ? 0.5 : 0.0));
    } else if (c.function == "BenchAttention") {
      ++attention;
      const double s = static_cast<double>(c.dims.at("x0.2"));
      CHECK(c.flops == 4.0 * 32 * s * s * 64);
      CHECK(c.target == 0.35);
    } else {
      ++norms;
      CHECK(c.peak == PeakKind::kDram);
      CHECK(c.bytes == 2.0 * static_cast<double>(c.dims.at("x0.0")) * 4096 * 2);
      CHECK(c.target == 0.70);
    }
  }
  CHECK(gemms == 4);      // 1024, 2048, 4096, 8192
  CHECK(attention == 5);  // 512 ... 8192
  CHECK(norms == 4);      // RMSNorm and LayerNorm at 4096 and 16384 rows
  // 4096^3 in 1 ms is 137.4 TFLOP/s; a norm moving 128 MiB in 0.1 ms is 1342 GB/s.
  BenchCase g = cases[2];
  CHECK(achieved(g, 1e-3) == doctest::Approx(137.44).epsilon(1e-3));
  BenchCase r = cases.back();
  CHECK(achieved(r, 1e-4) == doctest::Approx(r.bytes / 1e-4 / 1e9));
}

}  // namespace
}  // namespace pt2onnx::kernels
