// TensorCopier's checksummed copies (issue 11): a whole STORED entry is copied in-kernel while a
// second thread checksums it (small ones on the caller's thread), and either way a damaged entry
// is refused by name. RangeChecksum's buffer path, where the file cannot be mapped.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <thread>

#include "archive/zip_crc.h"
#include "emit/fake_archive.h"
#include "emit/mapped_windows.h"
#include "emit/range_checksum.h"
#include "emit/tensor_copier.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {
namespace {

using testing::FileStorage;
using testing::make_tensor;
using testing::pattern_byte;
using testing::pattern_bytes;
using testing::read_file;
using testing::TempDir;

// The entry sizes that take each path: the inline one, and one over a mapping window that
// starts off a page boundary, so the threaded checksum spans two windows.
const uint64_t kSmall = 1000;
const uint64_t kLarge = kMapWindowBytes + 4099;

struct CopyResult {
  std::string data;      // the output file
  bool verified = false; // the entry's check was done by the copy
};

// Writes `bytes` 37 bytes into an archive file (as a zip's header would put them), records
// `recorded_crc` for them, and copies them to offset 4096 of a new file.
CopyResult copy_entry(const std::vector<uint8_t>& bytes, uint32_t recorded_crc, bool in_kernel) {
  TempDir dir;
  const std::filesystem::path archive_path = dir / "model.pt2";
  {
    std::vector<uint8_t> file(37, 0xEE);
    file.insert(file.end(), bytes.begin(), bytes.end());
    file.resize(file.size() + 11, 0xEE);
    std::ofstream out(archive_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  }
  auto storage = std::make_shared<FileStorage>(archive_path, 37, bytes.size(), "model/data/weights/w0");
  storage->record_crc(recorded_crc);
  const archive::TensorData tensor = make_tensor(ir::DType::kUInt8, {static_cast<int64_t>(bytes.size())}, storage);
  const std::filesystem::path out_path = dir / "out.data";
  const int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  CopyResult result;
  try {
    TensorCopier copier(archive_path);
    if (!in_kernel) copier.disable_in_kernel_copy();
    copier.copy(tensor, make_layout(tensor, "w0"), fd, 4096, out_path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  result.data = read_file(out_path);
  result.verified = storage->entry_crc()->done();
  return result;
}

TEST_CASE("copier: whole entries, small and large, are copied and checksummed by both copy paths") {
  for (const uint64_t size : {kSmall, kLarge}) {
    const std::vector<uint8_t> bytes = pattern_bytes(size);
    const uint32_t crc = archive::crc32_update(0, bytes.data(), bytes.size());
    for (const bool in_kernel : {true, false}) {
      CAPTURE(size);
      CAPTURE(in_kernel);
      const CopyResult result = copy_entry(bytes, crc, in_kernel);
      CHECK(result.verified);
      REQUIRE(result.data.size() == 4096 + size);
      CHECK(result.data.substr(0, 4096) == std::string(4096, '\0'));
      CHECK(result.data.substr(4096) == std::string(bytes.begin(), bytes.end()));
    }
  }
}

TEST_CASE("copier: a damaged entry is refused by name, whichever thread checksums it") {
  for (const uint64_t size : {kSmall, kLarge}) {
    std::vector<uint8_t> bytes = pattern_bytes(size);
    const uint32_t crc = archive::crc32_update(0, bytes.data(), bytes.size());
    bytes[size - 3] ^= 0x40;  // damaged after the zip recorded its CRC, late in the last window
    for (const bool in_kernel : {true, false}) {
      CAPTURE(size);
      CAPTURE(in_kernel);
      std::string message;
      ErrorCode code = ErrorCode::kInternal;
      try {
        copy_entry(bytes, crc, in_kernel);
      } catch (const Error& e) {
        message = e.what();
        code = e.code();
      }
      CHECK(code == ErrorCode::kArchive);
      CHECK(message.find("model/data/weights/w0: CRC-32 mismatch") != std::string::npos);
    }
  }
}

// A pipe cannot be mapped: every byte comes through the read function, in buffer-sized parts.
TEST_CASE("RangeChecksum: reads through its buffer where the file cannot be mapped") {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const uint64_t n = (uint64_t{3} << 20) + 5;
  const std::vector<uint8_t> bytes = pattern_bytes(n + 100);
  uint64_t read_bytes = 0;
  RangeChecksum checksum(pipe_fds[0], 100, n, [&](uint64_t offset, uint64_t count, uint8_t* dst) {
    REQUIRE(offset + count <= bytes.size());
    std::memcpy(dst, bytes.data() + offset, count);
    read_bytes += count;
  });
  const uint32_t got = checksum.wait();
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  CHECK(read_bytes == n);
  CHECK(got == archive::crc32_update(0, bytes.data() + 100, n));
}

TEST_CASE("RangeChecksum: not beside, the whole range is read in wait(), on the caller's thread") {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const uint64_t n = (uint64_t{2} << 20) + 3;
  const std::vector<uint8_t> bytes = pattern_bytes(n);
  uint64_t read_bytes = 0;
  bool other_thread = false;
  const std::thread::id caller = std::this_thread::get_id();
  RangeChecksum checksum(
      pipe_fds[0], 0, n,
      [&](uint64_t offset, uint64_t count, uint8_t* dst) {
        other_thread = other_thread || std::this_thread::get_id() != caller;
        std::memcpy(dst, bytes.data() + offset, count);
        read_bytes += count;
      },
      /*beside=*/false);
  CHECK(read_bytes == 0);  // nothing before wait()
  const uint32_t got = checksum.wait();
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  CHECK(read_bytes == n);
  CHECK_FALSE(other_thread);
  CHECK(got == archive::crc32_update(0, bytes.data(), n));
}

TEST_CASE("RangeChecksum: what the read throws on its thread, wait() throws") {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  RangeChecksum checksum(pipe_fds[0], 0, 4096, [](uint64_t, uint64_t, uint8_t*) {
    fail(ErrorCode::kArchive, "model.pt2: archive ends inside the tensor");
  });
  std::string message;
  try {
    checksum.wait();
  } catch (const Error& e) {
    message = e.what();
  }
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  CHECK(message == "model.pt2: archive ends inside the tensor");
}

TEST_CASE("RangeChecksum: one destroyed without waiting stops and joins its thread") {
  TempDir dir;
  const std::vector<uint8_t> bytes = pattern_bytes(2 * kMapWindowBytes);
  const std::filesystem::path path = dir / "big.bin";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  {
    RangeChecksum abandoned(fd, 0, bytes.size(), [](uint64_t, uint64_t, uint8_t*) {
      throw std::logic_error("the file can be mapped: the buffer path is not taken");
    });
  }  // as a failed copy leaves it: a thread still joinable here would std::terminate the test
  RangeChecksum waited(fd, 0, bytes.size(), [](uint64_t, uint64_t, uint8_t*) {
    throw std::logic_error("the file can be mapped: the buffer path is not taken");
  });
  CHECK(waited.wait() == archive::crc32_update(0, bytes.data(), bytes.size()));
  ::close(fd);
}

}  // namespace
}  // namespace pt2onnx::emit
