//! The online-softmax update shared by attention_simt.cu and attention_mma.cu, after a key
//! block's scores p2_sc: the block max over a row's lanes, the rescale of the running max,
//! sum and outputs, and the weights exp(score - max). Holes: NL, HALF_LANES, K, PER_LANE;
//! STORE_WEIGHT (the statement writing p2_pv, the weight of key p2_g + NL * u, to shared memory).
    // The {{NL}} lanes of a row are {{NL}} consecutive threads of one warp.
    for (int o = {{HALF_LANES}}; o > 0; o >>= 1) p2_bm = fmaxf(p2_bm, __shfl_xor_sync(0xffffffffu, p2_bm, o));
    const float p2_mn = fmaxf(p2_m, p2_bm);
    // While every score so far is -inf nothing is accumulated (exp(-inf - -inf) is NaN).
    const bool p2_none = p2_mn == -P2_INF;
    const float p2_alpha = p2_none ? 1.0f : expf(p2_m - p2_mn);
    float p2_bs = 0.0f;
    for (int u = 0; u < {{K}} / {{NL}}; ++u) {
      const float p2_pv = p2_none ? 0.0f : expf(p2_sc[u] - p2_mn);
{{STORE_WEIGHT}}
      p2_bs += p2_pv;
    }
    for (int o = {{HALF_LANES}}; o > 0; o >>= 1) p2_bs += __shfl_xor_sync(0xffffffffu, p2_bs, o);
    p2_sum = p2_sum * p2_alpha + p2_bs;
    p2_m = p2_mn;
    for (int w = 0; w < {{PER_LANE}}; ++w) p2_o[w] *= p2_alpha;
