// bundle_launcher BUNDLE_DIR CASE_DIR...
// bundle_launcher --verify BUNDLE_DIR
// bundle_launcher --bench BUNDLE_DIR...   (bench.h)
//
// --verify (no GPU needed) checks the bundle against its manifest with pt2onnx's own cubin reader:
// sha256 of every file, ELF machine/type, the SM in e_flags against the image key, every kernel
// symbol present with the manifest's parameter count and sizes, launches consistent with the
// kernels' parameters, and every expression readable.
//
// Replays a pt2onnx --compile kernel bundle on the first GPU, exactly as its manifest says, and
// compares the outputs with reference outputs. A case directory holds `symbols.txt` (lines
// "NAME VALUE", one per manifest symbol) and one raw little-endian row-major file per function
// input and output, `<name>.bin`, in the manifest's dtype. Prints the max abs error per output.
// Exit status: 0 all cases pass, 1 a mismatch or error, 77 no CUDA driver or GPU (test skipped).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.h"
#include "cuda_driver.h"
#include "kernels/cubin.h"
#include "kernels/expr.h"
#include "kernels/sha256.h"

namespace fs = std::filesystem;
using nlohmann::json;
using launcher::CUdeviceptr;

namespace {

constexpr int kSkip = 77;

std::vector<char> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error(p.string() + ": cannot read");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

int dtype_bytes(const std::string& d) {
  if (d == "FLOAT" || d == "INT32") return 4;
  if (d == "FLOAT16" || d == "BFLOAT16") return 2;
  if (d == "INT64") return 8;
  if (d == "BOOL") return 1;
  throw std::runtime_error("dtype " + d + " is not handled");
}

double element(const std::vector<char>& buf, const std::string& d, size_t i) {
  if (d == "FLOAT") { float v; std::memcpy(&v, buf.data() + 4 * i, 4); return v; }
  if (d == "INT32") { int32_t v; std::memcpy(&v, buf.data() + 4 * i, 4); return v; }
  if (d == "INT64") { int64_t v; std::memcpy(&v, buf.data() + 8 * i, 8); return static_cast<double>(v); }
  if (d == "BOOL") return buf[i] != 0;
  uint16_t h;
  std::memcpy(&h, buf.data() + 2 * i, 2);
  if (d == "BFLOAT16") {
    const uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  const int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
  return s ? -v : v;
}

int64_t eval(const json& e, const std::map<std::string, int64_t>& syms) {
  if (e.is_number_integer()) return e.get<int64_t>();
  return pt2onnx::kernels::eval_expr(e.get<std::string>(), syms);
}

int64_t numel(const json& shape, const std::map<std::string, int64_t>& syms) {
  int64_t n = 1;
  for (const auto& d : shape) n *= eval(d, syms);
  return n;
}

struct DeviceBuffer {
  const launcher::Driver* drv = nullptr;
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  DeviceBuffer(const launcher::Driver& d, size_t n) : drv(&d), bytes(n) {
    d.check(d.cuMemAlloc(&ptr, n == 0 ? 1 : n), "cuMemAlloc");
  }
  ~DeviceBuffer() {
    if (ptr) drv->cuMemFree(ptr);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Runs one case; returns true when every output is within tolerance.
bool run_case(const launcher::Driver& drv, const json& m, const std::map<std::string, launcher::CUfunction>& functions,
              const fs::path& case_dir) {
  std::map<std::string, int64_t> syms;
  {
    std::ifstream f(case_dir / "symbols.txt");
    std::string name;
    int64_t v;
    while (f >> name >> v) syms[name] = v;
  }
  for (const auto& [name, spec] : m["symbols"].items())
    if (!syms.count(name)) throw std::runtime_error(case_dir.string() + ": no value for symbol " + name);
  for (const auto& pre : m["requires"]) {
    const std::string text = pre.get<std::string>();
    const size_t le = text.find("<=");
    if (le == std::string::npos) throw std::runtime_error("cannot read precondition " + text);
    if (pt2onnx::kernels::eval_expr(text.substr(0, le), syms) > pt2onnx::kernels::eval_expr(text.substr(le + 2), syms)) {
      std::cout << "  " << case_dir.filename().string() << ": precondition " << text << " fails; a runtime would use the ONNX function\n";
      return false;
    }
  }
  std::map<std::string, std::unique_ptr<DeviceBuffer>> inputs, outputs;
  for (const auto& in : m["inputs"]) {
    const std::string name = in["name"];
    const size_t bytes = static_cast<size_t>(numel(in["shape"], syms)) * static_cast<size_t>(dtype_bytes(in["dtype"]));
    const std::vector<char> host = read_file(case_dir / (name + ".bin"));
    if (host.size() != bytes)
      throw std::runtime_error(name + ".bin holds " + std::to_string(host.size()) + " bytes, the manifest's shape needs " +
                               std::to_string(bytes));
    inputs[name] = std::make_unique<DeviceBuffer>(drv, bytes);
    drv.check(drv.cuMemcpyHtoD(inputs[name]->ptr, host.data(), bytes), "copy of input " + name);
  }
  for (const auto& out : m["outputs"]) {
    const std::string name = out["name"];
    const size_t bytes = static_cast<size_t>(numel(out["shape"], syms)) * static_cast<size_t>(dtype_bytes(out["dtype"]));
    outputs[name] = std::make_unique<DeviceBuffer>(drv, bytes);
    drv.check(drv.cuMemsetD8(outputs[name]->ptr, 0xff, bytes), "memset");  // NaN-ish garbage: unwritten output shows
  }
  const int64_t ws_bytes = eval(m["workspace"]["bytes"], syms);
  DeviceBuffer workspace(drv, static_cast<size_t>(ws_bytes));
  std::map<std::string, CUdeviceptr> buffers;
  for (const auto& [name, b] : m["workspace"]["buffers"].items())
    buffers[name] = workspace.ptr + static_cast<CUdeviceptr>(eval(b["offset"], syms));

  for (const auto& launch : m["launches"]) {
    const json& kernel = m["kernels"][launch["kernel"].get<std::string>()];
    unsigned grid[3];
    bool empty = false;
    for (int i = 0; i < 3; ++i) {
      const int64_t g = eval(launch["grid"][static_cast<size_t>(i)], syms);
      if (g == 0) empty = true;
      if (g < 0 || g > (i == 0 ? 2147483647LL : 65535LL)) throw std::runtime_error("grid extent out of range");
      grid[i] = static_cast<unsigned>(g);
    }
    if (empty) continue;
    std::vector<uint64_t> storage;
    storage.reserve(launch["args"].size());
    for (const auto& arg : launch["args"]) {
      const auto& [kind, val] = *arg.items().begin();
      if (kind == "input") storage.push_back(inputs.at(val.get<std::string>())->ptr);
      else if (kind == "output") storage.push_back(outputs.at(val.get<std::string>())->ptr);
      else if (kind == "buffer") storage.push_back(buffers.at(val.get<std::string>()));
      else if (kind == "i64") storage.push_back(static_cast<uint64_t>(pt2onnx::kernels::eval_expr(val.get<std::string>(), syms)));
      else throw std::runtime_error("unknown argument kind " + kind);
    }
    if (storage.size() != kernel["params"].size()) throw std::runtime_error("argument count differs from the kernel's params");
    std::vector<void*> args;
    for (auto& s : storage) args.push_back(&s);
    const auto& block = kernel["block"];
    drv.check(drv.cuLaunchKernel(functions.at(kernel["symbol"]), grid[0], grid[1], grid[2], block[0], block[1], block[2], 0,
                                 nullptr, args.data(), nullptr),
              "launch of " + kernel["symbol"].get<std::string>());
  }
  drv.check(drv.cuCtxSynchronize(), "synchronize after the launches");

  bool ok = true;
  for (const auto& out : m["outputs"]) {
    const std::string name = out["name"], dtype = out["dtype"];
    const std::vector<char> ref = read_file(case_dir / (name + ".bin"));
    std::vector<char> got(outputs[name]->bytes);
    drv.check(drv.cuMemcpyDtoH(got.data(), outputs[name]->ptr, got.size()), "copy of output " + name);
    if (ref.size() != got.size()) throw std::runtime_error(name + ".bin has the wrong size");
    const json& tol = m["numerics"]["tolerance"].contains(dtype) ? m["numerics"]["tolerance"][dtype] : json{{"rtol", 0.0}, {"atol", 0.0}};
    const double rtol = tol["rtol"], atol = tol["atol"];
    double max_abs = 0, max_ref = 0;
    size_t bad = 0;
    const size_t n = got.size() / static_cast<size_t>(dtype_bytes(dtype));
    for (size_t i = 0; i < n; ++i) {
      const double g = element(got, dtype, i), r = element(ref, dtype, i);
      const double err = std::fabs(g - r);
      if (!(err <= atol + rtol * std::fabs(r))) ++bad;  // NaN counts as bad
      if (err > max_abs || std::isnan(err)) max_abs = std::isnan(err) ? INFINITY : err;
      max_ref = std::max(max_ref, std::fabs(r));
    }
    char line[512];
    std::snprintf(line, sizeof line, "  %s: output %s [%s, %zu elements] max_abs_err=%.3g (max |ref| %.3g, rtol %.0e atol %.0e): %s",
                  case_dir.filename().string().c_str(), name.c_str(), dtype.c_str(), n, max_abs, max_ref, rtol, atol,
                  bad ? "FAIL" : "ok");
    std::cout << line;
    if (bad) std::cout << " (" << bad << " elements out of tolerance)";
    std::cout << "\n";
    ok = ok && bad == 0;
  }
  return ok;
}

// Returns the number of problems found (printed).
int verify(const fs::path& bundle, const json& m) {
  int problems = 0;
  auto problem = [&](const std::string& what) {
    std::cout << "  problem: " << what << "\n";
    ++problems;
  };
  const std::vector<char> src = read_file(bundle / m["source"]["file"].get<std::string>());
  if (pt2onnx::kernels::sha256_hex({src.data(), src.size()}) != m["source"]["sha256"]) problem("source sha256 differs");
  for (const auto& [arch, img] : m["images"].items()) {
    const std::vector<char> cubin = read_file(bundle / img["file"].get<std::string>());
    if (pt2onnx::kernels::sha256_hex({cubin.data(), cubin.size()}) != img["sha256"]) problem(arch + ": cubin sha256 differs");
    if (cubin.size() != img["bytes"].get<size_t>()) problem(arch + ": cubin size differs");
    const pt2onnx::kernels::CubinInfo info = pt2onnx::kernels::read_cubin(cubin);
    if (info.machine != 190 || info.elf_type != 2) problem(arch + ": not an executable EM_CUDA ELF");
    const std::string digits = arch.substr(3, arch.find_first_not_of("0123456789", 3) - 3);
    if (std::to_string(info.sm) != digits) problem(arch + ": e_flags say sm_" + std::to_string(info.sm));
    int checked = 0;
    for (const auto& [key, k] : m["kernels"].items()) {
      const std::string sym = k["symbol"];
      const pt2onnx::kernels::CubinKernel* found = nullptr;
      for (const auto& ck : info.kernels)
        if (ck.symbol == sym) found = &ck;
      if (!found) {
        problem(arch + ": entry " + sym + " missing");
        continue;
      }
      if (found->params.size() != k["params"].size()) {
        problem(arch + ": " + sym + " has " + std::to_string(found->params.size()) + " params in the cubin");
        continue;
      }
      for (size_t i = 0; i < found->params.size(); ++i) {
        if (found->params[i].size != k["params"][i]["bytes"].get<uint32_t>())
          problem(arch + ": " + sym + " param " + std::to_string(i) + " is " + std::to_string(found->params[i].size) + " bytes");
      }
      ++checked;
    }
    std::cout << "  " << arch << ": sm_" << info.sm << " (e_flags 0x" << std::hex << info.flags << std::dec << "), "
              << info.kernels.size() << " entries, " << checked << " kernels checked against the manifest\n";
  }
  std::map<std::string, int64_t> probe;
  for (const auto& [name, spec] : m["symbols"].items()) probe[name] = 7;
  for (const auto& launch : m["launches"]) {
    const std::string key = launch["kernel"];
    if (!m["kernels"].contains(key)) {
      problem("launch of unknown kernel " + key);
      continue;
    }
    const json& params = m["kernels"][key]["params"];
    if (launch["args"].size() != params.size()) problem("launch of " + key + ": argument count differs from its params");
    for (size_t i = 0; i < std::min(params.size(), launch["args"].size()); ++i) {
      const std::string kind = launch["args"][i].begin().key();
      const bool pointer = kind == "input" || kind == "output" || kind == "buffer";
      if (pointer != (params[i]["type"] == "ptr")) problem("launch of " + key + ": argument " + std::to_string(i) + " kind " + kind);
      if (kind == "i64") eval(launch["args"][i]["i64"], probe);
    }
    for (const auto& g : launch["grid"]) eval(g, probe);
  }
  eval(m["workspace"]["bytes"], probe);
  for (const auto& [name, b] : m["workspace"]["buffers"].items()) {
    eval(b["offset"], probe);
    eval(b["bytes"], probe);
  }
  return problems;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--bench") return bench_main(argc, argv);
  if (argc == 3 && std::string(argv[1]) == "--verify") {
    try {
      const fs::path bundle = argv[2];
      const std::vector<char> text = read_file(bundle / "manifest.json");
      const json m = json::parse(text.begin(), text.end());
      std::cout << "verify " << bundle.string() << "\n";
      const int problems = verify(bundle, m);
      std::cout << (problems ? "FAIL" : "OK") << "\n";
      return problems ? 1 : 0;
    } catch (const std::exception& e) {
      std::cout << "ERROR: " << e.what() << "\n";
      return 1;
    }
  }
  if (argc < 3) {
    std::cerr << "usage: bundle_launcher BUNDLE_DIR CASE_DIR...\n";
    return 2;
  }
  try {
    const fs::path bundle = argv[1];
    const std::vector<char> text = read_file(bundle / "manifest.json");
    const json m = json::parse(text.begin(), text.end());
    if (m["format"] != "pt2onnx.kernel-bundle" || m["format_version"][0] != 1)
      throw std::runtime_error("not a version-1 pt2onnx kernel bundle");

    launcher::Driver drv{};
    std::string why;
    if (!drv.load(why)) {
      std::cout << "SKIP: " << why << "\n";
      return kSkip;
    }
    if (drv.cuInit(0) != 0) {
      std::cout << "SKIP: cuInit failed (no usable GPU)\n";
      return kSkip;
    }
    int count = 0;
    if (drv.cuDeviceGetCount(&count) != 0 || count == 0) {
      std::cout << "SKIP: no CUDA device\n";
      return kSkip;
    }
    launcher::CUdevice dev = 0;
    drv.check(drv.cuDeviceGet(&dev, 0), "cuDeviceGet");
    int major = 0, minor = 0, driver = 0;
    drv.check(drv.cuDeviceGetAttribute(&major, launcher::kAttrComputeCapabilityMajor, dev), "attribute");
    drv.check(drv.cuDeviceGetAttribute(&minor, launcher::kAttrComputeCapabilityMinor, dev), "attribute");
    drv.check(drv.cuDriverGetVersion(&driver), "cuDriverGetVersion");
    char name[256] = {};
    drv.cuDeviceGetName(name, sizeof name, dev);
    // Image choice: exact sm_XY, else the highest plain sm_XZ with Z <= Y (same major).
    std::string chosen;
    int best_minor = -1;
    for (const auto& [arch, img] : m["images"].items()) {
      if (arch == "sm_" + std::to_string(major * 10 + minor)) { chosen = arch; break; }
      const std::string digits = arch.substr(3);
      if (digits.empty() || !std::isdigit(static_cast<unsigned char>(digits.back()))) continue;
      const int sm = std::stoi(digits);
      if (sm / 10 == major && sm % 10 <= minor && sm % 10 > best_minor) { best_minor = sm % 10; chosen = arch; }
    }
    std::cout << "device: " << name << " (sm_" << major << minor << "), driver " << driver << "; bundle "
              << m["function"]["name"].get<std::string>() << ", image " << (chosen.empty() ? "none" : chosen) << "\n";
    if (chosen.empty()) throw std::runtime_error("the bundle has no image for this device");
    const json& img = m["images"][chosen];
    if (driver < img["min_driver"].get<int>()) throw std::runtime_error("the driver is older than the image needs");
    const std::vector<char> cubin = read_file(bundle / img["file"].get<std::string>());
    if (pt2onnx::kernels::sha256_hex({cubin.data(), cubin.size()}) != img["sha256"])
      throw std::runtime_error("the cubin's sha256 differs from the manifest");

    launcher::CUcontext ctx = nullptr;
    drv.check(drv.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    drv.check(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    launcher::CUmodule module = nullptr;
    drv.check(drv.cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData");
    std::map<std::string, launcher::CUfunction> functions;
    for (const auto& [key, k] : m["kernels"].items()) {
      launcher::CUfunction f = nullptr;
      const std::string sym = k["symbol"];
      drv.check(drv.cuModuleGetFunction(&f, module, sym.c_str()), "cuModuleGetFunction " + sym);
      int max_threads = 0;
      drv.check(drv.cuFuncGetAttribute(&max_threads, launcher::kFuncAttrMaxThreadsPerBlock, f), "cuFuncGetAttribute");
      const int threads = k["block"][0].get<int>() * k["block"][1].get<int>() * k["block"][2].get<int>();
      if (threads > max_threads) throw std::runtime_error(sym + ": block of " + std::to_string(threads) + " > " + std::to_string(max_threads));
      functions[sym] = f;
    }
    bool ok = true;
    for (int i = 2; i < argc; ++i) ok = run_case(drv, m, functions, argv[i]) && ok;
    drv.cuModuleUnload(module);
    drv.cuDevicePrimaryCtxRelease(dev);
    std::cout << (ok ? "PASS" : "FAIL") << "\n";
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "ERROR: " << e.what() << "\n";
    return 1;
  }
}
