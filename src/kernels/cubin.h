// A reader of the cubins NVRTC writes (ELF64, EM_CUDA = 190), enough to check a bundle without
// cuobjdump: the SM from e_flags, the kernel entry symbols, and per kernel the parameter layout
// from .nv.info.<kernel> (EIATTR_KPARAM_INFO, EIATTR_PARAM_CBANK) and its register count from the
// global .nv.info (EIATTR_REGCOUNT). The EIATTR numbers come from public reverse engineering;
// unknown records are skipped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pt2onnx::kernels {

struct CubinParam {
  uint32_t ordinal = 0;
  uint32_t offset = 0;  // byte offset in the parameter buffer
  uint32_t size = 0;    // bytes
};

struct CubinKernel {
  std::string symbol;
  std::vector<CubinParam> params;  // sorted by ordinal
  uint32_t param_bank_bytes = 0;   // EIATTR_PARAM_CBANK size (total parameter bytes)
  int registers = -1;              // -1 when not recorded
  uint64_t shared_bytes = 0;       // size of .nv.shared.<symbol> (0 when absent)
};

struct CubinInfo {
  uint16_t elf_type = 0;     // 2 = ET_EXEC
  uint16_t machine = 0;      // 190 = EM_CUDA
  uint32_t flags = 0;        // e_flags
  int sm = 0;                // (e_flags >> 8) & 0xff, e.g. 80, 90
  std::vector<CubinKernel> kernels;  // global functions, sorted by symbol
};

// Throws Error(kCompile) naming what is malformed.
CubinInfo read_cubin(const std::vector<char>& bytes);

}  // namespace pt2onnx::kernels
