//! Fused attention on CUDA cores (flash style, every float dtype; the fallback of the tensor-core
//! template): one block of 256 threads owns {{R}} query rows, {{NL}} consecutive threads per row;
//! keys stream through shared memory {{K}} at a time with a running max and sum per row.
//! ONLINE_SOFTMAX: attention_online_softmax.cu rendered (shared with attention_mma.cu).
//! Holes: L, S (C expressions), E, EV (head dims), KV_WIDTH = max(E, EV), PER_LANE = cdiv(EV, NL),
//! HALF_LANES = NL / 2, BATCH_INDEX (binds the batch index from blockIdx.x), JEND (the line
//! bounding the keys: all of them, or the causal prefix), LOAD_Q / LOAD_K / LOAD_V (set p2_v at
//! (p2_qi, p2_qe) / (p2_ke, p2_kj) / (p2_vj, p2_ve)), SCORE (sets p2_x, the masked score of
//! (p2_i, p2_j), from the raw score p2_s), STORE (writes row p2_i, column p2_e of the output).
  __shared__ float p2_q[{{R}}][{{E}} + 1];
  __shared__ float p2_kv[{{K}}][{{KV_WIDTH}} + 1];
  __shared__ float p2_p[{{R}}][{{K}} + 1];
  const long long p2_L = {{L}}, p2_S = {{S}};
{{BATCH_INDEX}}
  const long long p2_i0 = (long long)blockIdx.y * {{R}};
  const int p2_r = threadIdx.x / {{NL}}, p2_g = threadIdx.x % {{NL}};
  const long long p2_i = p2_i0 + p2_r;
  for (int p2_l = threadIdx.x; p2_l < {{R}} * {{E}}; p2_l += 256) {
    const long long p2_qi = p2_i0 + p2_l / {{E}}, p2_qe = p2_l % {{E}};
    float p2_v = 0.0f;
    if (p2_qi < p2_L) {
{{LOAD_Q}}
    }
    p2_q[p2_l / {{E}}][p2_l % {{E}}] = p2_v;
  }
  float p2_m = -P2_INF, p2_sum = 0.0f;  // running max and sum of exp(score - max) of row p2_i
  float p2_o[{{PER_LANE}}];  // output columns p2_g + {{NL}} * w
  for (int w = 0; w < {{PER_LANE}}; ++w) p2_o[w] = 0.0f;
{{JEND}}
  for (long long p2_j0 = 0; p2_j0 < p2_jend; p2_j0 += {{K}}) {
    __syncthreads();  // q staged / the previous block's v no longer read
    for (int p2_l = threadIdx.x; p2_l < {{K}} * {{E}}; p2_l += 256) {
      const long long p2_kj = p2_j0 + p2_l / {{E}}, p2_ke = p2_l % {{E}};
      float p2_v = 0.0f;
      if (p2_kj < p2_S) {
{{LOAD_K}}
      }
      p2_kv[p2_l / {{E}}][p2_l % {{E}}] = p2_v;
    }
    __syncthreads();
    float p2_sc[{{K}} / {{NL}}];
    float p2_bm = -P2_INF;
    for (int u = 0; u < {{K}} / {{NL}}; ++u) {
      const int p2_c = p2_g + {{NL}} * u;
      const long long p2_j = p2_j0 + p2_c;
      float p2_x = -P2_INF;  // out of range: no weight
      if (p2_i < p2_L && p2_j < p2_S) {
        float p2_s = 0.0f;
        for (int p2_e = 0; p2_e < {{E}}; ++p2_e) p2_s = fmaf(p2_q[p2_r][p2_e], p2_kv[p2_c][p2_e], p2_s);
{{SCORE}}
      }
      p2_sc[u] = p2_x;
      p2_bm = fmaxf(p2_bm, p2_x);
    }
{{ONLINE_SOFTMAX}}
    __syncthreads();  // k no longer read: v goes in its place
    for (int p2_l = threadIdx.x; p2_l < {{K}} * {{EV}}; p2_l += 256) {
      const long long p2_vj = p2_j0 + p2_l / {{EV}}, p2_ve = p2_l % {{EV}};
      float p2_v = 0.0f;
      if (p2_vj < p2_S) {
{{LOAD_V}}
      }
      p2_kv[p2_l / {{EV}}][p2_l % {{EV}}] = p2_v;
    }
    __syncthreads();
    for (int p2_c = 0; p2_c < {{K}}; ++p2_c) {
      const float p2_pv = p2_p[p2_r][p2_c];
      for (int w = 0; w < {{PER_LANE}}; ++w) {
        const int p2_e = p2_g + {{NL}} * w;
        if (p2_e < {{EV}}) p2_o[w] = fmaf(p2_pv, p2_kv[p2_c][p2_e], p2_o[w]);
      }
    }
  }
  if (p2_i >= p2_L) return;
  const bool p2_empty = p2_m == -P2_INF;
  for (int w = 0; w < {{PER_LANE}}; ++w) {
    const long long p2_e = p2_g + {{NL}} * w;
    if (p2_e >= {{EV}}) break;
{{STORE}}
  }
