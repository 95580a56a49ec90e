// bundle_launcher --bench BUNDLE_DIR...: times every kernel of the bundles of
// samples/kernels/bench.default.pt2 at the sizes of kernels::bench_cases() (cudaEvent timing
// around each launch, 3 warm-up passes, then 20 timed ones; the mean is reported) and prints
// per kernel the time and, per case, the achieved TFLOP/s or GB/s, the fraction of the device's
// peak (kernels/roofline.h: from the device's SM count, clocks and memory bus) and the issue's
// target. Exit 0 when every case ran (a missed target is reported, not an error), 1 on an
// error, 77 without a CUDA driver or GPU. `--bench --dry-run BUNDLE_DIR...` needs no GPU: it
// resolves each case's symbols and prints its launches' grids, device memory and work.
#pragma once

int bench_main(int argc, char** argv);
