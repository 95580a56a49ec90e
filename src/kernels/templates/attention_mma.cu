//! Fused attention on tensor cores for fp16 / bf16 (sm_80+; the SIMT body below otherwise): the
//! same blocks, rows, key blocks and online softmax as attention_simt.cu, with both products on
//! mma.sync m16n8k16 (fp32 accumulation). Q, the key block and the value block (transposed) are
//! 16-bit in shared memory with head dims padded to EP / EVP (multiples of 16, zeros); the 32 x 32
//! scores come from one m16n8 tile per warp, the weights are rounded to 16 bits for P x V
//! (2 x EVP/8 tiles over the warps) and each thread adds its row's result to its accumulators.
//! Holes as in attention_simt.cu, plus EP, EVP, FW (row length of the float scratch, which holds
//! the scores, then P x V), TO_16 (float -> 16-bit bits), MMA and SIMT (the whole SIMT body).
#if __CUDA_ARCH__ >= 800
  __shared__ __align__(16) unsigned short p2_qh[{{R}}][{{EP}} + 8];
  __shared__ __align__(16) unsigned short p2_kh[{{K}}][{{EP}} + 8];
  __shared__ __align__(16) unsigned short p2_vt[{{EVP}}][{{K}} + 8];
  __shared__ __align__(16) unsigned short p2_ph[{{R}}][{{K}} + 8];
  __shared__ float p2_f[{{R}}][{{FW}}];
  const long long p2_L = {{L}}, p2_S = {{S}};
{{BATCH_INDEX}}
  const long long p2_i0 = (long long)blockIdx.y * {{R}};
  const int p2_r = threadIdx.x / {{NL}}, p2_g = threadIdx.x % {{NL}};
  const long long p2_i = p2_i0 + p2_r;
  const int p2_warp = threadIdx.x / 32, p2_lg = threadIdx.x % 32 / 4, p2_lt = threadIdx.x % 4;
  for (int p2_l = threadIdx.x; p2_l < {{R}} * {{EP}}; p2_l += 256) {
    const long long p2_qi = p2_i0 + p2_l / {{EP}}, p2_qe = p2_l % {{EP}};
    float p2_v = 0.0f;
    if (p2_qi < p2_L && p2_qe < {{E}}) {
{{LOAD_Q}}
    }
    p2_qh[p2_l / {{EP}}][p2_l % {{EP}}] = {{TO_16}}(p2_v);
  }
  float p2_m = -P2_INF, p2_sum = 0.0f;  // running max and sum of exp(score - max) of row p2_i
  float p2_o[{{PER_LANE}}];  // output columns p2_g + {{NL}} * w
  for (int w = 0; w < {{PER_LANE}}; ++w) p2_o[w] = 0.0f;
{{JEND}}
  for (long long p2_j0 = 0; p2_j0 < p2_jend; p2_j0 += {{K}}) {
    __syncthreads();  // q staged / the previous block's keys, values and scratch no longer read
    for (int p2_l = threadIdx.x; p2_l < {{K}} * {{EP}}; p2_l += 256) {
      const long long p2_kj = p2_j0 + p2_l / {{EP}}, p2_ke = p2_l % {{EP}};
      float p2_v = 0.0f;
      if (p2_kj < p2_S && p2_ke < {{E}}) {
{{LOAD_K}}
      }
      p2_kh[p2_l / {{EP}}][p2_l % {{EP}}] = {{TO_16}}(p2_v);
    }
    for (int p2_l = threadIdx.x; p2_l < {{K}} * {{EVP}}; p2_l += 256) {
      const long long p2_vj = p2_j0 + p2_l / {{EVP}}, p2_ve = p2_l % {{EVP}};
      float p2_v = 0.0f;
      if (p2_vj < p2_S && p2_ve < {{EV}}) {
{{LOAD_V}}
      }
      p2_vt[p2_l % {{EVP}}][p2_l / {{EVP}}] = {{TO_16}}(p2_v);
    }
    __syncthreads();
    {  // scores: warp w computes rows 16 * (w / 4) .., keys 8 * (w % 4) ..
      const int p2_mi = p2_warp / 4, p2_ni = p2_warp % 4;
      float p2_d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      for (int p2_kk = 0; p2_kk < {{EP}}; p2_kk += 16) {
        const unsigned short* p2_r0 = &p2_qh[16 * p2_mi + p2_lg][p2_kk + 2 * p2_lt];
        const unsigned short* p2_r8 = p2_r0 + 8 * ({{EP}} + 8);
        const unsigned p2_a[4] = {p2_pair(p2_r0), p2_pair(p2_r8), p2_pair(p2_r0 + 8), p2_pair(p2_r8 + 8)};
        const unsigned short* p2_bp = &p2_kh[8 * p2_ni + p2_lg][p2_kk + 2 * p2_lt];
        const unsigned p2_b[2] = {p2_pair(p2_bp), p2_pair(p2_bp + 8)};
        {{MMA}}(p2_d, p2_a, p2_b);
      }
      for (int r = 0; r < 4; ++r) p2_f[16 * p2_mi + p2_lg + 8 * (r / 2)][8 * p2_ni + 2 * p2_lt + r % 2] = p2_d[r];
    }
    __syncthreads();
    float p2_sc[{{K}} / {{NL}}];
    float p2_bm = -P2_INF;
    for (int u = 0; u < {{K}} / {{NL}}; ++u) {
      const int p2_c = p2_g + {{NL}} * u;
      const long long p2_j = p2_j0 + p2_c;
      float p2_x = -P2_INF;  // out of range: no weight
      if (p2_i < p2_L && p2_j < p2_S) {
        const float p2_s = p2_f[p2_r][p2_c];
{{SCORE}}
      }
      p2_sc[u] = p2_x;
      p2_bm = fmaxf(p2_bm, p2_x);
    }
{{ONLINE_SOFTMAX}}
    __syncthreads();  // weights written, scores no longer read: P x V goes in the scratch
    for (int p2_tile = p2_warp; p2_tile < 2 * ({{EVP}} / 8); p2_tile += 8) {
      const int p2_mi = p2_tile % 2, p2_ni = p2_tile / 2;
      float p2_d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      for (int p2_kk = 0; p2_kk < {{K}}; p2_kk += 16) {
        const unsigned short* p2_r0 = &p2_ph[16 * p2_mi + p2_lg][p2_kk + 2 * p2_lt];
        const unsigned short* p2_r8 = p2_r0 + 8 * ({{K}} + 8);
        const unsigned p2_a[4] = {p2_pair(p2_r0), p2_pair(p2_r8), p2_pair(p2_r0 + 8), p2_pair(p2_r8 + 8)};
        const unsigned short* p2_bp = &p2_vt[8 * p2_ni + p2_lg][p2_kk + 2 * p2_lt];
        const unsigned p2_b[2] = {p2_pair(p2_bp), p2_pair(p2_bp + 8)};
        {{MMA}}(p2_d, p2_a, p2_b);
      }
      for (int r = 0; r < 4; ++r) p2_f[16 * p2_mi + p2_lg + 8 * (r / 2)][8 * p2_ni + 2 * p2_lt + r % 2] = p2_d[r];
    }
    __syncthreads();
    for (int w = 0; w < {{PER_LANE}}; ++w) {
      const int p2_e = p2_g + {{NL}} * w;
      if (p2_e < {{EV}}) p2_o[w] += p2_f[p2_r][p2_e];
    }
  }
  if (p2_i >= p2_L) return;
  const bool p2_empty = p2_m == -P2_INF;
  for (int w = 0; w < {{PER_LANE}}; ++w) {
    const long long p2_e = p2_g + {{NL}} * w;
    if (p2_e >= {{EV}}) break;
{{STORE}}
  }
#else
{{SIMT}}
#endif
