// Legacy archives (torch 2.1 to 2.7): a plain zip with serialized_exported_program.json and
// torch.save zips under .pt names (2.3+) or .json names (2.1/2.2).
#include <doctest/doctest.h>

#include "archive/archive.h"
#include "archive/test_archives.h"
#include "archive/test_errors.h"
#include "archive/test_pickle.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;
using testing::TempDir;
using testing::ZipItem;

std::string state_dict_zip() {
  return testing::torch_save_zip(
      testing::state_dict_pickle(
          {{"linear.weight", "FloatStorage", "0", 3, 0, {1, 3}, {3, 1}, true, ""},
           {"linear.bias", "FloatStorage", "1", 1, 0, {1}, {1}, true, ""}}),
      {{"0", testing::float_bytes({1, 2, 3})}, {"1", testing::float_bytes({9})}});
}

std::string constants_zip() {
  return testing::torch_save_zip(
      testing::state_dict_pickle(
          {{"lifted_tensor_0", "LongStorage", "0", 2, 0, {2}, {1}, false, ""}}),
      {{"0", testing::int64_bytes({4, 5})}});
}

TEST_CASE("legacy archive with .pt names, as Python's zipfile writes it") {
  TempDir dir;
  const auto path = dir.write(
      "legacy.pt2",
      testing::libzip_zip({{"serialized_exported_program.json", testing::program_json("legacy")},
                           {"serialized_state_dict.pt", state_dict_zip()},
                           {"serialized_constants.pt", constants_zip()},
                           {"serialized_example_inputs.pt", ""},
                           {"version", "7.4"}}));
  const auto archive = Archive::open(path);
  CHECK(archive->layout() == ArchiveLayout::kLegacy);
  CHECK(std::string(layout_name(archive->layout())) == "legacy");
  CHECK(archive->model_names() == std::vector<std::string>{"model"});
  CHECK(archive->model_entry("model") == "serialized_exported_program.json");
  CHECK(archive->model_json("model") == testing::program_json("legacy"));

  const auto weights = archive->weights("model");
  REQUIRE(weights.size() == 2);
  const std::vector<uint8_t> bias = weights.at("linear.bias").read_contiguous();
  CHECK(std::string(bias.begin(), bias.end()) == testing::float_bytes({9}));
  CHECK(weights.at("linear.weight").storage->entry_name() ==
        "serialized_state_dict.pt: archive/data/0");
  CHECK(weights.at("linear.weight").storage->file_offset().has_value());
  const auto constants = archive->constants("model");
  REQUIRE(constants.size() == 1);
  CHECK(constants.at("lifted_tensor_0").dtype == ir::DType::kInt64);
}

TEST_CASE("legacy archive with the 2.1/2.2 .json names and an empty constants record") {
  TempDir dir;
  const auto path = dir.write(
      "old.pt2",
      testing::torch_style_zip({{"serialized_exported_program.json", testing::program_json("old")},
                                {"serialized_state_dict.json", state_dict_zip()},
                                {"serialized_constants.json", ""},
                                {"version", "2"}}));
  const auto archive = Archive::open(path);
  CHECK(archive->layout() == ArchiveLayout::kLegacy);
  CHECK(archive->weights("model").size() == 2);
  CHECK(archive->constants("model").empty());
}

TEST_CASE("legacy archive without constants, or without a state dict") {
  TempDir dir;
  const auto no_constants = dir.write(
      "a.pt2", testing::torch_style_zip({{"serialized_exported_program.json", "{}"},
                                         {"serialized_state_dict.pt", state_dict_zip()}}));
  CHECK(Archive::open(no_constants)->constants("model").empty());

  const auto no_weights =
      dir.write("b.pt2", testing::torch_style_zip({{"serialized_exported_program.json", "{}"}}));
  CHECK(archive_error_of([&] { Archive::open(no_weights)->weights("model"); }) ==
        no_weights.string() + ": legacy archive without serialized_state_dict.pt (or .json)");
}

}  // namespace
}  // namespace pt2onnx::archive
