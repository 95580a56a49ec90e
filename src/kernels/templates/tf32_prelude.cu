//! TF32 helpers, appended after mma_prelude.cu only to a bundle with a TF32 GEMM (--kernel-tf32),
//! so that other bundles keep their text. One helper a line (the emulator replaces them).
// TF32 (sm_80+): mma.sync m16n8k8 with fp32 accumulation; per lane A is 4 and B 2 registers of
// one tf32 each (a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (k t, n g), b1 (k t+4, n g);
// C/D as for m16n8k16); cvt.rna rounds fp32 to tf32 (10 mantissa bits, to nearest, ties away).
#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ void p2_mma_tf32(float* d, const unsigned* a, const unsigned* b) { asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1])); }
__device__ __forceinline__ unsigned p2_tf32(float f) { unsigned u; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(f)); return u; }
#endif
