//! GEMM on tensor cores (sm_80+; the SIMT body below otherwise): fp16 / bf16 operands with
//! mma.sync m16n8k16, or fp32 operands as TF32 with m16n8k8 (only with --kernel-tf32: it changes
//! the numerics). The same {{T}} x {{T}} output tile per block of 256 threads as gemm_simt.cu, K in
//! steps of {{KT}} (64 bytes of an operand row). A and B tiles are kept in shared memory as
//! {{ELEM}} with K contiguous (A [m][k], B [n][k]), two stages: tile t+1 is copied (cp.async where
//! a 16-byte chunk of {{CHUNK}} values is in range and aligned, else element by element through the
//! operand's loader) while tile t is multiplied. 8 warps as 2 x 4, each 32 x 16 of the tile: 2 x 2
//! mma.sync per {{KSTEP}} of K, fp32 accumulators, which go through shared memory to the thread
//! layout of gemm_simt.cu so that both share the epilogue.
//! Holes: M, N, K, BATCH_INDEX, EPILOGUE as in gemm_simt.cu; LOAD_A / LOAD_B (set p2_av / p2_bv
//! at (p2_am, p2_ak) / (p2_bk, p2_bn)); A_ASYNC / B_ASYNC (statements that issue the chunk's
//! cp.async and set p2_async, or nothing); SIMT (the whole gemm_simt.cu body, for archs without
//! these instructions). The element type's: ELEM, KT, KT_LAST, KPAD, CHUNK, CHUNK_LAST, KSTEP,
//! TO_ELEM (float -> ELEM, or nothing), FRAGMENTS (gemm_mma_frag_16.cu or gemm_mma_frag_tf32.cu:
//! this lane's A and B registers of p2_kk's step) and MMA (p2_mma_f16, p2_mma_bf16, p2_mma_tf32).
#if __CUDA_ARCH__ >= 800
  __shared__ __align__(16) {{ELEM}} p2_as[2][{{T}}][{{KT}} + {{KPAD}}];
  __shared__ __align__(16) {{ELEM}} p2_bs[2][{{T}}][{{KT}} + {{KPAD}}];
  __shared__ float p2_cs[{{T}}][{{T}} + 4];
  const long long p2_M = {{M}}, p2_N = {{N}}, p2_K = {{K}};
{{BATCH_INDEX}}
  const long long p2_m0 = (long long)blockIdx.y * {{T}}, p2_n0 = (long long)blockIdx.x * {{T}};
  const int p2_tx = threadIdx.x % 16, p2_ty = threadIdx.x / 16;
  const int p2_lane = threadIdx.x % 32, p2_g = p2_lane / 4, p2_t = p2_lane % 4;
  const int p2_wm = threadIdx.x / 32 / 4 * 32, p2_wn = threadIdx.x / 32 % 4 * 16;
  // This thread's chunk of both tiles: row p2_cr, K columns p2_cc .. p2_cc + {{CHUNK_LAST}}.
  const int p2_cr = threadIdx.x / 4, p2_cc = threadIdx.x % 4 * {{CHUNK}};
  float p2_c[2][2][4];
  for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) for (int r = 0; r < 4; ++r) p2_c[i][j][r] = 0.0f;
  const long long p2_nk = (p2_K + {{KT_LAST}}) / {{KT}};
  for (long long p2_kt = 0; p2_kt <= p2_nk; ++p2_kt) {
    if (p2_kt < p2_nk) {
      // Stage p2_kt % 2 was last read for tile p2_kt - 2, before the barrier that ended it.
      const int p2_st = (int)(p2_kt % 2);
      const long long p2_k0 = p2_kt * {{KT}};
      {
        const long long p2_am = p2_m0 + p2_cr;
        bool p2_async = false;
{{A_ASYNC}}
        if (!p2_async) for (int p2_e = 0; p2_e < {{CHUNK}}; ++p2_e) {
          const long long p2_ak = p2_k0 + p2_cc + p2_e;
          float p2_av = 0.0f;
          if (p2_am < p2_M && p2_ak < p2_K) {
{{LOAD_A}}
          }
          p2_as[p2_st][p2_cr][p2_cc + p2_e] = {{TO_ELEM}}(p2_av);
        }
      }
      {
        const long long p2_bn = p2_n0 + p2_cr;
        bool p2_async = false;
{{B_ASYNC}}
        if (!p2_async) for (int p2_e = 0; p2_e < {{CHUNK}}; ++p2_e) {
          const long long p2_bk = p2_k0 + p2_cc + p2_e;
          float p2_bv = 0.0f;
          if (p2_bk < p2_K && p2_bn < p2_N) {
{{LOAD_B}}
          }
          p2_bs[p2_st][p2_cr][p2_cc + p2_e] = {{TO_ELEM}}(p2_bv);
        }
      }
      p2_cp_async_commit();
    }
    if (p2_kt > 0) {
      // Tile p2_kt - 1: its copies done (the newest group may still run), visible to the block.
      if (p2_kt < p2_nk) p2_cp_async_wait_prior1();
      else p2_cp_async_wait_all();
      __syncthreads();
      const int p2_st = (int)((p2_kt - 1) % 2);
      for (int p2_kk = 0; p2_kk < {{KT}}; p2_kk += {{KSTEP}}) {
        unsigned p2_a[2][4], p2_b[2][2];
{{FRAGMENTS}}
        for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) {{MMA}}(p2_c[i][j], p2_a[i], p2_b[j]);
      }
      __syncthreads();
    }
  }
  for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) for (int r = 0; r < 4; ++r)
    p2_cs[p2_wm + 16 * i + p2_g + 8 * (r / 2)][p2_wn + 8 * j + 2 * p2_t + r % 2] = p2_c[i][j][r];
  __syncthreads();
  float p2_acc[4][4];
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) p2_acc[i][j] = p2_cs[p2_ty + 16 * i][p2_tx + 16 * j];
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) {
    const long long p2_m = p2_m0 + p2_ty + 16 * i, p2_n = p2_n0 + p2_tx + 16 * j;
    if (p2_m >= p2_M || p2_n >= p2_N) continue;
{{EPILOGUE}}
  }
#else
{{SIMT}}
#endif
