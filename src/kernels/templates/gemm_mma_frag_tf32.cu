//! gemm_mma.cu's A and B registers for mma.sync m16n8k8 (tf32): one fp32 value each, rounded to
//! TF32 (10 mantissa bits, to nearest, ties away: cvt.rna.tf32.f32) as it is loaded.
//! Holes: KT, KPAD as in gemm_mma.cu.
        // Fragments of m16n8k8 (tf32): a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (k t, n g), b1 (k t+4, n g).
        for (int i = 0; i < 2; ++i) {
          const float* p2_r0 = &p2_as[p2_st][p2_wm + 16 * i + p2_g][p2_kk + p2_t];
          const float* p2_r8 = p2_r0 + 8 * ({{KT}} + {{KPAD}});
          p2_a[i][0] = p2_tf32(p2_r0[0]);
          p2_a[i][1] = p2_tf32(p2_r8[0]);
          p2_a[i][2] = p2_tf32(p2_r0[4]);
          p2_a[i][3] = p2_tf32(p2_r8[4]);
        }
        for (int j = 0; j < 2; ++j) {
          const float* p2_bp = &p2_bs[p2_st][p2_wn + 8 * j + p2_g][p2_kk + p2_t];
          p2_b[j][0] = p2_tf32(p2_bp[0]);
          p2_b[j][1] = p2_tf32(p2_bp[4]);
        }
