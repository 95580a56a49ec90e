// TempOutputFile: write unnamed, link or exchange onto the output on commit, never leave a
// half-written or stray file, and keep what the output path held when the commit fails; the
// output path checks and the atomic replacement of bundle folders.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <set>

#include "common/error.h"
#include "emit/fake_archive.h"
#include "emit/output_file.h"

namespace pt2onnx::emit {
namespace {

using testing::list_dir;
using testing::read_file;
using testing::TempDir;

void write_text(TempOutputFile& out, const std::string& text) {
  write_all_at(out.fd(), text.data(), text.size(), 0, out.final_path());
}

TEST_CASE("commit replaces an existing output and leaves no temp or old file behind") {
  TempDir dir;
  const std::filesystem::path path = dir / "model.onnx";
  std::ofstream(path) << "old contents";
  {
    TempOutputFile out(path);
    write_text(out, "new");
    CHECK(read_file(path) == "old contents");  // untouched until the commit
    out.commit();
  }
  CHECK(read_file(path) == "new");
  CHECK(list_dir(dir.path()) == std::set<std::string>{"model.onnx"});
}

TEST_CASE("an uncommitted output leaves the old file as it was") {
  TempDir dir;
  const std::filesystem::path path = dir / "model.onnx";
  std::ofstream(path) << "old contents";
  {
    TempOutputFile out(path);
    write_text(out, "half");
  }
  CHECK(read_file(path) == "old contents");
  CHECK(list_dir(dir.path()) == std::set<std::string>{"model.onnx"});
}

TEST_CASE("a directory at the output path is refused and left where it is") {
  TempDir dir;
  const std::filesystem::path path = dir / "model.onnx";
  std::filesystem::create_directory(path);
  {
    TempOutputFile out(path);
    write_text(out, "new");
    CHECK_THROWS_AS(out.commit(), Error);
  }
  CHECK(std::filesystem::is_directory(path));
  CHECK(list_dir(dir.path()) == std::set<std::string>{"model.onnx"});
}

}  // namespace
}  // namespace pt2onnx::emit

namespace pt2onnx::emit {
namespace {

using testing::list_dir;
using testing::read_file;
using testing::TempDir;

ErrorCode code_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kInternal;
}

TEST_CASE("a new output has no name in its folder until the commit") {
  TempDir dir;
  const std::filesystem::path path = dir / "model.onnx";
  TempOutputFile out(path);
  write_all_at(out.fd(), "abc", 3, 0, path);
  CHECK(list_dir(dir.path()).empty());
  out.commit();
  CHECK(list_dir(dir.path()) == std::set<std::string>{"model.onnx"});
  CHECK(read_file(path) == "abc");
}

TEST_CASE("output names up to 255 bytes work, also when replacing") {
  TempDir dir;
  const std::filesystem::path path = dir / (std::string(250, 'n') + ".onnx");
  for (const char* text : {"first", "second"}) {
    TempOutputFile out(path);
    write_all_at(out.fd(), text, std::strlen(text), 0, path);
    out.commit();
    CHECK(read_file(path) == text);
  }
  CHECK(list_dir(dir.path()).size() == 1);
}

TEST_CASE("a symbolic link at the output path is replaced, never written through") {
  TempDir dir;
  const std::filesystem::path victim = dir / "victim";
  std::ofstream(victim) << "keep me";
  std::filesystem::create_directory(dir / "out");
  const std::filesystem::path path = dir / "out" / "model.onnx";
  std::filesystem::create_symlink(victim, path);
  TempOutputFile out(path);
  write_all_at(out.fd(), "new", 3, 0, path);
  out.commit();
  CHECK(read_file(victim) == "keep me");
  CHECK(std::filesystem::is_regular_file(std::filesystem::symlink_status(path)));
  CHECK(read_file(path) == "new");
}

TEST_CASE("check_output_path refuses '', the input by any link, and what is not a file") {
  TempDir dir;
  const std::filesystem::path input = dir / "m.pt2";
  std::ofstream(input) << "archive";
  const auto identity = identity_of(input);
  std::filesystem::create_hard_link(input, dir / "hard.onnx");
  std::filesystem::create_symlink(input, dir / "soft.onnx");
  REQUIRE(::mkfifo((dir / "fifo.onnx").c_str(), 0600) == 0);
  std::filesystem::create_directory(dir / "dir.onnx");
  CHECK(code_of([&] { check_output_path("", identity); }) == ErrorCode::kUsage);
  CHECK(code_of([&] { check_output_path(input, identity); }) == ErrorCode::kUsage);
  CHECK(code_of([&] { check_output_path(dir / "hard.onnx", identity); }) == ErrorCode::kUsage);
  CHECK(code_of([&] { check_output_path(dir / "soft.onnx", identity); }) == ErrorCode::kUsage);
  CHECK(code_of([&] { check_output_path(dir / "fifo.onnx", identity); }) == ErrorCode::kOutput);
  CHECK(code_of([&] { check_output_path(dir / "dir.onnx", identity); }) == ErrorCode::kOutput);
  CHECK(code_of([&] { check_output_path("/dev/null", identity); }) == ErrorCode::kOutput);
  CHECK(code_of([&] { check_output_path(dir / "new.onnx", identity); }) == ErrorCode::kInternal);  // accepted
}

TEST_CASE("replace_atomically swaps a staged tree in and removes the old one without following links") {
  TempDir dir;
  const std::filesystem::path outside = dir / "outside";
  std::filesystem::create_directory(outside);
  std::ofstream(outside / "keep") << "x";
  const std::filesystem::path final_dir = dir / "b.kernels";
  std::filesystem::create_directories(final_dir / "sub");
  std::ofstream(final_dir / "sub" / "old") << "old";
  std::filesystem::create_directory_symlink(outside, final_dir / "link");
  const std::filesystem::path staged = dir / random_temp_name("kernels");
  std::filesystem::create_directory(staged);
  std::ofstream(staged / "new") << "new";
  replace_atomically(staged, final_dir);
  CHECK(list_dir(final_dir) == std::set<std::string>{"new"});
  CHECK(list_dir(dir.path()) == std::set<std::string>{"b.kernels", "outside"});
  CHECK(read_file(outside / "keep") == "x");
}

}  // namespace
}  // namespace pt2onnx::emit
