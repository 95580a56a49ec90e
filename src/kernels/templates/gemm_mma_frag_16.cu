//! gemm_mma.cu's A and B registers for mma.sync m16n8k16 (fp16 / bf16): pairs of 16-bit values
//! along K; a0 (g, 2t..2t+1), a1 (g+8, ..), a2 (g, 2t+8..), a3 (g+8, 2t+8..); b0 (k 2t..2t+1, n g),
//! b1 (k 2t+8.., n g). Holes: KT, KPAD as in gemm_mma.cu.
        for (int i = 0; i < 2; ++i) {
          const unsigned short* p2_r0 = &p2_as[p2_st][p2_wm + 16 * i + p2_g][p2_kk + 2 * p2_t];
          const unsigned short* p2_r8 = p2_r0 + 8 * ({{KT}} + {{KPAD}});
          p2_a[i][0] = p2_pair(p2_r0);
          p2_a[i][1] = p2_pair(p2_r8);
          p2_a[i][2] = p2_pair(p2_r0 + 8);
          p2_a[i][3] = p2_pair(p2_r8 + 8);
        }
        for (int j = 0; j < 2; ++j) {
          const unsigned short* p2_bp = &p2_bs[p2_st][p2_wn + 8 * j + p2_g][p2_kk + 2 * p2_t];
          p2_b[j][0] = p2_pair(p2_bp);
          p2_b[j][1] = p2_pair(p2_bp + 8);
        }
