// PT2 archives of torch 2.8: weights and constants are torch.save zips nested in the archive
// (data/weights/<model>.pt, data/constants/<model>.pt).
#include <doctest/doctest.h>

#include <cstring>

#include "archive/archive.h"
#include "archive/test_archives.h"
#include "archive/test_errors.h"
#include "archive/test_pickle.h"

namespace pt2onnx::archive {
namespace {

using testing::archive_error_of;
using testing::has;
using testing::SavedTensor;
using testing::TempDir;
using testing::ZipItem;

const std::vector<SavedTensor> kWeights = {
    {"fc1.weight", "FloatStorage", "0", 4, 0, {2, 2}, {2, 1}, true, ""},
    {"fc1.bias", "FloatStorage", "1", 2, 0, {2}, {1}, true, ""},
    {"bn.num_batches_tracked", "LongStorage", "2", 1, 0, {}, {}, false, ""},
};

std::string weights_zip(const std::string& byteorder = "little") {
  return testing::torch_save_zip(testing::state_dict_pickle(kWeights),
                                 {{"0", testing::float_bytes({1, 2, 3, 4})},
                                  {"1", testing::float_bytes({-1, -2})},
                                  {"2", testing::int64_bytes({12})}},
                                 byteorder);
}

std::vector<ZipItem> pickled_archive(const std::string& weights, const std::string& constants) {
  std::vector<ZipItem> items = {{"mlp/models/model.json", testing::program_json("mlp")},
                                {"mlp/data/weights/model.pt", weights},
                                {"mlp/data/constants/model.pt", constants},
                                {"mlp/data/sample_inputs/model.pt", ""}};
  testing::append(items, testing::pt2_records("mlp/"));
  return items;
}

TEST_CASE("PT2 pickled weights (torch 2.8)") {
  TempDir dir;
  // Constants pickled at protocol 4, as torch.export.save(..., pickle_protocol=4) would.
  const std::string constants = testing::torch_save_zip(
      testing::state_dict_pickle({{"scale", "FloatStorage", "0", 1, 0, {}, {}, false, ""}}, 4),
      {{"0", testing::float_bytes({0.25f})}});
  const std::string file_bytes =
      testing::torch_style_zip(pickled_archive(weights_zip(), constants));
  const auto path = dir.write("mlp.pt2", file_bytes);
  const auto archive = Archive::open(path);
  CHECK(archive->layout() == ArchiveLayout::kPt2PickledWeights);
  CHECK(archive->model_names() == std::vector<std::string>{"model"});
  CHECK(archive->model_entry("model") == "mlp/models/model.json");

  const auto weights = archive->weights("model");
  REQUIRE(weights.size() == 3);
  const TensorData& fc1 = weights.at("fc1.weight");
  CHECK(fc1.name == "fc1.weight");
  CHECK(fc1.dtype == ir::DType::kFloat32);
  CHECK(fc1.sizes == std::vector<int64_t>{2, 2});
  CHECK(fc1.storage->entry_name() == "mlp/data/weights/model.pt: archive/data/0");
  // Stored inside a stored zip: the bytes lie in the file at an absolute offset.
  REQUIRE(fc1.storage->file_offset().has_value());
  CHECK(file_bytes.substr(*fc1.storage->file_offset(), 16) == testing::float_bytes({1, 2, 3, 4}));
  const std::vector<uint8_t> bias = weights.at("fc1.bias").read_contiguous();
  CHECK(std::string(bias.begin(), bias.end()) == testing::float_bytes({-1, -2}));
  CHECK(weights.at("bn.num_batches_tracked").dtype == ir::DType::kInt64);
  CHECK(weights.at("bn.num_batches_tracked").numel() == 1);

  const auto loaded_constants = archive->constants("model");
  REQUIRE(loaded_constants.size() == 1);
  const std::vector<uint8_t> scale = loaded_constants.at("scale").read_contiguous();
  CHECK(std::string(scale.begin(), scale.end()) == testing::float_bytes({0.25f}));
}

TEST_CASE("PT2 pickled weights: errors name the nested entry") {
  TempDir dir;
  const std::string no_constants = testing::torch_save_zip(testing::state_dict_pickle({}), {});

  SUBCASE("a global outside the allow-list") {
    testing::PickleWriter w(2);
    w.global("subprocess", "Popen");
    const std::string evil = testing::torch_save_zip(w.finish(), {});
    const auto path =
        dir.write("evil.pt2", testing::torch_style_zip(pickled_archive(evil, no_constants)));
    const auto archive = Archive::open(path);
    const std::string message = archive_error_of([&] { archive->weights("model"); });
    CHECK(message.find(path.string() + ": mlp/data/weights/model.pt: archive/data.pkl: byte 2: "
                                       "global 'subprocess.Popen' is not on the allow-list") == 0);
  }
  SUBCASE("a nested big-endian torch.save zip") {
    const auto path = dir.write(
        "big.pt2", testing::torch_style_zip(pickled_archive(weights_zip("big"), no_constants)));
    const std::string message = archive_error_of([&] { Archive::open(path)->weights("model"); });
    CHECK(message.find(path.string() + ": mlp/data/weights/model.pt: archive/byteorder: ") == 0);
    CHECK(has(message, "big-endian"));
  }
  SUBCASE("a storage shorter than a tensor's view") {
    const std::string short_zip = testing::torch_save_zip(
        testing::state_dict_pickle({{"w", "FloatStorage", "0", 2, 1, {2}, {1}, false, ""}}),
        {{"0", testing::float_bytes({1, 2})}});
    const auto path =
        dir.write("short.pt2", testing::torch_style_zip(pickled_archive(short_zip, no_constants)));
    CHECK(archive_error_of([&] { Archive::open(path)->weights("model"); }) ==
          path.string() +
              ": mlp/data/weights/model.pt: archive/data/0: has 8 bytes, but 'w' "
              "(float32, 2 elements from offset 1) needs 12");
  }
  SUBCASE("a nested entry that is not a torch.save zip") {
    const std::string not_saved = testing::torch_style_zip({{"archive/other", "x"}});
    const auto path =
        dir.write("odd.pt2", testing::torch_style_zip(pickled_archive(not_saved, no_constants)));
    CHECK(archive_error_of([&] { Archive::open(path)->weights("model"); }) ==
          path.string() +
              ": mlp/data/weights/model.pt: not a torch.save zip (no archive/data.pkl)");
  }
}

}  // namespace
}  // namespace pt2onnx::archive
