//! Tensor-core helpers, appended to the prelude of a bundle with a tensor-core kernel. One helper
//! a line: tests/models/kernel_emulator.py drops every line with inline PTX and defines its own.
// Tensor cores (sm_80+): mma.sync m16n8k16 with fp32 accumulation; per lane, A is 4 and B 2
// registers of two 16-bit values, C/D 4 floats, in the PTX ISA's fragment layout
// (g = lane / 4, t = lane % 4: a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..);
// b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g); d0 d1 (g, 2t..2t+1), d2 d3 (g+8, 2t..2t+1)).
// cp.async copies 16 bytes global -> shared without a register round trip.
#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ void p2_mma_f16(float* d, const unsigned* a, const unsigned* b) { asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1])); }
__device__ __forceinline__ void p2_mma_bf16(float* d, const unsigned* a, const unsigned* b) { asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1])); }
__device__ __forceinline__ void p2_cp_async16(void* smem, const void* gmem) { asm volatile("{ .reg .u64 p2a; .reg .u32 p2s; cvta.to.shared.u64 p2a, %0; cvt.u32.u64 p2s, p2a; cp.async.cg.shared.global [p2s], [%1], 16; }" :: "l"(smem), "l"(gmem) : "memory"); }
__device__ __forceinline__ void p2_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void p2_cp_async_wait_prior1() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }
__device__ __forceinline__ void p2_cp_async_wait_all() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }
#endif
// A 32-bit fragment register: two consecutive 16-bit values of a shared-memory row.
__device__ __forceinline__ unsigned p2_pair(const unsigned short* p) { return *reinterpret_cast<const unsigned*>(p); }
__device__ __forceinline__ bool p2_aligned16(const void* p) { return (reinterpret_cast<unsigned long long>(p) & 15ull) == 0; }
