// An open libzip archive (the outer file, or a nested zip over a byte range of it or over
// memory). libzip checks the container and inflates DEFLATE entries; a zip_t is not
// thread-safe, so every use holds mutex().
#pragma once

#include <zip.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace pt2onnx::archive {

class LibzipArchive {
 public:
  // `label` names the zip in messages ("model.pt2", "model.pt2: model/data/weights/model.pt").
  // Each throws Error(kArchive) with libzip's reason when the bytes are not a readable zip.
  // Bytes [offset, offset + size) of an open file (the archive, or a STORED nested zip in it).
  // Reads a duplicate of `fd`, never the path again, so what was checked is what is read.
  static std::shared_ptr<LibzipArchive> open_fd(int fd, uint64_t offset, uint64_t size,
                                                const std::string& label);
  // `bytes` must stay alive as long as the archive: the caller holds it (see `keep_alive`).
  static std::shared_ptr<LibzipArchive> open_memory(std::shared_ptr<const void> keep_alive,
                                                    const void* bytes, uint64_t size,
                                                    const std::string& label);
  ~LibzipArchive();
  LibzipArchive(const LibzipArchive&) = delete;
  LibzipArchive& operator=(const LibzipArchive&) = delete;

  zip_t* get() const { return zip_; }
  std::mutex& mutex() const { return mutex_; }
  const std::string& label() const { return label_; }

 private:
  LibzipArchive(zip_t* zip, std::shared_ptr<const void> keep_alive, std::string label);
  static std::shared_ptr<LibzipArchive> open_source(zip_source_t* source,
                                                    std::shared_ptr<const void> keep_alive,
                                                    const std::string& label);

  zip_t* zip_;
  std::shared_ptr<const void> keep_alive_;
  std::string label_;
  mutable std::mutex mutex_;
};

}  // namespace pt2onnx::archive
