//! GEMM on CUDA cores (every dtype; the fallback of the tensor-core template): one block of
//! {{BLOCK}} threads computes a {{T}} x {{T}} tile of out[batch.., M, N], each thread 4 x 4
//! entries {{T}}/4 apart; A and B are staged in shared memory {{TK}} columns of K at a time, as float.
//! Holes: M, N, K (C expressions), BATCH_INDEX (statements binding the batch index from
//! blockIdx.z), LOAD_A / LOAD_B (statements setting p2_av from (p2_am, p2_ak) / p2_bv from
//! (p2_bk, p2_bn), both in range), EPILOGUE (statements storing p2_acc[i][j] at (p2_m, p2_n)).
  __shared__ float p2_as[{{TK}}][{{T}} + 1];
  __shared__ float p2_bs[{{TK}}][{{T}} + 1];
  const long long p2_M = {{M}}, p2_N = {{N}}, p2_K = {{K}};
{{BATCH_INDEX}}
  const long long p2_m0 = (long long)blockIdx.y * {{T}}, p2_n0 = (long long)blockIdx.x * {{T}};
  const int p2_tx = threadIdx.x % 16, p2_ty = threadIdx.x / 16;
  float p2_acc[4][4];
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) p2_acc[i][j] = 0.0f;
  for (long long p2_k0 = 0; p2_k0 < p2_K; p2_k0 += {{TK}}) {
    for (int p2_l = threadIdx.x; p2_l < {{T}} * {{TK}}; p2_l += {{BLOCK}}) {
      const long long p2_am = p2_m0 + p2_l / {{TK}}, p2_ak = p2_k0 + p2_l % {{TK}};
      const long long p2_bk = p2_k0 + p2_l / {{T}}, p2_bn = p2_n0 + p2_l % {{T}};
      float p2_av = 0.0f, p2_bv = 0.0f;
      if (p2_am < p2_M && p2_ak < p2_K) {
{{LOAD_A}}
      }
      if (p2_bk < p2_K && p2_bn < p2_N) {
{{LOAD_B}}
      }
      p2_as[p2_l % {{TK}}][p2_l / {{TK}}] = p2_av;
      p2_bs[p2_l / {{T}}][p2_l % {{T}}] = p2_bv;
    }
    __syncthreads();
    for (int kk = 0; kk < {{TK}}; ++kk) {
      float a[4], bq[4];
      for (int i = 0; i < 4; ++i) a[i] = p2_as[kk][p2_ty + 16 * i];
      for (int j = 0; j < 4; ++j) bq[j] = p2_bs[kk][p2_tx + 16 * j];
      for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) p2_acc[i][j] = fmaf(a[i], bq[j], p2_acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) {
    const long long p2_m = p2_m0 + p2_ty + 16 * i, p2_n = p2_n0 + p2_tx + 16 * j;
    if (p2_m >= p2_M || p2_n >= p2_N) continue;
{{EPILOGUE}}
  }
