// bundle_launcher --bench (see bench.h).
#include "bench.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_driver.h"
#include "kernels/expr.h"
#include "kernels/roofline.h"

namespace fs = std::filesystem;
using nlohmann::json;
using launcher::CUdeviceptr;
namespace k = pt2onnx::kernels;

namespace {

constexpr int kWarmup = 3, kReps = 20;

json read_manifest(const fs::path& bundle) {
  std::ifstream f(bundle / "manifest.json");
  if (!f) throw std::runtime_error((bundle / "manifest.json").string() + ": cannot read");
  return json::parse(f);
}

std::vector<char> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error(p.string() + ": cannot read");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

int64_t eval(const json& e, const std::map<std::string, int64_t>& syms) {
  return e.is_number_integer() ? e.get<int64_t>() : k::eval_expr(e.get<std::string>(), syms);
}

size_t element_bytes(const std::string& d) {
  if (d == "FLOAT" || d == "INT32") return 4;
  if (d == "FLOAT16" || d == "BFLOAT16") return 2;
  if (d == "INT64") return 8;
  if (d == "BOOL") return 1;
  throw std::runtime_error("dtype " + d + " is not handled");
}

// Small values of both signs (fp16 0.1/-0.2/0.3, or the float ones), so softmax and norms stay finite.
std::vector<char> fill(const std::string& dtype, size_t bytes) {
  std::vector<char> h(bytes, 0);
  if (dtype == "FLOAT16" || dtype == "BFLOAT16") {
    static constexpr uint16_t kF16[3] = {0x2E66, 0xB266, 0x34CD}, kB16[3] = {0x3DCD, 0xBE4D, 0x3E9A};
    const uint16_t* values = dtype == "FLOAT16" ? kF16 : kB16;
    for (size_t k = 0; 2 * k + 1 < bytes; ++k) std::memcpy(h.data() + 2 * k, values + k % 3, 2);
  } else if (dtype == "FLOAT") {
    const float v[] = {0.1f, -0.2f, 0.3f};
    for (size_t i = 0; i + 3 < bytes; i += 4) std::memcpy(&h[i], &v[(i / 4) % 3], 4);
  }
  return h;
}

// The manifest's symbols at a case's sizes (each symbol is read from an input's axis).
std::map<std::string, int64_t> resolve_symbols(const json& m, const k::BenchCase& c) {
  std::map<std::string, int64_t> syms;
  for (const auto& [sym, spec] : m["symbols"].items()) {
    const std::string key = spec["from"]["input"].get<std::string>() + "." + std::to_string(spec["from"]["axis"].get<int>());
    auto it = c.dims.find(key);
    if (it == c.dims.end()) throw std::runtime_error(c.function + ": the case " + c.label + " gives no size for " + key);
    syms[sym] = it->second;
  }
  return syms;
}

size_t tensor_bytes(const json& io, const std::map<std::string, int64_t>& syms) {
  size_t n = element_bytes(io["dtype"]);
  for (const auto& dim : io["shape"]) n *= static_cast<size_t>(eval(dim, syms));
  return n;
}

// --dry-run: what a benchmark run would allocate and launch, without a GPU.
int dry_run(int argc, char** argv) {
  int cases = 0;
  for (int i = 3; i < argc; ++i) {
    const json m = read_manifest(argv[i]);
    const std::string fn = m["function"]["name"];
    for (const k::BenchCase& c : k::bench_cases()) {
      if (c.function != fn) continue;
      const auto syms = resolve_symbols(m, c);
      size_t bytes = static_cast<size_t>(eval(m["workspace"]["bytes"], syms));
      for (const auto& io : m["inputs"]) bytes += tensor_bytes(io, syms);
      for (const auto& io : m["outputs"]) bytes += tensor_bytes(io, syms);
      std::string grids;
      for (const auto& l : m["launches"]) {
        grids += " [";
        for (size_t g = 0; g < 3; ++g) {  // appends: GCC 12 warns falsely (-Wrestrict) on "," + to_string()
          if (g) grids.append(",");
          grids.append(std::to_string(eval(l["grid"][g], syms)));
        }
        grids += "]";
      }
      std::printf("%-44s %zu launch(es)%s, %.1f MiB of device memory, %.3g FLOP, %.3g bytes\n", c.label.c_str(),
                  m["launches"].size(), grids.c_str(), static_cast<double>(bytes) / (1 << 20), c.flops, c.bytes);
      ++cases;
    }
  }
  std::printf("%d cases\n", cases);
  return cases ? 0 : 1;
}

struct Device {
  launcher::Driver drv{};
  launcher::CUdevice dev = 0;
  k::DeviceFacts facts;
  std::string name;
};

void bench_bundle(Device& d, const fs::path& bundle, const k::Peaks& peaks, std::vector<std::string>& summary) {
  const json m = read_manifest(bundle);
  const std::string fn = m["function"]["name"];
  // As the replay picks: the exact sm_XY, else the highest plain sm_XZ with Z <= Y.
  const std::string arch = "sm_" + std::to_string(d.facts.sm_major * 10 + d.facts.sm_minor);
  std::string chosen;
  int best_minor = -1;
  for (const auto& [a, img] : m["images"].items()) {
    if (a == arch) {
      chosen = a;
      break;
    }
    const std::string digits = a.substr(3);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const int sm = std::stoi(digits);
    if (sm / 10 == d.facts.sm_major && sm % 10 <= d.facts.sm_minor && sm % 10 > best_minor) {
      best_minor = sm % 10;
      chosen = a;
    }
  }
  if (chosen.empty()) throw std::runtime_error(fn + ": no image for " + arch);
  const std::vector<char> cubin = read_bytes(bundle / m["images"][chosen]["file"].get<std::string>());
  launcher::CUmodule module = nullptr;
  d.drv.check(d.drv.cuModuleLoadData(&module, cubin.data()), fn + ": cuModuleLoadData");
  std::map<std::string, launcher::CUfunction> functions;
  for (const auto& [key, kern] : m["kernels"].items()) {
    launcher::CUfunction f = nullptr;
    d.drv.check(d.drv.cuModuleGetFunction(&f, module, kern["symbol"].get<std::string>().c_str()), "cuModuleGetFunction");
    functions[key] = f;
  }
  for (const k::BenchCase& c : k::bench_cases()) {
    if (c.function != fn) continue;
    const std::map<std::string, int64_t> syms = resolve_symbols(m, c);
    std::vector<std::pair<CUdeviceptr, size_t>> allocs;
    auto alloc = [&](size_t bytes) {
      CUdeviceptr p = 0;
      d.drv.check(d.drv.cuMemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc of " + std::to_string(bytes) + " bytes");
      allocs.emplace_back(p, bytes);
      return p;
    };
    std::map<std::string, CUdeviceptr> inputs, outputs, buffers;
    for (const auto& in : m["inputs"]) {
      const size_t n = tensor_bytes(in, syms);
      inputs[in["name"]] = alloc(n);
      const std::vector<char> host = fill(in["dtype"], n);
      d.drv.check(d.drv.cuMemcpyHtoD(inputs[in["name"]], host.data(), n), "copy of an input");
    }
    for (const auto& out : m["outputs"]) outputs[out["name"]] = alloc(tensor_bytes(out, syms));
    const CUdeviceptr ws = alloc(static_cast<size_t>(eval(m["workspace"]["bytes"], syms)));
    for (const auto& [name, b] : m["workspace"]["buffers"].items()) buffers[name] = ws + static_cast<CUdeviceptr>(eval(b["offset"], syms));
    struct Prepared {
      std::string kernel, computes;
      launcher::CUfunction f;
      unsigned grid[3], block[3], smem = 0;
      std::vector<uint64_t> args;
    };
    std::vector<Prepared> launches;
    for (const auto& l : m["launches"]) {
      Prepared p;
      p.kernel = l["kernel"];
      const json& kern = m["kernels"][p.kernel];
      p.computes = kern.value("computes", p.kernel);
      p.f = functions.at(p.kernel);
      p.smem = static_cast<unsigned>(eval(kern.value("dynamic_smem", json("0")), syms));
      for (int i = 0; i < 3; ++i) {
        p.grid[i] = static_cast<unsigned>(eval(l["grid"][static_cast<size_t>(i)], syms));
        p.block[i] = kern["block"][static_cast<size_t>(i)].get<unsigned>();
      }
      for (const auto& arg : l["args"]) {
        const auto& [kind, val] = *arg.items().begin();
        if (kind == "input") p.args.push_back(inputs.at(val.get<std::string>()));
        else if (kind == "output") p.args.push_back(outputs.at(val.get<std::string>()));
        else if (kind == "buffer") p.args.push_back(buffers.at(val.get<std::string>()));
        else p.args.push_back(static_cast<uint64_t>(k::eval_expr(val.get<std::string>(), syms)));
      }
      if (p.grid[0] && p.grid[1] && p.grid[2]) launches.push_back(std::move(p));
    }
    std::vector<launcher::CUevent> events(launches.size() + 1);
    for (auto& e : events) d.drv.check(d.drv.cuEventCreate(&e, 0), "cuEventCreate");
    std::vector<double> ms(launches.size(), 0.0);
    for (int rep = 0; rep < kWarmup + kReps; ++rep) {
      d.drv.check(d.drv.cuEventRecord(events[0], nullptr), "cuEventRecord");
      for (size_t i = 0; i < launches.size(); ++i) {
        Prepared& p = launches[i];
        std::vector<void*> argv;
        for (auto& a : p.args) argv.push_back(&a);
        d.drv.check(d.drv.cuLaunchKernel(p.f, p.grid[0], p.grid[1], p.grid[2], p.block[0], p.block[1], p.block[2], p.smem, nullptr,
                                         argv.data(), nullptr),
                    "launch of " + p.kernel);
        d.drv.check(d.drv.cuEventRecord(events[i + 1], nullptr), "cuEventRecord");
      }
      d.drv.check(d.drv.cuEventSynchronize(events.back()), "cuEventSynchronize");
      if (rep < kWarmup) continue;
      for (size_t i = 0; i < launches.size(); ++i) {
        float t = 0;
        d.drv.check(d.drv.cuEventElapsedTime(&t, events[i], events[i + 1]), "cuEventElapsedTime");
        ms[i] += t / kReps;
      }
    }
    double total = 0;
    for (size_t i = 0; i < launches.size(); ++i) {
      total += ms[i];
      std::printf("  %-44s %-10s %-48s %9.4f ms\n", c.label.c_str(), launches[i].kernel.c_str(), launches[i].computes.c_str(), ms[i]);
    }
    const double rate = k::achieved(c, total * 1e-3), peak = k::peak_of(peaks, c.peak), frac = peak > 0 ? rate / peak : 0;
    char line[512];
    std::snprintf(line, sizeof line, "%-44s %3zu kernel(s) %9.4f ms %10.1f %-20s %6.1f%% of %8.1f   target %s",
                  c.label.c_str(), launches.size(), total, rate, k::peak_name(c.peak), 100 * frac, peak,
                  c.target > 0 ? (std::to_string(static_cast<int>(c.target * 100)) + "%: " + (frac >= c.target ? "MET" : "MISSED")).c_str()
                               : "-");
    summary.emplace_back(line);
    for (auto& e : events) d.drv.cuEventDestroy(e);
    for (auto& [p, n] : allocs) d.drv.cuMemFree(p);
  }
  d.drv.cuModuleUnload(module);
}

}  // namespace

int bench_main(int argc, char** argv) {
  try {
    if (argc >= 3 && std::string(argv[2]) == "--dry-run") return dry_run(argc, argv);
    Device d;
    std::string why;
    if (!d.drv.load(why)) {
      std::cout << "SKIP: " << why << "\n";
      return 77;
    }
    int count = 0;
    if (d.drv.cuInit(0) != 0 || d.drv.cuDeviceGetCount(&count) != 0 || count == 0) {
      std::cout << "SKIP: no usable CUDA device\n";
      return 77;
    }
    d.drv.check(d.drv.cuDeviceGet(&d.dev, 0), "cuDeviceGet");
    auto attr = [&](int a) {
      int v = 0;
      d.drv.check(d.drv.cuDeviceGetAttribute(&v, a, d.dev), "cuDeviceGetAttribute");
      return v;
    };
    d.facts = {attr(launcher::kAttrComputeCapabilityMajor), attr(launcher::kAttrComputeCapabilityMinor),
               attr(launcher::kAttrMultiprocessorCount), attr(launcher::kAttrClockRate), attr(launcher::kAttrMemoryClockRate),
               attr(launcher::kAttrGlobalMemoryBusWidth)};
    char name[256] = {};
    d.drv.cuDeviceGetName(name, sizeof name, d.dev);
    const k::Peaks peaks = k::device_peaks(d.facts);
    std::printf("device %s sm_%d%d: %d SMs at %.0f MHz, memory %.0f MHz x %d bits\n", name, d.facts.sm_major, d.facts.sm_minor,
                d.facts.sm_count, static_cast<double>(d.facts.clock_khz) / 1e3, static_cast<double>(d.facts.mem_clock_khz) / 1e3,
                d.facts.bus_bits);
    std::printf("peaks: fp16 tensor %.1f TFLOP/s, fp32 %.1f TFLOP/s, DRAM %.1f GB/s; %d warm-up + %d timed passes\n",
                peaks.tensor_fp16_tflops, peaks.fp32_tflops, peaks.dram_gbps, kWarmup, kReps);
    launcher::CUcontext ctx = nullptr;
    d.drv.check(d.drv.cuDevicePrimaryCtxRetain(&ctx, d.dev), "cuDevicePrimaryCtxRetain");
    d.drv.check(d.drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    std::vector<std::string> summary;
    for (int i = 2; i < argc; ++i) bench_bundle(d, argv[i], peaks, summary);
    std::printf("\n%-44s %-11s %12s %10s %-20s %s\n", "case", "launches", "time", "achieved", "unit", "fraction of peak, target");
    for (const auto& s : summary) std::printf("%s\n", s.c_str());
    d.drv.cuDevicePrimaryCtxRelease(d.dev);
    return summary.empty() ? 1 : 0;
  } catch (const std::exception& e) {
    std::cout << "ERROR: " << e.what() << "\n";
    return 1;
  }
}
