"""Runs a --compile kernel bundle on the CPU: its CUDA C source, built with g++ against a small
shim (blockIdx/threadIdx per thread, __syncthreads as a 256-thread barrier, warp shuffles through
shared buffers, __shared__ as block-wide statics), replayed exactly as the manifest says: the
launch list, grids, argument bindings and workspace offsets. No GPU, no CUDA headers. It checks
the generated code's arithmetic and the manifest, not the GPU compiler or the cubins (the
cubins are checked structurally by bundle_launcher --verify and numerically on a GPU by
bundle_launcher)."""
from __future__ import annotations

import ctypes
import os
import re
import subprocess
from pathlib import Path

import numpy as np

SHIM = r"""
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>
#include <math.h>
struct p2_dim3 { unsigned x = 0, y = 0, z = 0; };
static thread_local p2_dim3 threadIdx, blockIdx;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__
#define __shared__ static
static std::barrier<>* p2_block_barrier = nullptr;
static std::barrier<>* p2_warp_barrier[8];
inline void __syncthreads() { p2_block_barrier->arrive_and_wait(); }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
template <typename T> T __shfl_xor_sync(unsigned, T v, int o) {
  static T buf[8][32];
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  buf[w][l] = v;
  p2_warp_barrier[w]->arrive_and_wait();
  const T r = buf[w][l ^ static_cast<unsigned>(o)];
  p2_warp_barrier[w]->arrive_and_wait();
  return r;
}
"""

# fp16 conversions without the PTX of the GPU prelude.
HALF = r"""
inline float p2_half_to_float(unsigned short h) {
  const int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0 ? std::ldexp((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp((float)(m + 1024), e - 25);
  return s ? -v : v;
}
inline unsigned short p2_float_to_half(float f) { _Float16 h = (_Float16)f; unsigned short u; std::memcpy(&u, &h, 2); return u; }
"""

TAIL = r"""
extern "C" int p2cpu_launch(const char* symbol, unsigned gx, unsigned gy, unsigned gz, unsigned block, const uint64_t* args) {
  auto it = p2cpu_table().find(symbol);
  if (it == p2cpu_table().end()) return 1;
  auto fn = it->second;
  std::barrier<> block_barrier(block);
  std::vector<std::barrier<>*> warps;
  for (int w = 0; w < 8; ++w) { warps.push_back(new std::barrier<>(32)); p2_warp_barrier[w] = warps.back(); }
  p2_block_barrier = &block_barrier;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < block; ++t)
    pool.emplace_back([&, t] {
      threadIdx.x = t;
      for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
        blockIdx.x = x; blockIdx.y = y; blockIdx.z = z;
        fn(args);
        block_barrier.arrive_and_wait();
      }
    });
  for (auto& th : pool) th.join();
  for (auto* w : warps) delete w;
  return 0;
}
"""

SIGNATURE = re.compile(r'extern "C" __global__ void __launch_bounds__\(\d+\) (\w+)\((.*)\) \{')


def build(bundle: Path, manifest: dict, work: Path) -> ctypes.CDLL:
    src = (bundle / manifest["source"]["file"]).read_text()
    lines = [l for l in src.splitlines() if "asm(" not in l]  # the PTX fp16 helpers; HALF replaces them
    body = "\n".join(lines)
    wrappers = ["using p2cpu_fn = void (*)(const uint64_t*);"]
    table = []
    for sym, params in SIGNATURE.findall(src):
        casts = []
        for i, p in enumerate(params.split(", ")):
            ctype = p.rsplit(" ", 1)[0].replace("__restrict__", "").strip()
            casts.append(f"({ctype})a[{i}]" if "*" in ctype else f"(long long)a[{i}]")
        wrappers.append(f"static void p2cpu_{sym}(const uint64_t* a) {{ {sym}({', '.join(casts)}); }}")
        table.append(f'{{"{sym}", p2cpu_{sym}}}')
    wrappers.append("static std::map<std::string, p2cpu_fn>& p2cpu_table() { static std::map<std::string, p2cpu_fn> t = {"
                    + ", ".join(table) + "}; return t; }")
    text = (SHIM + HALF + "#define p2_h2f p2_half_to_float\n#define p2_f2h p2_float_to_half\n" + body + "\n"
            + "\n".join(wrappers) + TAIL)
    # One file per bundle directory: a shared object must never be rewritten while loaded.
    stem = f"{bundle.parent.name}.{bundle.name}"
    cpp = work / (stem + ".cpu.cpp")
    so = work / (stem + ".cpu.so")
    cpp.write_text(text)
    extra = os.environ.get("P2CPU_CXXFLAGS", "").split()
    r = subprocess.run(["g++", "-std=c++20", "-O1", "-shared", "-fPIC", "-pthread", "-w", *extra, str(cpp), "-o", str(so)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"g++ failed for {bundle.name}:\n{r.stderr[:3000]}")
    lib = ctypes.CDLL(str(so))
    lib.p2cpu_launch.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                 ctypes.POINTER(ctypes.c_uint64)]
    return lib


def evaluate(e, syms):
    if isinstance(e, int):
        return e
    env = dict(syms)
    env.update(cdiv=lambda a, b: -(-a // b), align=lambda a, b: -(-a // b) * b, min=min, max=max)
    return int(eval(e, {"__builtins__": {}}, env))


NP = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": np.uint16, "INT64": np.int64, "INT32": np.int32, "BOOL": np.uint8}


def run_case(lib, manifest: dict, syms: dict, inputs: dict) -> dict:
    """Replays the launch list on the CPU; returns the outputs by name."""
    arrays = {}
    for i in manifest["inputs"]:
        arrays[("input", i["name"])] = np.ascontiguousarray(inputs[i["name"]].astype(NP[i["dtype"]]))
    for o in manifest["outputs"]:
        shape = [evaluate(d, syms) for d in o["shape"]]
        arrays[("output", o["name"])] = np.full(shape, np.nan if o["dtype"].startswith("FLOAT") else 0, dtype=NP[o["dtype"]])
    workspace = np.zeros(max(1, evaluate(manifest["workspace"]["bytes"], syms)) + 256, dtype=np.uint8)
    base = (workspace.ctypes.data + 255) // 256 * 256
    for launch in manifest["launches"]:
        kernel = manifest["kernels"][launch["kernel"]]
        grid = [evaluate(g, syms) for g in launch["grid"]]
        if 0 in grid:
            continue
        args = []
        for a in launch["args"]:
            (kind, value), = a.items()
            if kind in ("input", "output"):
                args.append(arrays[(kind, value)].ctypes.data)
            elif kind == "buffer":
                args.append(base + evaluate(manifest["workspace"]["buffers"][value]["offset"], syms))
            else:
                args.append(evaluate(value, syms) & 0xFFFFFFFFFFFFFFFF)
        buf = (ctypes.c_uint64 * len(args))(*args)
        rc = lib.p2cpu_launch(kernel["symbol"].encode(), grid[0], grid[1], grid[2], kernel["block"][0], buf)
        if rc != 0:
            raise RuntimeError(f"no CPU entry for {kernel['symbol']}")
    return {o["name"]: arrays[("output", o["name"])] for o in manifest["outputs"]}
