// Copies a tensor's row-major bytes to a given offset of an output file. A tensor that is a
// whole STORED entry is copied in-kernel with copy_file_range while a second thread checksums
// it; other contiguous ones are copied in-kernel after their entry was verified; a permuted one
// (a folded Transpose) block by block (emit/permuted_copy.h); a scaled one (a folded BatchNorm or weight norm)
// tile by tile (emit/scaled_copy.h); the rest through a bounded buffer
// (Storage::read, which verifies). Where copy_file_range cannot copy
// between the two files, pwrite copies from mappings of the archive. Shared by the external
// data file and the streamed embedded model, so both copy weights the same fast way and neither
// holds a whole tensor in memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "archive/archive.h"
#include "emit/permuted_copy.h"
#include "emit/scaled_copy.h"
#include "emit/scaled_storage.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {

class TensorCopier {
 public:
  // The archive file is opened only when some tensor can be copied from it directly.
  explicit TensorCopier(std::filesystem::path archive_path);
  ~TensorCopier();
  TensorCopier(const TensorCopier&) = delete;
  TensorCopier& operator=(const TensorCopier&) = delete;

  // Writes layout.nbytes bytes at `out_offset` of `out_fd`. `layout` comes from
  // make_layout(tensor). Throws Error(kArchive) when the archive ends inside the tensor,
  // Error(kOutput) naming `out_path` for write errors; the caller adds which tensor it was.
  void copy(const archive::TensorData& tensor, const TensorLayout& layout, int out_fd, uint64_t out_offset,
            const std::filesystem::path& out_path);

  // Reads up to n bytes of the archive at `archive_offset` into dst, fewer only at its end;
  // returns how many. For readers that take many small neighbouring tensors in one read.
  uint64_t read_up_to(uint64_t archive_offset, uint64_t n, uint8_t* dst);

  // Copies in user space (pwrite from mappings) even where copy_file_range would work (the fallback it
  // takes on its own for EXDEV/ENOSYS/EINVAL/EOPNOTSUPP); lets tests exercise that path.
  void disable_in_kernel_copy() { in_kernel_copy_ = false; }

  // Whether a large scaled or permuted weight is written on a thread of its own while its next
  // tile or chunk is made, and a whole entry's in-kernel copy is checksummed on one (on by
  // default). ParallelCopies turns it off while another copier runs beside this one: the two
  // copiers already keep both cores busy.
  void set_write_behind(bool on) { write_behind_ = on; }
  bool write_behind() const { return write_behind_; }

 private:
  void copy_from_archive(uint64_t archive_offset, uint64_t n, int out_fd, uint64_t out_offset,
                         const std::filesystem::path& out_path, const archive::Storage& storage);
  void copy_permuted_tensor(const archive::Storage& storage, const TensorLayout& layout, int out_fd,
                            uint64_t out_offset, const std::filesystem::path& out_path);
  void copy_scaled_tensor(const ScaledStorage& scaled, const TensorLayout& layout, int out_fd, uint64_t out_offset,
                          const std::filesystem::path& out_path);
  void copy_in_user_space(uint64_t archive_offset, uint64_t n, int out_fd, uint64_t out_offset,
                       const std::filesystem::path& out_path, const archive::Storage& storage);
  uint32_t copy_checksummed(uint64_t archive_offset, uint64_t n, int out_fd, uint64_t out_offset,
                            const std::filesystem::path& out_path, const archive::Storage& storage);
  void read_archive(uint64_t archive_offset, uint64_t n, uint8_t* dst, const archive::Storage& storage);
  int archive_fd();
  std::vector<uint8_t>& copy_buffer();

  std::filesystem::path archive_path_;
  int archive_fd_ = -1;
  bool in_kernel_copy_ = true;  // cleared once copy_file_range says it cannot copy these files
  bool write_behind_ = true;
  std::vector<uint8_t> copy_buffer_;
  std::vector<uint8_t> permute_source_;  // a permuted tensor's source where it cannot be mapped
  PermuteBuffers permute_blocks_;        // copy_permuted's blocks, reused
  ScaledBuffers scaled_tiles_;           // copy_scaled's tiles, reused
};

}  // namespace pt2onnx::emit
