// Peak table and benchmark workloads (see roofline.h).
#include "kernels/roofline.h"

#include "common/error.h"

namespace pt2onnx::kernels {

namespace {

// Per SM per clock, dense. FP32: 64 FMA lanes per SM on sm_80 (128 FLOP/clk), 128 lanes on the
// others. Tensor fp16 with fp32 accumulation: A100 312 TFLOP/s = 108 SMs x 1.41 GHz x 2048; H100
// SXM 989 = 132 x 1.83 GHz x 4096; B200 ~2250 = 148 x 1.86 GHz x 8192; GeForce parts accumulate
// fp32 at half rate (3090 71 TFLOP/s = 82 x 1.70 GHz x 512, 4090 165 = 128 x 2.52 GHz x 512,
// 5090 ~210 = 170 x 2.41 GHz x 512).
constexpr ArchThroughput kTable[] = {
    {80, 128, 2048}, {86, 256, 512}, {87, 256, 1024}, {89, 256, 512},
    {90, 256, 4096}, {100, 256, 8192}, {103, 256, 8192}, {120, 256, 512},
};

}  // namespace

std::optional<ArchThroughput> arch_throughput(int sm_major, int sm_minor) {
  const int sm = sm_major * 10 + sm_minor;
  const ArchThroughput* same_major = nullptr;
  for (const auto& row : kTable) {
    if (row.sm == sm) return row;
    if (row.sm / 10 == sm_major && !same_major) same_major = &row;
  }
  if (same_major) return *same_major;
  return std::nullopt;
}

Peaks device_peaks(const DeviceFacts& d) {
  const auto t = arch_throughput(d.sm_major, d.sm_minor);
  PT2ONNX_CHECK(t.has_value(), ErrorCode::kUsage,
                "no throughput table row for sm_" + std::to_string(d.sm_major) + std::to_string(d.sm_minor));
  const double sm_hz = static_cast<double>(d.sm_count) * static_cast<double>(d.clock_khz) * 1e3;
  Peaks p;
  p.fp32_tflops = sm_hz * t->fp32_flops_per_clk / 1e12;
  p.tensor_fp16_tflops = sm_hz * t->tensor_fp16_flops_per_clk / 1e12;
  p.dram_gbps = 2.0 * static_cast<double>(d.mem_clock_khz) * 1e3 * (d.bus_bits / 8.0) / 1e9;
  return p;
}

double peak_of(const Peaks& p, PeakKind kind) {
  switch (kind) {
    case PeakKind::kTensorFp16: return p.tensor_fp16_tflops;
    case PeakKind::kFp32: return p.fp32_tflops;
    case PeakKind::kDram: return p.dram_gbps;
  }
  return 0;
}

const char* peak_name(PeakKind kind) {
  switch (kind) {
    case PeakKind::kTensorFp16: return "fp16 tensor TFLOP/s";
    case PeakKind::kFp32: return "fp32 TFLOP/s";
    case PeakKind::kDram: return "DRAM GB/s";
  }
  return "?";
}

std::vector<BenchCase> bench_cases() {
  std::vector<BenchCase> cases;
  constexpr double kHalf = 2;  // bytes per fp16 element
  for (int64_t n : {1024, 2048, 4096, 8192}) {
    BenchCase c;
    c.function = "BenchMatMul";
    c.label = "fp16 GEMM " + std::to_string(n) + "^3";
    c.dims = {{"x0.0", n}, {"x0.1", n}, {"x1.0", n}, {"x1.1", n}};
    const double d = static_cast<double>(n);
    c.flops = 2 * d * d * d;
    c.bytes = 3 * d * d * kHalf;
    c.peak = PeakKind::kTensorFp16;
    c.target = n == 4096 ? 0.50 : 0;
    cases.push_back(c);
  }
  for (int64_t s : {512, 1024, 2048, 4096, 8192}) {
    constexpr int64_t kBatch = 1, kHeads = 32, kHeadDim = 64;
    BenchCase c;
    c.function = "BenchAttention";
    c.label = "fp16 attention b1 h32 d64 s" + std::to_string(s);
    for (const char* in : {"x0", "x1", "x2"}) {
      c.dims[std::string(in) + ".0"] = kBatch;
      c.dims[std::string(in) + ".1"] = kHeads;
      c.dims[std::string(in) + ".2"] = s;
    }
    const double bh = static_cast<double>(kBatch * kHeads), sd = static_cast<double>(s);
    c.flops = 4 * bh * sd * sd * kHeadDim;  // Q K^T and P V, 2 FLOPs per multiply-add
    c.bytes = 4 * bh * sd * kHeadDim * kHalf;  // q, k, v read, o written
    c.peak = PeakKind::kTensorFp16;
    c.target = 0.35;
    cases.push_back(c);
  }
  for (const char* fn : {"BenchRMSNorm", "BenchLayerNorm"}) {
    for (int64_t rows : {4096, 16384}) {
      constexpr int64_t kHidden = 4096;
      BenchCase c;
      c.function = fn;
      c.label = std::string(fn == std::string("BenchRMSNorm") ? "RMSNorm" : "LayerNorm") + " fp16 [" + std::to_string(rows) +
                ", 4096]";
      c.dims = {{"x0.0", rows}};
      c.bytes = 2.0 * static_cast<double>(rows * kHidden) * kHalf;  // read x, write y (weights stay in cache)
      c.flops = 0;
      c.peak = PeakKind::kDram;
      c.target = 0.70;
      cases.push_back(c);
    }
  }
  return cases;
}

double achieved(const BenchCase& c, double seconds) {
  if (seconds <= 0) return 0;
  return c.peak == PeakKind::kDram ? c.bytes / seconds / 1e9 : c.flops / seconds / 1e12;
}

}  // namespace pt2onnx::kernels
