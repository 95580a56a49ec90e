// The renderer of one bundle: turns kernel bodies (statements built by the emitters from the
// templates) and the buffer plan into the .cu text and the kernel table with its launch list.
// Each kernel's parameters are its destination, the other pointers its body reads (in the buffer
// plan's order) and every symbol (int64); the source is the prelude template, the tensor-core
// helpers when a kernel uses them, the __device__ constant arrays, then the kernels.
#pragma once

#include <string>
#include <vector>

#include "kernels/buffer_plan.h"
#include "kernels/codegen_internal.h"

namespace pt2onnx::kernels::detail {

class Renderer {
 public:
  static constexpr int kBlock = 256;  // threads per block of every kernel

  Renderer(std::string bundle_name, const BufferPlan& buffers, const std::vector<std::string>& symbols)
      : name_(std::move(bundle_name)), buffers_(buffers), symbols_(symbols) {}

  // Appends a kernel writing `dest_pointer` with body `body_code`; returns its index.
  int add_kernel(const std::string& computes, const std::string& dest_pointer, const Scope& scope,
                 const std::string& body_code, int smem_bytes, std::vector<std::string> grid);
  // A __device__ array of the values: long long, or float bit patterns read with __uint_as_float.
  std::string constant_array(const std::vector<double>& data, bool integral);

  std::string source() const;
  std::vector<Kernel>& kernels() { return kernels_; }
  std::vector<Launch>& launches() { return launches_; }

 private:
  std::string name_;
  const BufferPlan& buffers_;
  const std::vector<std::string>& symbols_;
  std::vector<Kernel> kernels_;
  std::vector<Launch> launches_;
  std::string kernel_code_;
  std::string constants_;
  int next_constant_ = 0;
};

}  // namespace pt2onnx::kernels::detail
