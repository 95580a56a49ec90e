#include "archive/test_archives.h"

namespace pt2onnx::archive::testing {

namespace {

nlohmann::json int_list(const std::vector<int64_t>& values) {
  nlohmann::json list = nlohmann::json::array();
  for (int64_t v : values) list.push_back({{"as_int", v}});
  return list;
}

}  // namespace

nlohmann::json payload_meta(const std::string& path_name, int64_t dtype,
                            const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                            int64_t storage_offset, bool use_pickle) {
  return {{"path_name", path_name},
          {"is_param", true},
          {"use_pickle", use_pickle},
          {"tensor_meta",
           {{"dtype", dtype},
            {"sizes", int_list(sizes)},
            {"requires_grad", false},
            {"device", {{"type", "cpu"}, {"index", nullptr}}},
            {"strides", int_list(strides)},
            {"storage_offset", {{"as_int", storage_offset}}},
            {"layout", 7}}}};
}

std::string payload_config(const nlohmann::json& config_by_fqn) {
  return nlohmann::json{{"config", config_by_fqn}}.dump();
}

std::vector<ZipItem> pt2_records(const std::string& root, const std::string& byteorder) {
  return {{root + "archive_format", "pt2"},
          {root + "archive_version", "0"},
          {root + "byteorder", byteorder},
          {root + ".data/version", "6\n"}};
}

std::string program_json(const std::string& tag) {
  return nlohmann::json{{"tag", tag}, {"schema_version", {{"major", 8}, {"minor", 15}}}}.dump();
}

void append(std::vector<ZipItem>& items, const std::vector<ZipItem>& more) {
  items.insert(items.end(), more.begin(), more.end());
}

}  // namespace pt2onnx::archive::testing
