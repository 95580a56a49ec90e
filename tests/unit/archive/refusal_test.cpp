// What Archive::open refuses, and how it says so: damaged zips, plain torch.save files,
// AOTInductor-only packages, PT2 archives without a model, big-endian archives, other zips.
#include <doctest/doctest.h>

#include "archive/archive.h"
#include "archive/test_archives.h"
#include "archive/test_errors.h"
#include "archive/test_pickle.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;
using testing::has;
using testing::TempDir;
using testing::ZipItem;

std::vector<ZipItem> minimal_pt2(const std::string& byteorder = "little") {
  std::vector<ZipItem> items = {
      {"m/models/model.json", "{}"},
      {"m/data/weights/model_weights_config.json", R"({"config": {}})"},
      {"m/data/constants/model_constants_config.json", R"({"config": {}})"}};
  testing::append(items, testing::pt2_records("m/", byteorder));
  return items;
}

std::string open_error(const std::filesystem::path& path) {
  return archive_error_of([&] { Archive::open(path); });
}

TEST_CASE("a minimal PT2 archive opens") {
  TempDir dir;
  const auto archive = Archive::open(dir.write("m.pt2", testing::torch_style_zip(minimal_pt2())));
  CHECK(archive->weights("model").empty());
  CHECK(archive->constants("model").empty());
}

TEST_CASE("damaged files") {
  TempDir dir;
  const std::string good = testing::torch_style_zip(minimal_pt2());
  SUBCASE("truncated zip") {
    const auto path = dir.write("cut.pt2", good.substr(0, good.size() - 30));
    // the directory reader's reason
    const std::string message = open_error(path);
    CHECK(message.find(path.string() + ": ") == 0);
    CHECK(has(message, "central directory"));
  }
  SUBCASE("not a zip") {
    const auto path = dir.write("model.pt2", "{\"graph\": \"this is JSON, not a zip\"}");
    CHECK(open_error(path) == path.string() + ": not a zip (no end of central directory record; truncated?)");
  }
  SUBCASE("missing file") {
    CHECK(has(open_error(dir.path() / "nope.pt2"),
              "nope.pt2: cannot open: No such file or directory"));
  }
}

TEST_CASE("a plain torch.save file") {
  TempDir dir;
  const auto path = dir.write("weights.pt2", testing::torch_save_zip(testing::state_dict_pickle({}),
                                                                     {}, "little", "weights"));
  CHECK(open_error(path) ==
        path.string() +
            ": a plain torch.save file (weights/data.pkl), not a torch.export archive; "
            "save the program with torch.export.save");
}

TEST_CASE("AOTInductor-only packages have no graph") {
  TempDir dir;
  SUBCASE("PT2 layout without models/") {
    std::vector<ZipItem> items = {{"pkg/data/aotinductor/model/model.so",
                                   "\x7f"
                                   "ELF never loaded"},
                                  {"pkg/data/aotinductor/model/abc_metadata.json", "{}"},
                                  {"pkg/data/weights/weight_0", "1234"}};
    testing::append(items, testing::pt2_records("pkg/"));
    const auto path = dir.write("aoti.pt2", testing::torch_style_zip(items));
    const std::string message = open_error(path);
    CHECK(message.find(path.string() + ": an AOTInductor package") == 0);
    CHECK(has(message, "no graph to convert"));
  }
  SUBCASE("early packages without a root folder") {
    const auto path =
        dir.write("old_aoti.pt2", testing::libzip_zip({{"data/aotinductor/model/model.so", "ELF"},
                                                       {"data/constants/constants.pt", ""},
                                                       {"version", "0"}}));
    CHECK(open_error(path).find(path.string() + ": an AOTInductor package") == 0);
  }
}

TEST_CASE("PT2 archive problems") {
  TempDir dir;
  SUBCASE("no models/*.json") {
    std::vector<ZipItem> items = {{"m/data/weights/model_weights_config.json", "{}"},
                                  {"m/models/debug/notes.json", "{}"}};
    testing::append(items, testing::pt2_records("m/"));
    const auto path = dir.write("empty.pt2", testing::torch_style_zip(items));
    CHECK(open_error(path) ==
          path.string() + ": PT2 archive without a model: no m/models/<name>.json");
  }
  SUBCASE("big-endian") {
    const auto path = dir.write("big.pt2", testing::torch_style_zip(minimal_pt2("big")));
    const std::string message = open_error(path);
    CHECK(message.find(path.string() +
                       ": m/byteorder: the weights were written on a big-endian machine") == 0);
    CHECK(has(message, "swapping bytes is not supported"));
  }
  SUBCASE("unknown byte order") {
    const auto path = dir.write("pdp.pt2", testing::torch_style_zip(minimal_pt2("middle")));
    CHECK(open_error(path) ==
          path.string() + ": m/byteorder: unknown byte order 'middle' (expected 'little')");
  }
  SUBCASE("another archive format") {
    std::vector<ZipItem> items = minimal_pt2();
    for (ZipItem& item : items) {
      if (item.name == "m/archive_format") item.bytes = "pt3";
    }
    const auto path = dir.write("pt3.pt2", testing::torch_style_zip(items));
    CHECK(open_error(path) == path.string() + ": m/archive_format: 'pt3', expected 'pt2'");
  }
  SUBCASE("another archive version") {
    std::vector<ZipItem> items = minimal_pt2();
    for (ZipItem& item : items) {
      if (item.name == "m/archive_version")
        item.bytes.assign(1, '1');  // not = "1": GCC 12 -Wrestrict false positive
    }
    const auto path = dir.write("v1.pt2", testing::torch_style_zip(items));
    CHECK(has(open_error(path), "m/archive_version: version '1' is not supported"));
  }
}

TEST_CASE("a zip that is none of these") {
  TempDir dir;
  const auto path = dir.write("docs.zip", testing::libzip_zip({{"docs/readme.txt", "hello"}}));
  CHECK(open_error(path) ==
        path.string() +
            ": not a torch.export archive: found neither docs/archive_format (torch 2.8+) "
            "nor serialized_exported_program.json (torch 2.7 and older)");
}

}  // namespace
}  // namespace pt2onnx::archive
