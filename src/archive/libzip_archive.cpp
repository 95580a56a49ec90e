#include "archive/libzip_archive.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"

namespace pt2onnx::archive {

namespace {

std::string reason_of(zip_error_t* error) {
  std::string text = zip_error_strerror(error);
  zip_error_fini(error);
  return text;
}

}  // namespace

LibzipArchive::LibzipArchive(zip_t* zip, std::shared_ptr<const void> keep_alive, std::string label)
    : zip_(zip), keep_alive_(std::move(keep_alive)), label_(std::move(label)) {}

LibzipArchive::~LibzipArchive() { zip_discard(zip_); }

std::shared_ptr<LibzipArchive> LibzipArchive::open_fd(int fd, uint64_t offset, uint64_t size,
                                                      const std::string& label) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  FILE* file = copy < 0 ? nullptr : ::fdopen(copy, "rb");
  if (file == nullptr) {
    const int err = errno;
    if (copy >= 0) ::close(copy);
    fail(ErrorCode::kArchive, label + ": cannot read: " + std::strerror(err));
  }
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_filep_create(file, offset, static_cast<zip_int64_t>(size), &error);
  if (source == nullptr) {
    std::fclose(file);
    fail(ErrorCode::kArchive, label + ": cannot read: " + reason_of(&error));
  }
  zip_error_fini(&error);
  return open_source(source, nullptr, label);
}

std::shared_ptr<LibzipArchive> LibzipArchive::open_memory(std::shared_ptr<const void> keep_alive,
                                                          const void* bytes, uint64_t size,
                                                          const std::string& label) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes, size, 0, &error);
  if (source == nullptr) fail(ErrorCode::kArchive, label + ": cannot read: " + reason_of(&error));
  zip_error_fini(&error);
  return open_source(source, std::move(keep_alive), label);
}

std::shared_ptr<LibzipArchive> LibzipArchive::open_source(zip_source_t* source,
                                                          std::shared_ptr<const void> keep_alive,
                                                          const std::string& label) {
  zip_error_t error;
  zip_error_init(&error);
  zip_t* zip = zip_open_from_source(source, ZIP_RDONLY, &error);
  if (zip == nullptr) {
    zip_source_free(source);  // still ours when the open fails
    fail(ErrorCode::kArchive, label + ": not a readable zip: " + reason_of(&error));
  }
  zip_error_fini(&error);
  return std::shared_ptr<LibzipArchive>(new LibzipArchive(zip, std::move(keep_alive), label));
}

}  // namespace pt2onnx::archive
