// PT2 archives with raw weight blobs (torch 2.9+): tied weights sharing one blob, strided views
// with a storage offset, two models, a root folder of any name, DEFLATE entries, use_pickle
// payloads, custom objects, and the errors for blobs that do not match their metadata.
#include <doctest/doctest.h>

#include <cstring>

#include "archive/archive.h"
#include "archive/test_archives.h"
#include "archive/test_errors.h"
#include "archive/test_pickle.h"

namespace pt2onnx::archive {
namespace {

using nlohmann::json;
using testing::archive_error_of;
using testing::has;
using testing::kSchemaFloat32;
using testing::kSchemaInt64;
using testing::payload_meta;
using testing::TempDir;
using testing::ZipItem;

std::vector<float> floats_of(const TensorData& tensor) {
  const std::vector<uint8_t> bytes = tensor.read_contiguous();
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

std::vector<ZipItem> raw_archive(const std::string& root, bool deflate) {
  const std::string w = root + "data/weights/";
  const std::string c = root + "data/constants/";
  const json weights = {
      {"fc.weight", payload_meta("weight_0", kSchemaFloat32, {2, 3}, {3, 1})},
      {"fc2.weight", payload_meta("weight_0", kSchemaFloat32, {3, 2}, {1, 3})},  // tied, transposed
      {"strided", payload_meta("weight_1", kSchemaFloat32, {2}, {2}, 1)},
      {"steps", payload_meta("weight_2", kSchemaInt64, {2}, {1})},
      {"empty", payload_meta("weight_4", kSchemaFloat32, {0, 3}, {3, 1})},
  };
  json custom = payload_meta("custom_obj_0", 0, {}, {}, 0, true);
  custom["tensor_meta"] = nullptr;
  const json constants = {
      {"c", payload_meta("tensor_0", kSchemaFloat32, {}, {})},
      {"obj", custom},
      {"pickled", payload_meta("tensor_1", kSchemaFloat32, {3}, {1}, 0, true)},
  };
  const std::string pickled_tensor = testing::torch_save_zip(
      testing::tensor_pickle({"", "FloatStorage", "0", 3, 0, {3}, {1}, false, ""}),
      {{"0", testing::float_bytes({7, 8, 9})}});

  std::vector<ZipItem> items = {
      {w + "weight_0", testing::float_bytes({1, 2, 3, 4, 5, 6})},
      {w + "weight_1", testing::float_bytes({10, 11, 12, 13, 14})},
      {w + "weight_2", testing::int64_bytes({-1, 7})},
      {w + "weight_4", ""},
      {w + "model_weights_config.json", testing::payload_config(weights)},
      {c + "tensor_0", testing::float_bytes({0.5f})},
      {c + "custom_obj_0", "a TorchScript pickle we never read"},
      {c + "tensor_1", pickled_tensor},
      {c + "model_constants_config.json", testing::payload_config(constants)},
      // The second model uses the older config names of the pt2_archive docs.
      {w + "weight_3", testing::float_bytes({100, 101, 102, 103}), deflate},
      {w + "second_model_param_config.json",
       testing::payload_config({{"w", payload_meta("weight_3", kSchemaFloat32, {2, 2}, {2, 1})}})},
      {c + "second_model_constants_config.json", testing::payload_config(json::object())},
      {root + "models/model.json", testing::program_json("first"), deflate},
      {root + "models/second.json", testing::program_json("second")},
      {root + "models/debug/trace.json", "{}"},  // not a model: models/<name>.json only
  };
  testing::append(items, testing::pt2_records(root));
  return items;
}

TEST_CASE("PT2 raw weights: models, tied weights, views, constants") {
  struct Variant {
    const char* root;
    bool deflate;
  };
  for (const Variant variant : {Variant{"model/", false}, Variant{"any name-1.x/", false},
                                Variant{"zipped again/", true}}) {
    CAPTURE(variant.root);
    TempDir dir;
    const std::vector<ZipItem> items = raw_archive(variant.root, variant.deflate);
    const std::string file_bytes =
        variant.deflate ? testing::libzip_zip(items) : testing::torch_style_zip(items);
    const auto path = dir.write("weights.pt2", file_bytes);
    const auto archive = Archive::open(path);

    CHECK(archive->path() == path);
    CHECK(archive->layout() == ArchiveLayout::kPt2RawWeights);
    CHECK(std::string(layout_name(archive->layout())) == "pt2 (raw weights)");
    CHECK(archive->model_names() == std::vector<std::string>{"model", "second"});
    CHECK(archive->model_json("model") == testing::program_json("first"));
    CHECK(archive->model_json("second") == testing::program_json("second"));
    CHECK(archive->model_entry("model") == std::string(variant.root) + "models/model.json");

    const auto weights = archive->weights("model");
    REQUIRE(weights.size() == 5);
    const TensorData& fc = weights.at("fc.weight");
    const TensorData& fc2 = weights.at("fc2.weight");
    CHECK(fc.name == "fc.weight");
    CHECK(fc.storage == fc2.storage);  // one Storage per blob
    CHECK(fc.is_contiguous());
    CHECK_FALSE(fc2.is_contiguous());
    CHECK(floats_of(fc) == std::vector<float>{1, 2, 3, 4, 5, 6});
    CHECK(floats_of(fc2) == std::vector<float>{1, 4, 2, 5, 3, 6});
    REQUIRE(fc.storage->file_offset().has_value());  // STORED in every variant
    CHECK(file_bytes.substr(*fc.storage->file_offset(), 24) ==
          testing::float_bytes({1, 2, 3, 4, 5, 6}));
    CHECK(fc.storage->entry_name() == std::string(variant.root) + "data/weights/weight_0");

    const TensorData& strided = weights.at("strided");
    CHECK(strided.storage_offset == 1);
    CHECK(floats_of(strided) == std::vector<float>{11, 13});
    const TensorData& steps = weights.at("steps");
    CHECK(steps.dtype == ir::DType::kInt64);
    CHECK(steps.nbytes() == 16);
    CHECK(weights.at("empty").numel() == 0);
    CHECK(weights.at("empty").read_contiguous().empty());

    const auto constants = archive->constants("model");
    CHECK(constants.size() == 2);  // the custom object is skipped
    CHECK(floats_of(constants.at("c")) == std::vector<float>{0.5f});
    const TensorData& pickled = constants.at("pickled");
    CHECK(pickled.name == "pickled");
    CHECK(floats_of(pickled) == std::vector<float>{7, 8, 9});

    const auto second = archive->weights("second");
    REQUIRE(second.size() == 1);
    CHECK(floats_of(second.at("w")) == std::vector<float>{100, 101, 102, 103});
    CHECK(second.at("w").storage->file_offset().has_value() == !variant.deflate);
    CHECK(archive->constants("second").empty());
  }
}

// Builds a one-model raw archive whose weights config is `config`, with blobs `blobs`.
std::filesystem::path one_model(const TempDir& dir, const json& config,
                                const std::vector<std::pair<std::string, std::string>>& blobs) {
  std::vector<ZipItem> items = {{"m/models/model.json", "{}"}};
  for (const auto& [name, bytes] : blobs) items.push_back({"m/data/weights/" + name, bytes});
  items.push_back({"m/data/weights/model_weights_config.json", testing::payload_config(config)});
  items.push_back(
      {"m/data/constants/model_constants_config.json", testing::payload_config(json::object())});
  testing::append(items, testing::pt2_records("m/"));
  return dir.write("m.pt2", testing::torch_style_zip(items));
}

TEST_CASE("PT2 raw weights: blobs that do not match their metadata") {
  TempDir dir;
  SUBCASE("blob shorter than tensor_meta says") {
    const auto path =
        one_model(dir, {{"fc.weight", payload_meta("weight_3", kSchemaFloat32, {4, 8}, {8, 1})}},
                  {{"weight_3", std::string(96, '\0')}});
    const auto archive = Archive::open(path);
    CHECK(archive_error_of([&] { archive->weights("model"); }) ==
          path.string() +
              ": m/data/weights/weight_3: blob has 96 bytes, tensor_meta of 'fc.weight' needs 128");
  }
  SUBCASE("view reaching past the blob") {
    const auto path = one_model(dir, {{"v", payload_meta("weight_0", kSchemaFloat32, {2}, {2}, 3)}},
                                {{"weight_0", testing::float_bytes({1, 2, 3, 4, 5})}});
    CHECK(has(archive_error_of([&] { Archive::open(path)->weights("model"); }),
              "m/data/weights/weight_0: blob has 20 bytes, tensor_meta of 'v' needs 24"));
  }
  SUBCASE("empty blob for a tensor with elements (fake tensor)") {
    const auto path = one_model(dir, {{"fake", payload_meta("weight_0", kSchemaFloat32, {3}, {1})}},
                                {{"weight_0", ""}});
    const std::string message = archive_error_of([&] { Archive::open(path)->weights("model"); });
    CHECK(
        message.find(
            path.string() +
            ": m/data/weights/weight_0: blob is empty but tensor_meta of 'fake' has 3 elements") ==
        0);
  }
  SUBCASE("blob not a whole number of elements") {
    const auto path = one_model(dir, {{"odd", payload_meta("weight_0", kSchemaFloat32, {1}, {1})}},
                                {{"weight_0", std::string(6, '\0')}});
    CHECK(has(archive_error_of([&] { Archive::open(path)->weights("model"); }),
              "weight_0: blob has 6 bytes, not a multiple of the 4-byte elements of 'odd'"));
  }
  SUBCASE("missing blob") {
    const auto path =
        one_model(dir, {{"gone", payload_meta("weight_9", kSchemaFloat32, {1}, {1})}}, {});
    CHECK(has(archive_error_of([&] { Archive::open(path)->weights("model"); }),
              "m/data/weights/model_weights_config.json: config['gone']: path_name 'weight_9': the "
              "archive has no m/data/weights/weight_9"));
  }
  SUBCASE("unknown dtype") {
    const auto path =
        one_model(dir, {{"q", payload_meta("weight_0", 99, {1}, {1})}}, {{"weight_0", "1234"}});
    CHECK(has(archive_error_of([&] { Archive::open(path)->weights("model"); }),
              "config['q']: tensor_meta.dtype 99 is not a known ScalarType"));
  }
  SUBCASE("symbolic size") {
    json meta = payload_meta("weight_0", kSchemaFloat32, {1}, {1});
    meta["tensor_meta"]["sizes"][0] = {{"as_expr", {{"expr_str", "s0"}}}};
    const auto path = one_model(dir, {{"s", meta}}, {{"weight_0", "1234"}});
    CHECK(has(archive_error_of([&] { Archive::open(path)->weights("model"); }),
              "config['s']: tensor_meta.sizes[0] is not a concrete integer"));
  }
  SUBCASE("negative stride") {
    const auto path = one_model(dir, {{"n", payload_meta("weight_0", kSchemaFloat32, {2}, {-1})}},
                                {{"weight_0", testing::float_bytes({1, 2})}});
    CHECK(has(archive_error_of([&] { Archive::open(path)->weights("model"); }),
              "'n' (float32 sizes [2] strides [-1]"));
  }
  SUBCASE("config is not JSON") {
    std::vector<ZipItem> items = {{"m/models/model.json", "{}"},
                                  {"m/data/weights/model_weights_config.json", "{not json"}};
    testing::append(items, testing::pt2_records("m/"));
    const auto path = dir.write("bad.pt2", testing::torch_style_zip(items));
    CHECK(archive_error_of([&] {
            Archive::open(path)->weights("model");
          }).find(path.string() + ": m/data/weights/model_weights_config.json: not valid JSON") ==
          0);
  }
  SUBCASE("no weights config at all") {
    std::vector<ZipItem> items = {{"m/models/model.json", "{}"}};
    testing::append(items, testing::pt2_records("m/"));
    const auto path = dir.write("none.pt2", testing::torch_style_zip(items));
    CHECK(archive_error_of([&] { Archive::open(path)->weights("model"); }) ==
          path.string() +
              ": no weights for model 'model': expected m/data/weights/model.pt or "
              "m/data/weights/model_weights_config.json");
  }
  SUBCASE("unknown model") {
    const auto path = one_model(dir, json::object(), {});
    CHECK(archive_error_of([&] { Archive::open(path)->weights("other"); }) ==
          path.string() + ": no model named 'other' (the archive has: model)");
  }
}

}  // namespace
}  // namespace pt2onnx::archive
