// The performance model of `bundle_launcher --bench`: a device's peaks from the facts the driver
// reports (SM count, clocks, memory bus) and a per-architecture table of throughput per SM per
// clock, the work (FLOPs, bytes) of each benchmark case, and the targets. No GPU needed:
// unit-tested here, used on a GPU by the launcher.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pt2onnx::kernels {

// What cuDeviceGetAttribute reports (clocks in kHz, the bus in bits).
struct DeviceFacts {
  int sm_major = 0, sm_minor = 0;
  int sm_count = 0;
  int64_t clock_khz = 0;      // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (peak SM clock)
  int64_t mem_clock_khz = 0;  // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
  int bus_bits = 0;           // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH
};

// Dense throughput per SM per clock of one architecture.
struct ArchThroughput {
  int sm = 0;                  // 80, 86, 89, 90, 100, 120
  int fp32_flops_per_clk = 0;  // FMA lanes x 2
  int tensor_fp16_flops_per_clk = 0;  // fp16 inputs, fp32 accumulation, dense (no sparsity)
};

// The table row for an architecture: exact sm, else the same major's lowest row; nullopt when
// the major is unknown.
std::optional<ArchThroughput> arch_throughput(int sm_major, int sm_minor);

struct Peaks {
  double fp32_tflops = 0, tensor_fp16_tflops = 0, dram_gbps = 0;
};

// Peaks from the facts: SMs x clock x per-clock throughput; DRAM = 2 (double data rate) x memory
// clock x bus width. Throws Error(kUsage) for an architecture the table lacks.
Peaks device_peaks(const DeviceFacts& d);

enum class PeakKind { kTensorFp16, kFp32, kDram };
double peak_of(const Peaks& p, PeakKind kind);  // TFLOP/s for compute, GB/s for DRAM
const char* peak_name(PeakKind kind);

// One benchmark case: the bundle of function `function` at the given sizes of its inputs'
// dims ("x0.1" = input x0, axis 1; the launcher resolves the manifest's symbols from them).
struct BenchCase {
  std::string function, label;
  std::map<std::string, int64_t> dims;
  double flops = 0, bytes = 0;  // the work the whole bundle does (bytes: compulsory DRAM traffic)
  PeakKind peak = PeakKind::kDram;
  double target = 0;            // fraction of the peak the issue asks for; 0: reported only
};

// The workloads over the functions of samples/kernels/bench.default.pt2 (fp16):
// BenchMatMul [m, k] x [k, n] at 1024..8192, BenchAttention [1, 32, s, 64] at s 512..8192,
// BenchRMSNorm and BenchLayerNorm over [rows, 4096].
std::vector<BenchCase> bench_cases();

// Achieved rate (TFLOP/s or GB/s, as the case's peak kind counts) for `seconds` of work.
double achieved(const BenchCase& c, double seconds);

}  // namespace pt2onnx::kernels
