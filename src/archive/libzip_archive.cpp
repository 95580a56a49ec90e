#include "archive/libzip_archive.h"

#include "common/error.h"

namespace pt2onnx::archive {

namespace {

std::string reason_of(zip_error_t* error) {
  std::string text = zip_error_strerror(error);
  zip_error_fini(error);
  return text;
}

// libzip's message for an error code ("Not a zip archive").
std::string libzip_reason(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  return reason_of(&error);
}

}  // namespace

LibzipArchive::LibzipArchive(zip_t* zip, std::shared_ptr<const void> keep_alive, std::string label)
    : zip_(zip), keep_alive_(std::move(keep_alive)), label_(std::move(label)) {}

LibzipArchive::~LibzipArchive() { zip_discard(zip_); }

std::shared_ptr<LibzipArchive> LibzipArchive::open_file(const std::filesystem::path& path,
                                                        const std::string& label) {
  int code = 0;
  zip_t* zip = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (zip == nullptr)
    fail(ErrorCode::kArchive, label + ": not a readable zip: " + libzip_reason(code));
  return std::shared_ptr<LibzipArchive>(new LibzipArchive(zip, nullptr, label));
}

std::shared_ptr<LibzipArchive> LibzipArchive::open_file_range(const std::filesystem::path& path,
                                                              uint64_t offset, uint64_t size,
                                                              const std::string& label) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source =
      zip_source_file_create(path.c_str(), offset, static_cast<zip_int64_t>(size), &error);
  if (source == nullptr) fail(ErrorCode::kArchive, label + ": cannot read: " + reason_of(&error));
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
