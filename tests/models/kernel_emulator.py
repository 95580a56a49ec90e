"""Runs a --compile kernel bundle on the CPU: its CUDA C source, built with g++ against a small
shim, replayed exactly as the manifest says: the launch list, grids, argument bindings and
workspace offsets. No GPU, no CUDA headers. It checks the generated code's arithmetic and the
manifest, not the GPU compiler or the cubins (the cubins are checked structurally by
bundle_launcher --verify and numerically on a GPU by bundle_launcher).

The shim runs one block at a time on one OS thread: every CUDA thread of the block is a fiber
with its own stack (a 20-instruction register switch on x86-64, ucontext elsewhere); __syncthreads and the two halves of a warp shuffle are yield
points. A scheduler resumes the runnable fibers in thread order and releases a barrier once
every live thread it covers (the block, or the 32 lanes of a warp) waits at it, so a shuffle
under `if (threadIdx.x < 32)` works as on a GPU. A barrier that can never be released (some
threads wait at __syncthreads, others at a shuffle or have exited while others wait) is
reported as a deadlock instead of hanging. __shared__ variables are block-wide statics.
"""
from __future__ import annotations

import ctypes
import os
import re
import subprocess
from pathlib import Path

import numpy as np

SHIM = r"""
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
struct p2_dim3 { unsigned x = 0, y = 0, z = 0; };
// Set by the scheduler before it resumes a fiber; external linkage so that every opaque call
// (a yield) makes the compiler reload them.
p2_dim3 threadIdx, blockIdx;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__
#define __shared__ static
enum P2State { P2_RUN, P2_AT_BLOCK, P2_AT_WARP, P2_DONE };
#if defined(__x86_64__)
// A fiber switch without ucontext's signal-mask system call: saves the callee-saved registers
// and the SSE/x87 control words on the current stack, stores the stack pointer in *from and
// resumes the stack `to` (whose top was laid out the same way).
extern "C" void p2_switch(void** from, void* to);
asm(".text\n.globl p2_switch\n.hidden p2_switch\n.type p2_switch,@function\np2_switch:\n"
    "pushq %rbp\npushq %rbx\npushq %r12\npushq %r13\npushq %r14\npushq %r15\n"
    "subq $8, %rsp\nstmxcsr (%rsp)\nfnstcw 4(%rsp)\n"
    "movq %rsp, (%rdi)\nmovq %rsi, %rsp\n"
    "ldmxcsr (%rsp)\nfldcw 4(%rsp)\naddq $8, %rsp\n"
    "popq %r15\npopq %r14\npopq %r13\npopq %r12\npopq %rbx\npopq %rbp\nret\n");
struct P2Fiber { void* sp; P2State state; };
void* p2_scheduler_sp;
#define P2_TO_SCHEDULER(f) p2_switch(&(f)->sp, p2_scheduler_sp)
#define P2_RESUME(f) p2_switch(&p2_scheduler_sp, (f)->sp)
#else
#include <ucontext.h>
struct P2Fiber { ucontext_t ctx; P2State state; };
ucontext_t p2_scheduler;
#define P2_TO_SCHEDULER(f) swapcontext(&(f)->ctx, &p2_scheduler)
#define P2_RESUME(f) swapcontext(&p2_scheduler, &(f)->ctx)
#endif
P2Fiber* p2_current = nullptr;
inline void p2_yield(P2State why) {
  p2_current->state = why;
  P2_TO_SCHEDULER(p2_current);
}
inline void __syncthreads() { p2_yield(P2_AT_BLOCK); }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
// Every lane publishes its value, the warp meets, each reads its partner's, the warp meets again
// (so no lane overwrites its slot before the others have read it).
template <typename T> T __shfl_xor_sync(unsigned, T v, int o) {
  static T buf[1024];
  const unsigned t = threadIdx.x, l = t & 31;
  buf[t] = v;
  p2_yield(P2_AT_WARP);
  const T r = buf[(t & ~31u) | (l ^ static_cast<unsigned>(o))];
  p2_yield(P2_AT_WARP);
  return r;
}
// The emulated architecture (build(arch=...)): 800 runs the templates' tensor-core paths, 750
// their SIMT fallbacks.
#define __CUDA_ARCH__ P2_EMULATED_ARCH
#define __align__(n) __attribute__((aligned(n)))
"""

# The device helpers of templates/mma_prelude.cu, which are inline PTX there. mma.sync is
# warp-collective: every lane publishes its A/B fragment registers, the warp meets, each lane
# rebuilds the 16 x 16 A and 16 x 8 B tiles from the PTX ISA's fragment layout and computes its
# own four accumulators (fp32, k in order), the warp meets again. cp.async is a plain copy and
# its commit/wait are no-ops (the copy is complete when issued).
MMA = r"""
struct P2MmaLane { unsigned a[4], b[2]; };
inline float p2_bf16_bits_to_float(unsigned short b) { return __uint_as_float(((unsigned)b) << 16); }
// One warp's mma.sync m16n8kK: every lane publishes its registers, the warp meets, each lane
// sums its four accumulators over k in order, reading the tiles through A(w, r, c) / B(w, k, n)
// (w: the warp's lanes), and the warp meets again.
template <unsigned K, typename FA, typename FB> void p2_mma_warp(float* d, const unsigned* a, const unsigned* b, FA A, FB B) {
  static P2MmaLane lanes[1024];
  const unsigned t = threadIdx.x, lane = t & 31u;
  const P2MmaLane* w = lanes + (t & ~31u);
  for (int i = 0; i < 4; ++i) lanes[t].a[i] = a[i];
  for (int i = 0; i < 2; ++i) lanes[t].b[i] = b[i];
  p2_yield(P2_AT_WARP);
  const unsigned g = lane / 4, tg = lane % 4;
  for (int i = 0; i < 4; ++i) {
    const unsigned row = g + 8 * (i / 2), col = 2 * tg + i % 2;
    float acc = d[i];
    for (unsigned k = 0; k < K; ++k) acc += A(w, row, k) * B(w, k, col);
    d[i] = acc;
  }
  p2_yield(P2_AT_WARP);
}
template <bool BF16> void p2_mma(float* d, const unsigned* a, const unsigned* b) {
  auto half = [](unsigned reg, unsigned hi) {
    const unsigned short bits = (unsigned short)(hi ? reg >> 16 : reg & 0xffffu);
    return BF16 ? p2_bf16_bits_to_float(bits) : p2_half_to_float(bits);
  };
  // A (row r, col c): lane (r % 8) * 4 + (c % 8) / 2, register (r >= 8) + 2 * (c >= 8), half c % 2.
  auto A = [&](const P2MmaLane* w, unsigned r, unsigned c) {
    return half(w[(r % 8) * 4 + (c % 8) / 2].a[(r >= 8 ? 1 : 0) + (c >= 8 ? 2 : 0)], c % 2);
  };
  // B (k, n): lane n * 4 + (k % 8) / 2, register k >= 8, half k % 2.
  auto B = [&](const P2MmaLane* w, unsigned k, unsigned n) { return half(w[n * 4 + (k % 8) / 2].b[k >= 8 ? 1 : 0], k % 2); };
  p2_mma_warp<16>(d, a, b, A, B);
}
inline void p2_mma_f16(float* d, const unsigned* a, const unsigned* b) { p2_mma<false>(d, a, b); }
inline void p2_mma_bf16(float* d, const unsigned* a, const unsigned* b) { p2_mma<true>(d, a, b); }
// TF32 (--kernel-tf32): cvt.rna.tf32.f32 keeps 10 mantissa bits, rounding to nearest with ties
// away from zero (add half of the dropped 13 bits to the magnitude, then clear them; inf and NaN
// pass). mma.sync m16n8k8: A (r, c) is lane (r % 8) * 4 + c % 4, register (r >= 8) + 2 * (c >= 4);
// B (k, n) lane n * 4 + k % 4, register k >= 4; one tf32 a register; products exact in fp32.
inline unsigned p2_tf32(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  return u;
}
inline void p2_mma_tf32(float* d, const unsigned* a, const unsigned* b) {
  auto A = [](const P2MmaLane* w, unsigned r, unsigned c) { return __uint_as_float(w[(r % 8) * 4 + c % 4].a[(r >= 8 ? 1 : 0) + (c >= 4 ? 2 : 0)]); };
  auto B = [](const P2MmaLane* w, unsigned k, unsigned n) { return __uint_as_float(w[n * 4 + k % 4].b[k >= 4 ? 1 : 0]); };
  p2_mma_warp<8>(d, a, b, A, B);
}
inline void p2_cp_async16(void* smem, const void* gmem) { std::memcpy(smem, gmem, 16); }
inline void p2_cp_async_commit() {}
inline void p2_cp_async_wait_prior1() {}
inline void p2_cp_async_wait_all() {}
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
static void (*p2_kernel)(const uint64_t*) = nullptr;
static const uint64_t* p2_kernel_args = nullptr;
static void p2_fiber_main() {
  p2_kernel(p2_kernel_args);
  p2_current->state = P2_DONE;
  P2_TO_SCHEDULER(p2_current);  // never resumed
}
static void p2_start_fiber(P2Fiber* f, char* stack, size_t bytes) {
#if defined(__x86_64__)
  // The stack as p2_switch leaves it: control words, six registers, then p2_fiber_main as the
  // return address, entered with the stack aligned as after a call.
  uint64_t* top = reinterpret_cast<uint64_t*>(stack + bytes);
  top[-1] = 0;
  top[-2] = reinterpret_cast<uint64_t>(&p2_fiber_main);
  for (int r = 3; r <= 8; ++r) top[-r] = 0;
  const uint32_t mxcsr = 0x1f80;
  const uint16_t fpucw = 0x037f;
  std::memcpy(&top[-9], &mxcsr, 4);
  std::memcpy(reinterpret_cast<char*>(&top[-9]) + 4, &fpucw, 2);
  f->sp = &top[-9];
#else
  getcontext(&f->ctx);
  f->ctx.uc_stack.ss_sp = stack;
  f->ctx.uc_stack.ss_size = bytes;
  f->ctx.uc_link = nullptr;
  makecontext(&f->ctx, p2_fiber_main, 0);
#endif
  f->state = P2_RUN;
}
// Runs one block to completion; 0, or 2 on a barrier that can never be released.
static int p2_run_block(P2Fiber* fibers, unsigned n, char* stacks, size_t stack_bytes) {
  for (unsigned t = 0; t < n; ++t) p2_start_fiber(&fibers[t], stacks + t * stack_bytes, stack_bytes);
  for (;;) {
    for (unsigned t = 0; t < n; ++t) {
      if (fibers[t].state != P2_RUN) continue;
      p2_current = &fibers[t];
      threadIdx.x = t;
      P2_RESUME(&fibers[t]);
    }
    bool released = false;
    for (unsigned w = 0; w < n; w += 32) {
      const unsigned end = w + 32 < n ? w + 32 : n;
      bool all = true;  // false: some lane has not reached the shuffle yet, or never will
      for (unsigned t = w; t < end; ++t) all &= fibers[t].state == P2_AT_WARP;
      if (!all) continue;
      for (unsigned t = w; t < end; ++t) fibers[t].state = P2_RUN;
      released = true;
    }
    if (released) continue;
    unsigned at_block = 0, done = 0;
    for (unsigned t = 0; t < n; ++t) { at_block += fibers[t].state == P2_AT_BLOCK; done += fibers[t].state == P2_DONE; }
    if (done == n) return 0;
    if (at_block + done == n) {
      for (unsigned t = 0; t < n; ++t) if (fibers[t].state == P2_AT_BLOCK) fibers[t].state = P2_RUN;
      continue;
    }
    std::fprintf(stderr, "emulator: deadlock in block (%u,%u,%u): %u of %u threads at __syncthreads, %u exited, the rest at a warp shuffle\n",
                 blockIdx.x, blockIdx.y, blockIdx.z, at_block, n, done);
    return 2;
  }
}
extern "C" int p2cpu_launch(const char* symbol, unsigned gx, unsigned gy, unsigned gz, unsigned block, const uint64_t* args) {
  p2_kernel = nullptr;
  for (const auto& e : p2cpu_table)
    if (std::strcmp(e.name, symbol) == 0) p2_kernel = e.fn;
  if (!p2_kernel) return 1;
  p2_kernel_args = args;
  if (block == 0 || block > 1024) return 3;
  // Kernels keep small per-thread arrays; malloc of this size maps pages lazily, so untouched
  // stack is never committed.
  const size_t stack_bytes = 256 * 1024;
  static char* stacks = nullptr;
  static P2Fiber* fibers = nullptr;
  static unsigned allocated = 0;
  if (allocated < block) {
    std::free(stacks);
    std::free(fibers);
    stacks = static_cast<char*>(std::malloc(block * stack_bytes));
    fibers = static_cast<P2Fiber*>(std::malloc(block * sizeof(P2Fiber)));
    if (!stacks || !fibers) return 3;
    allocated = block;
  }
  for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    blockIdx.x = x; blockIdx.y = y; blockIdx.z = z;
    if (int rc = p2_run_block(fibers, block, stacks, stack_bytes)) return rc;
  }
  return 0;
}
"""

SIGNATURE = re.compile(r'extern "C" __global__ void __launch_bounds__\(\d+\) (\w+)\((.*)\) \{')


def build(bundle: Path, manifest: dict, work: Path, arch: int = 800) -> ctypes.CDLL:
    src = (bundle / manifest["source"]["file"]).read_text()
    # The helpers written in inline PTX (one a line); HALF and MMA replace them.
    lines = [l for l in src.splitlines() if not re.search(r"\basm\b", l)]
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
    wrappers.append("struct P2Entry { const char* name; p2cpu_fn fn; };")
    wrappers.append("static const P2Entry p2cpu_table[] = {" + ", ".join(table) + "};")
    text = (f"#define P2_EMULATED_ARCH {arch}\n" + SHIM + HALF + MMA + "#define p2_h2f p2_half_to_float\n#define p2_f2h p2_float_to_half\n" + body + "\n"
            + "\n".join(wrappers) + TAIL)
    # One file per bundle directory: a shared object must never be rewritten while loaded.
    stem = f"{bundle.parent.name}.{bundle.name}.sm{arch}"
    cpp = work / (stem + ".cpu.cpp")
    so = work / (stem + ".cpu.so")
    cpp.write_text(text)
    extra = os.environ.get("P2CPU_CXXFLAGS", "").split()
    r = subprocess.run(["g++", "-std=c++20", "-O1", "-fno-strict-aliasing", "-shared", "-fPIC", "-w", *extra, str(cpp), "-o", str(so)],
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
        if rc == 1:
            raise RuntimeError(f"no CPU entry for {kernel['symbol']}")
        if rc == 3:
            raise RuntimeError(f"{kernel['symbol']}: block of {kernel['block'][0]} threads: no memory for the emulator's fiber stacks, or over 1024")
        if rc != 0:
            raise RuntimeError(f"{kernel['symbol']}: deadlock at a barrier on the CPU emulator (see stderr)")
    return {o["name"]: arrays[("output", o["name"])] for o in manifest["outputs"]}
