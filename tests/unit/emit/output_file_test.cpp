// TempOutputFile: write to a hidden temp file, rename onto the output on commit, never leave a
// half-written or stray file, and keep what the output path held when the commit fails.
#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>
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
